// The pre-norm decoder block (chapter 31): checks, two normalized branches,
// two residual additions.
#include "llm/models/decoder_block.hpp"

#include <cmath>
#include <utility>

namespace llm {

// region: decoder-block-config-validate
void DecoderBlockConfig::validate() const {
  if (model_width == 0) throw DecoderError(DecoderErrorKind::ZeroModelWidth, {});
  if (heads == 0) throw DecoderError(DecoderErrorKind::ZeroHeads, {});
  if (model_width % heads != 0) {
    throw DecoderError(DecoderErrorKind::WidthNotDivisible,
                       {.actual = model_width, .heads = heads});
  }
  if (head_width() % 2 != 0) {
    throw DecoderError(DecoderErrorKind::OddHeadWidth, {.actual = head_width()});
  }
  if (feed_forward_width == 0) throw DecoderError(DecoderErrorKind::ZeroFeedForwardWidth, {});
  if (context == 0) throw DecoderError(DecoderErrorKind::ZeroContext, {});
  if (!std::isfinite(rope_base) || rope_base <= 0.0) {
    throw DecoderError(DecoderErrorKind::InvalidRopeBase, {.value = rope_base});
  }
  if (!std::isfinite(epsilon) || epsilon < 0.0) {
    throw DecoderError(DecoderErrorKind::InvalidEpsilon, {.value = epsilon});
  }
}
// endregion: decoder-block-config-validate

// region: decoder-block-construct
DecoderBlock::DecoderBlock(RmsNorm attention_norm, MultiHeadAttention attention,
                           RmsNorm feed_forward_norm, SwiGlu feed_forward)
    : attention_norm_(std::move(attention_norm)),
      attention_(std::move(attention)),
      feed_forward_norm_(std::move(feed_forward_norm)),
      feed_forward_(std::move(feed_forward)) {
  const std::size_t width = attention_.model_width();
  const std::pair<const char*, std::size_t> parts[] = {
      {"attention norm", attention_norm_.width()},
      {"feed-forward norm", feed_forward_norm_.width()},
      {"feed-forward input", feed_forward_.gate().input_width()},
      {"feed-forward output", feed_forward_.down().output_width()}};
  for (const auto& [role, actual] : parts) {
    if (actual != width) {
      throw DecoderError(DecoderErrorKind::ComponentMismatch,
                         {.role = role, .quantity = "width", .expected = width, .actual = actual});
    }
  }
}

DecoderBlock DecoderBlock::initialized(const DecoderBlockConfig& config, SplitMix64& generator) {
  config.validate();
  SplitMix64 trial = generator;  // copied back only when the whole block exists
  RmsNorm attention_norm = RmsNorm::initialized(config.model_width, config.epsilon);
  RmsNorm feed_forward_norm = RmsNorm::initialized(config.model_width, config.epsilon);
  MultiHeadAttention attention = MultiHeadAttention::initialized(
      config.model_width, config.heads, config.context, config.rope_base, trial);
  SwiGlu feed_forward =
      SwiGlu::initialized(config.model_width, config.feed_forward_width, config.model_width, trial);
  DecoderBlock block(std::move(attention_norm), std::move(attention), std::move(feed_forward_norm),
                     std::move(feed_forward));
  generator = trial;
  return block;
}
// endregion: decoder-block-construct

// region: decoder-block-forward
DecoderBlockPass DecoderBlock::forward_with_intermediates(const TensorValue& input,
                                                          std::size_t position_offset) const {
  const Shape shape = input.shape();
  if (shape.size() != 3) throw DecoderError(DecoderErrorKind::InputRank, {.shape = shape});
  if (shape[2] != model_width()) {
    throw DecoderError(DecoderErrorKind::InputWidthMismatch,
                       {.shape = shape, .expected = model_width()});
  }
  // Branch 1: attention reads a normalized copy; its result joins the stream.
  const TensorValue attention_norm = attention_norm_.forward(input);
  MultiHeadAttentionPass attention =
      attention_.forward_with_intermediates(attention_norm, position_offset);
  const TensorValue after_attention = input.add(attention.output);  // same shape: no broadcast
  // Branch 2: the feed-forward block, the same way.
  const TensorValue feed_forward_norm = feed_forward_norm_.forward(after_attention);
  SwiGluPass feed_forward = feed_forward_.forward_with_intermediates(feed_forward_norm);
  const TensorValue output = after_attention.add(feed_forward.output);
  return {attention_norm,    std::move(attention),    after_attention,
          feed_forward_norm, std::move(feed_forward), output};
}

TensorValue DecoderBlock::forward(const TensorValue& input, std::size_t position_offset) const {
  return forward_with_intermediates(input, position_offset).output;
}
// endregion: decoder-block-forward

std::size_t DecoderBlock::parameter_count() const noexcept {
  return attention_norm_.width() + attention_.parameter_count() + feed_forward_norm_.width() +
         feed_forward_.parameter_count();
}

ParameterSet DecoderBlock::parameters() const {
  ParameterSet set;
  set.add_all("attention_norm", attention_norm_.parameters());
  set.add_all("attention", attention_.parameters());
  set.add_all("ffn_norm", feed_forward_norm_.parameters());
  set.add_all("ffn", feed_forward_.parameters());
  return set;
}

}  // namespace llm
