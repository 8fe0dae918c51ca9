// The decoder model (chapter 32): assembly checked against the configuration,
// the forward pass to logits, and the mean next-token loss.
#include "llm/models/decoder_model.hpp"

#include <bit>
#include <cstdint>
#include <string>
#include <utility>

namespace llm {

// region: decoder-config-validate
void DecoderConfig::validate() const {
  if (vocabulary_size == 0) throw DecoderError(DecoderErrorKind::EmptyVocabulary, {});
  block.validate();
}
// endregion: decoder-config-validate

namespace {

// ComponentMismatch unless `actual` equals the configuration's `expected`.
void require_size(const std::string& role, const char* quantity, std::size_t expected,
                  std::size_t actual) {
  if (actual != expected) {
    throw DecoderError(
        DecoderErrorKind::ComponentMismatch,
        {.role = role, .quantity = quantity, .expected = expected, .actual = actual});
  }
}

// ConstantMismatch unless `actual` has the configuration's bits.
void require_constant(const std::string& role, const char* quantity, double expected,
                      double actual) {
  if (std::bit_cast<std::uint64_t>(actual) != std::bit_cast<std::uint64_t>(expected)) {
    throw DecoderError(
        DecoderErrorKind::ConstantMismatch,
        {.role = role, .quantity = quantity, .expected_value = expected, .actual_value = actual});
  }
}

// region: decoder-block-agreement
// Every number of one block that the configuration fixes.
void require_block_matches(const DecoderBlockConfig& config, const DecoderBlock& block,
                           std::size_t layer) {
  const std::string role = "block " + std::to_string(layer);
  require_size(role, "model width", config.model_width, block.model_width());
  require_size(role, "head count", config.heads, block.attention().heads());
  require_size(role, "feed-forward width", config.feed_forward_width,
               block.feed_forward().gate().output_width());
  require_size(role, "context", config.context, block.attention().context());
  require_constant(role, "RoPE base", config.rope_base, block.attention().rotary().base());
  require_constant(role + " attention norm", "epsilon", config.epsilon,
                   block.attention_norm().epsilon());
  require_constant(role + " feed-forward norm", "epsilon", config.epsilon,
                   block.feed_forward_norm().epsilon());
}
// endregion: decoder-block-agreement

}  // namespace

// region: decoder-model-construct
DecoderModel::DecoderModel(DecoderConfig config, Embedding embedding,
                           std::vector<DecoderBlock> blocks, RmsNorm final_norm,
                           std::optional<Linear> head)
    : config_(std::move(config)),
      embedding_(std::move(embedding)),
      blocks_(std::move(blocks)),
      final_norm_(std::move(final_norm)),
      head_(std::move(head)) {
  config_.validate();
  const std::size_t vocabulary = config_.vocabulary_size;
  const std::size_t width = config_.block.model_width;
  require_size("token embedding", "vocabulary size", vocabulary, embedding_.vocabulary_size());
  require_size("token embedding", "width", width, embedding_.width());
  if (blocks_.size() != config_.layers) {
    throw DecoderError(DecoderErrorKind::LayerCountMismatch,
                       {.expected = config_.layers, .actual = blocks_.size()});
  }
  for (std::size_t layer = 0; layer < blocks_.size(); ++layer) {
    require_block_matches(config_.block, blocks_[layer], layer);
  }
  require_size("final norm", "width", width, final_norm_.width());
  require_constant("final norm", "epsilon", config_.block.epsilon, final_norm_.epsilon());
  if (config_.head == HeadTying::Tied && head_) {
    throw DecoderError(
        DecoderErrorKind::HeadTyingMismatch,
        {.role = "reads its logits through the token table and takes no head", .tying = "tied"});
  }
  if (config_.head == HeadTying::Untied) {
    if (!head_) {
      throw DecoderError(DecoderErrorKind::HeadTyingMismatch,
                         {.role = "needs a head projection [D, V]", .tying = "untied"});
    }
    const Shape shape = head_->weight().shape();
    if (head_->bias() || shape != Shape{width, vocabulary}) {
      throw DecoderError(DecoderErrorKind::HeadShapeMismatch,
                         {.shape = shape, .expected_shape = Shape{width, vocabulary}});
    }
  }
  // One list in a stable order; a parameter shared by two parts is refused here.
  parameters_.add_all("token_embedding", embedding_.parameters());
  for (std::size_t layer = 0; layer < blocks_.size(); ++layer) {
    parameters_.add_all("blocks." + std::to_string(layer), blocks_[layer].parameters());
  }
  parameters_.add_all("final_norm", final_norm_.parameters());
  if (head_) parameters_.add_all("head", head_->parameters());
}

DecoderModel DecoderModel::initialized(const DecoderConfig& config, SplitMix64& generator) {
  config.validate();
  const DecoderBlockConfig& block = config.block;
  SplitMix64 trial = generator;  // copied back only when the whole model exists
  Embedding embedding = Embedding::initialized(config.vocabulary_size, block.model_width, trial);
  std::vector<DecoderBlock> blocks;
  blocks.reserve(config.layers);
  for (std::size_t layer = 0; layer < config.layers; ++layer) {
    blocks.push_back(DecoderBlock::initialized(block, trial));
  }
  RmsNorm final_norm = RmsNorm::initialized(block.model_width, block.epsilon);
  std::optional<Linear> head;
  if (config.head == HeadTying::Untied) {
    head = Linear::initialized(block.model_width, config.vocabulary_size, Bias::No, trial);
  }
  DecoderModel model(config, std::move(embedding), std::move(blocks), std::move(final_norm),
                     std::move(head));
  generator = trial;
  return model;
}
// endregion: decoder-model-construct

// region: decoder-token-checks
std::size_t DecoderModel::checked_tokens(IndexSpan ids, const Shape& id_shape) const {
  if (id_shape.size() != 2) throw DecoderError(DecoderErrorKind::TokenRank, {.shape = id_shape});
  if (id_shape[0] == 0) throw DecoderError(DecoderErrorKind::EmptyBatch, {.shape = id_shape});
  if (id_shape[1] == 0) throw DecoderError(DecoderErrorKind::EmptyTokens, {.shape = id_shape});
  if (id_shape[1] > config_.block.context) {
    throw DecoderError(DecoderErrorKind::ContextExceeded,
                       {.expected = config_.block.context, .actual = id_shape[1]});
  }
  const std::size_t count = element_count(id_shape);  // TensorError ShapeOverflow if absurd
  if (ids.size() != count) {
    throw DecoderError(DecoderErrorKind::TokenCountMismatch,
                       {.shape = id_shape, .expected = count, .actual = ids.size()});
  }
  return count;
}
// endregion: decoder-token-checks

// region: decoder-model-forward
DecoderPass DecoderModel::forward_with_intermediates(IndexSpan ids, const Shape& id_shape) const {
  checked_tokens(ids, id_shape);
  const TensorValue embedded = embedding_.forward(ids, id_shape);  // [B, T, D]
  std::vector<DecoderBlockPass> passes;
  passes.reserve(blocks_.size());
  TensorValue stream = embedded;
  for (const DecoderBlock& block : blocks_) {
    passes.push_back(block.forward_with_intermediates(stream));
    stream = passes.back().output;
  }
  const TensorValue normalized = final_norm_.forward(stream);
  // Tied: E^T is a strided view of the same table, so both uses add into its gradient.
  const TensorValue logits =
      head_ ? head_->forward(normalized) : normalized.matmul(embedding_.table().transpose(0, 1));
  return {embedded, std::move(passes), normalized, logits};
}

TensorValue DecoderModel::forward(IndexSpan ids, const Shape& id_shape) const {
  return forward_with_intermediates(ids, id_shape).logits;
}

TensorValue DecoderModel::loss(IndexSpan ids, const Shape& id_shape, IndexSpan targets) const {
  const std::size_t count = checked_tokens(ids, id_shape);
  if (targets.size() != count) {
    throw DecoderError(DecoderErrorKind::TargetCountMismatch,
                       {.expected = count, .actual = targets.size()});
  }
  for (std::size_t position = 0; position < targets.size(); ++position) {
    if (targets[position] >= config_.vocabulary_size) {
      throw DecoderError(
          DecoderErrorKind::TargetOutOfRange,
          {.expected = config_.vocabulary_size, .actual = targets[position], .position = position});
    }
  }
  return forward(ids, id_shape).indexed_mean_nll(2, targets);  // mean over B * T positions
}
// endregion: decoder-model-forward

std::size_t DecoderModel::parameter_count() const noexcept {
  std::size_t count = 0;
  for (const NamedParameter& entry : parameters_) count += entry.parameter.value().size();
  return count;
}

}  // namespace llm
