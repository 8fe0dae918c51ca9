// Mini-batches of complete causal windows and their token means (chapter 21).
#include "llm/training/mini_batches.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "llm/format.hpp"
#include "llm/nn/init.hpp"

namespace llm {

std::string BatchErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "index") return std::to_string(evidence.index);
  if (field == "earlier_index") return std::to_string(evidence.earlier_index);
  if (field == "document_id") return evidence.document_id;
  if (field == "partition") return std::string(partition_label(evidence.partition));
  if (field == "epoch_partition") return std::string(partition_label(evidence.epoch_partition));
  if (field == "expected") return std::to_string(evidence.expected);
  if (field == "actual") return std::to_string(evidence.actual);
  if (field == "value") return format_shortest(evidence.value);
  if (field == "subject") return evidence.subject;
  if (field == "sum") {
    return evidence.sum_coordinate
               ? "the gradient sum at coordinate " + std::to_string(*evidence.sum_coordinate)
               : std::string("the loss sum");
  }
  error_detail::unknown_field(area, field);
}

namespace {

// region: batch-document-validation
void validate_documents(Partition partition, std::span<const BatchDocument> documents) {
  for (std::size_t index = 0; index < documents.size(); ++index) {
    const BatchDocument& document = documents[index];
    if (document.id.empty()) {
      throw BatchError(BatchErrorKind::EmptyDocumentId, {.index = index});
    }
    if (document.partition != partition) {
      throw BatchError(BatchErrorKind::PartitionMismatch, {.index = index,
                                                           .document_id = document.id,
                                                           .partition = document.partition,
                                                           .epoch_partition = partition});
    }
    for (std::size_t first = 0; first < index; ++first) {
      if (documents[first].id == document.id) {
        throw BatchError(BatchErrorKind::DuplicateDocumentId,
                         {.index = index, .earlier_index = first, .document_id = document.id});
      }
    }
  }
}
// endregion: batch-document-validation

}  // namespace

MiniBatchConfig MiniBatchConfig::create(std::size_t batch_size, BatchOrder order) {
  if (batch_size == 0) throw BatchError(BatchErrorKind::ZeroBatchSize);
  return MiniBatchConfig(batch_size, order);
}

std::optional<std::span<const TokenId>> MiniBatch::input_row(std::size_t row) const noexcept {
  if (row >= width()) return std::nullopt;
  return std::span<const TokenId>(inputs_).subspan(row * context_length_, context_length_);
}

std::optional<std::span<const TokenId>> MiniBatch::target_row(std::size_t row) const noexcept {
  if (row >= width()) return std::nullopt;
  return std::span<const TokenId>(targets_).subspan(row * context_length_, context_length_);
}

// region: seeded-shuffle
void shuffle_positions(std::span<std::size_t> positions, std::uint64_t seed) noexcept {
  SplitMix64 generator(seed);
  for (std::size_t i = positions.size(); i-- > 1;) {
    // A uniform j in [0, i]: reject the lowest (2^64 mod n) draws, so that
    // the accepted range is a whole number of copies of [0, n).
    const std::uint64_t n = i + 1;
    const std::uint64_t rejected_below = (0 - n) % n;
    std::uint64_t draw = generator.next_u64();
    while (draw < rejected_below) draw = generator.next_u64();
    std::swap(positions[i], positions[static_cast<std::size_t>(draw % n)]);
  }
}
// endregion: seeded-shuffle

// region: mini-batch-epoch
MiniBatchEpoch MiniBatchEpoch::build(Partition partition, std::span<const BatchDocument> documents,
                                     const CausalWindowConfig& window_config,
                                     const MiniBatchConfig& config) {
  // region: epoch-validation
  validate_documents(partition, documents);
  std::size_t window_count = 0;
  for (const BatchDocument& document : documents) {
    const std::size_t count = window_config.window_count(document.token_ids.size());
    if (count > std::numeric_limits<std::size_t>::max() - window_count) {
      throw BatchError(BatchErrorKind::CountOverflow, {.subject = "the total window count"});
    }
    window_count += count;
  }
  // endregion: epoch-validation

  // Name every window by (document, start), in document order.
  struct WindowName {
    std::size_t document_index;
    std::size_t start;
  };
  std::vector<WindowName> names;
  names.reserve(window_count);
  for (std::size_t index = 0; index < documents.size(); ++index) {
    const std::size_t count = window_config.window_count(documents[index].token_ids.size());
    for (std::size_t k = 0; k < count; ++k) names.push_back({index, k * window_config.stride()});
  }

  // Permute positions, never tokens: each name still points into one document.
  std::vector<std::size_t> order(window_count);
  for (std::size_t i = 0; i < window_count; ++i) order[i] = i;
  if (config.order().seed) shuffle_positions(order, *config.order().seed);

  MiniBatchEpoch epoch;
  epoch.partition_ = partition;
  epoch.context_length_ = window_config.context_length();
  epoch.window_count_ = window_count;
  const std::size_t T = window_config.context_length();
  for (std::size_t first = 0; first < window_count; first += config.batch_size()) {
    const std::size_t width =
        std::min(config.batch_size(), window_count - first);  // the last may be short
    MiniBatch batch;
    batch.context_length_ = T;
    batch.inputs_.reserve(width * T);
    batch.targets_.reserve(width * T);
    for (std::size_t row = 0; row < width; ++row) {
      const WindowName& name = names[order[first + row]];
      const BatchDocument& document = documents[name.document_index];
      const std::span<const TokenId> source = document.token_ids.subspan(name.start, T + 1);
      batch.inputs_.insert(batch.inputs_.end(), source.begin(), source.end() - 1);
      batch.targets_.insert(batch.targets_.end(), source.begin() + 1, source.end());
      batch.origins_.push_back({name.document_index, document.id, name.start});
    }
    epoch.batches_.push_back(std::move(batch));
  }
  return epoch;
}
// endregion: mini-batch-epoch

