// The once-only final evaluation of chapter 34.
#include "llm/evaluation/final_evaluation.hpp"

#include <bit>
#include <cmath>
#include <map>
#include <utility>

#include "llm/fnv1a.hpp"

namespace llm {

std::string FinalEvaluationErrorTraits::field_text(const Evidence& evidence,
                                                   std::string_view field) {
  if (field == "partition") return std::string(evidence.partition);
  if (field == "expected") return std::to_string(evidence.expected);
  if (field == "actual") return std::to_string(evidence.actual);
  if (field == "batch") return std::to_string(evidence.batch);
  if (field == "index") return std::to_string(evidence.index);
  error_detail::unknown_field(area, field);
}

namespace {

std::vector<std::uint64_t> bits_of(const ParameterSet& parameters, bool gradients) {
  std::vector<std::uint64_t> bits;
  for (const NamedParameter& entry : parameters) {
    const Tensor values =
        gradients ? *entry.parameter.gradient() : entry.parameter.value().materialize();
    for (double value : values.values()) bits.push_back(std::bit_cast<std::uint64_t>(value));
  }
  return bits;
}

// region: inspect-test-epoch
// Every test token checked against the vocabulary, the window slots counted
// and fingerprinted, and each document transition counted by how many
// overlapping windows score it.
void inspect(const MiniBatchEpoch& epoch, std::size_t vocabulary, FinalEvaluationReport& report) {
  Fnv1a64 fingerprint;
  std::map<std::pair<std::string, std::size_t>, std::size_t> multiplicity;
  for (std::size_t b = 0; b < epoch.batches().size(); ++b) {
    const MiniBatch& batch = epoch.batches()[b];
    for (std::span<const TokenId> ids : {batch.inputs(), batch.targets()}) {
      for (std::size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] >= vocabulary) {
          throw FinalEvaluationError(
              FinalEvaluationErrorKind::TokenOutOfRange,
              {.expected = vocabulary, .actual = ids[i], .batch = b, .index = i});
        }
      }
    }
    for (std::size_t row = 0; row < batch.width(); ++row) {
      const WindowOrigin& origin = batch.origins()[row];
      bool seen = false;
      for (const std::string& id : report.document_ids) seen |= id == origin.document_id;
      if (!seen) report.document_ids.push_back(origin.document_id);
      for (char c : origin.document_id) fingerprint.add(static_cast<std::uint8_t>(c));
      fingerprint.add(0xff);
      fingerprint.add_little_endian(origin.start, 8);
      const std::span<const TokenId> inputs = *batch.input_row(row);
      const std::span<const TokenId> targets = *batch.target_row(row);
      for (std::size_t slot = 0; slot < inputs.size(); ++slot) {
        fingerprint.add_little_endian(inputs[slot], 4);
        fingerprint.add_little_endian(targets[slot], 4);
        ++report.target_count;
        ++multiplicity[{origin.document_id, origin.start + slot + 1}];
      }
    }
  }
  report.window_slot_fingerprint = fnv1a64_text(fingerprint.value());
  report.document_transition_count = multiplicity.size();
  for (const auto& [transition, count] : multiplicity) {
    if (report.transition_multiplicity_counts.size() < count) {
      report.transition_multiplicity_counts.resize(count, 0);
    }
    ++report.transition_multiplicity_counts[count - 1];
  }
}
// endregion: inspect-test-epoch

}  // namespace

FinalEvaluator FinalEvaluator::create(MiniBatchEpoch test_epoch) {
  if (test_epoch.partition() != Partition::Test) {
    throw FinalEvaluationError(FinalEvaluationErrorKind::WrongTestPartition,
                               {.partition = partition_label(test_epoch.partition())});
  }
  if (test_epoch.window_count() == 0) {
    throw FinalEvaluationError(FinalEvaluationErrorKind::EmptyTestEpoch, {});
  }
  return FinalEvaluator(std::move(test_epoch));
}

// region: evaluate-once
FinalEvaluationReport FinalEvaluator::evaluate_once(const TrainableModel& model,
                                                    const BigramModel& baseline) {
  if (gate_openings_ != 0)
    throw FinalEvaluationError(FinalEvaluationErrorKind::AlreadyEvaluated, {});
  if (model.vocabulary_size != baseline.vocabulary_size()) {
    throw FinalEvaluationError(
        FinalEvaluationErrorKind::VocabularyMismatch,
        {.expected = model.vocabulary_size, .actual = baseline.vocabulary_size()});
  }
  if (epoch_.context_length() > model.context) {
    throw FinalEvaluationError(FinalEvaluationErrorKind::ContextMismatch,
                               {.expected = model.context, .actual = epoch_.context_length()});
  }
  // Every check above left the gate closed; from here on the test data is read.
  gate_openings_ = 1;
  FinalEvaluationReport report;
  report.window_count = epoch_.window_count();
  report.batch_count = epoch_.batches().size();
  inspect(epoch_, model.vocabulary_size, report);

  const std::vector<std::uint64_t> values_before = bits_of(model.parameters, false);
  const std::vector<std::uint64_t> gradients_before = bits_of(model.parameters, true);
  const Evaluation scored = evaluate_without_gradients(model, epoch_, "test");
  if (bits_of(model.parameters, false) != values_before) {
    throw FinalEvaluationError(FinalEvaluationErrorKind::ParametersChanged, {});
  }
  if (bits_of(model.parameters, true) != gradients_before) {
    throw FinalEvaluationError(FinalEvaluationErrorKind::GradientsChanged, {});
  }
  report.recorded_graphs = scored.recorded_graphs;
  report.parameters_unchanged = report.gradients_unchanged = true;
  report.model = ModelScore{scored.mean_loss * static_cast<double>(scored.token_count),
                            scored.token_count, scored.mean_loss, std::exp(scored.mean_loss)};

  // The baseline on the very same (input, target) pairs, in the same order.
  std::vector<double> probabilities;
  for (const MiniBatch& batch : epoch_.batches()) {
    for (std::size_t i = 0; i < batch.inputs().size(); ++i) {
      probabilities.push_back(baseline.smoothed_probability(batch.inputs()[i], batch.targets()[i]));
    }
  }
  const LanguageModelMetrics metrics = score_assigned_probabilities(probabilities);
  report.baseline = ModelScore{metrics.total_nll(), metrics.target_count(), metrics.mean_nll(),
                               metrics.perplexity()};
  if (report.model.target_count != report.target_count ||
      report.baseline.target_count != report.target_count) {
    throw FinalEvaluationError(
        FinalEvaluationErrorKind::TargetCountMismatch,
        {.expected = report.model.target_count, .actual = report.baseline.target_count});
  }
  return report;
}
// endregion: evaluate-once

}  // namespace llm