TokenContribution TokenContribution::create(double loss, std::vector<double> gradient) {
  if (!std::isfinite(loss)) {
    throw BatchError(BatchErrorKind::NonFiniteLoss, {.value = loss});
  }
  if (gradient.empty())
    throw BatchError(BatchErrorKind::ZeroGradientWidth, {.subject = "a token gradient"});
  for (std::size_t i = 0; i < gradient.size(); ++i) {
    if (!std::isfinite(gradient[i])) {
      throw BatchError(BatchErrorKind::NonFiniteGradient, {.index = i, .value = gradient[i]});
    }
  }
  return TokenContribution(loss, std::move(gradient));
}

TokenMeanAccumulator TokenMeanAccumulator::create(std::size_t width) {
  if (width == 0)
    throw BatchError(BatchErrorKind::ZeroGradientWidth, {.subject = "an accumulator"});
  return TokenMeanAccumulator(width);
}

// region: token-mean-accumulation
void TokenMeanAccumulator::add_checked(double loss, std::span<const double> gradient,
                                       std::size_t count) {
  // region: accumulation-checks
  if (gradient.size() != gradient_sums_.size())
    throw BatchError(BatchErrorKind::GradientWidthMismatch,
                     {.expected = gradient_sums_.size(), .actual = gradient.size()});
  if (count > std::numeric_limits<std::size_t>::max() - token_count_) {
    throw BatchError(BatchErrorKind::CountOverflow, {.subject = "the token count"});
  }
  if (!std::isfinite(loss_sum_ + loss)) {
    throw BatchError(BatchErrorKind::NonFiniteAccumulation, {.value = loss_sum_ + loss});
  }
  for (std::size_t i = 0; i < gradient.size(); ++i) {
    if (!std::isfinite(gradient_sums_[i] + gradient[i])) {
      throw BatchError(BatchErrorKind::NonFiniteAccumulation,
                       {.value = gradient_sums_[i] + gradient[i], .sum_coordinate = i});
    }
  }
  // endregion: accumulation-checks
  // Every check passed: the writes below cannot fail.
  loss_sum_ += loss;
  for (std::size_t i = 0; i < gradient.size(); ++i) gradient_sums_[i] += gradient[i];
  token_count_ += count;
}

void TokenMeanAccumulator::add_token(const TokenContribution& contribution) {
  add_checked(contribution.loss(), contribution.gradient(), 1);
}

void TokenMeanAccumulator::merge(const TokenMeanAccumulator& other) {
  add_checked(other.loss_sum_, other.gradient_sums_, other.token_count_);
}

TokenMean TokenMeanAccumulator::finish() const {
  if (token_count_ == 0) throw BatchError(BatchErrorKind::EmptyAccumulator);
  const double denominator = static_cast<double>(token_count_);
  TokenMean mean;
  mean.token_count_ = token_count_;
  mean.mean_loss_ = loss_sum_ / denominator;
  mean.mean_gradient_.reserve(gradient_sums_.size());
  for (double sum : gradient_sums_) mean.mean_gradient_.push_back(sum / denominator);
  return mean;
}
// endregion: token-mean-accumulation

// region: batch-average
TokenMean MiniBatch::average(std::span<const TokenContribution> contributions) const {
  if (contributions.size() != token_count()) {
    throw BatchError(BatchErrorKind::ContributionCountMismatch,
                     {.expected = token_count(), .actual = contributions.size()});
  }
  if (contributions.empty()) throw BatchError(BatchErrorKind::EmptyAccumulator);
  TokenMeanAccumulator accumulator =
      TokenMeanAccumulator::create(contributions.front().gradient().size());
  for (const TokenContribution& contribution : contributions) accumulator.add_token(contribution);
  return accumulator.finish();
}
// endregion: batch-average

}  // namespace llm
