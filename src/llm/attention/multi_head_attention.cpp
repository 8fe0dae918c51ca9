// Causal multi-head self-attention with RoPE (chapter 30): projections, head
// split, rotation, attention in every head at once, merge, output projection.
#include "llm/attention/multi_head_attention.hpp"

#include <utility>

#include "llm/attention/heads.hpp"

namespace llm {
namespace {

// region: multi-head-configuration
// The head width D / H of a valid configuration, checked in order.
std::size_t checked_head_width(std::size_t model_width, std::size_t heads) {
  if (heads == 0) throw AttentionError(AttentionErrorKind::ZeroHeads, {});
  if (model_width % heads != 0) {
    throw AttentionError(AttentionErrorKind::WidthNotDivisible,
                         {.actual = model_width, .heads = heads});
  }
  const std::size_t head_width = model_width / heads;
  if (head_width % 2 != 0) {
    throw AttentionError(AttentionErrorKind::OddHeadWidth, {.actual = head_width});
  }
  return head_width;
}
// endregion: multi-head-configuration

}  // namespace

// region: multi-head-construct
MultiHeadAttention::MultiHeadAttention(QkvProjections projections, Linear output, std::size_t heads,
                                       RotaryTable rotary)
    : projections_(std::move(projections)),
      output_(std::move(output)),
      heads_(heads),
      rotary_(std::move(rotary)) {
  const std::size_t width = projections_.model_width();
  if (heads == 0) throw AttentionError(AttentionErrorKind::ZeroHeads, {});
  if (projections_.head_width() != width) {
    throw AttentionError(AttentionErrorKind::ProjectionNotSquare,
                         {.shape = projections_.query().weight().shape()});
  }
  const std::size_t head_width = checked_head_width(width, heads);
  if (output_.bias()) {
    throw AttentionError(AttentionErrorKind::ProjectionBias, {.role = "output projection"});
  }
  if (output_.input_width() != width || output_.output_width() != width) {
    throw AttentionError(AttentionErrorKind::OutputProjectionShape,
                         {.shape = output_.weight().shape(), .expected = width});
  }
  for (const Linear* other : {&projections_.query(), &projections_.key(), &projections_.value()}) {
    if (output_.weight().is_same_node(other->weight())) {
      throw AttentionError(AttentionErrorKind::SharedProjectionWeight,
                           {.role = "output projection"});
    }
  }
  if (rotary_.width() != head_width) {
    throw AttentionError(AttentionErrorKind::RotaryWidthMismatch,
                         {.expected = head_width, .actual = rotary_.width()});
  }
}

MultiHeadAttention MultiHeadAttention::initialized(std::size_t model_width, std::size_t heads,
                                                   std::size_t context, double rope_base,
                                                   SplitMix64& generator) {
  if (model_width == 0) throw AttentionError(AttentionErrorKind::ZeroModelWidth, {});
  const std::size_t head_width = checked_head_width(model_width, heads);
  RotaryTable rotary(head_width, context, rope_base);
  SplitMix64 trial = generator;  // copied back only when all four weights exist
  QkvProjections projections = QkvProjections::initialized(model_width, model_width, trial);
  Linear output = Linear::initialized(model_width, model_width, Bias::No, trial);
  MultiHeadAttention layer(std::move(projections), std::move(output), heads, std::move(rotary));
  generator = trial;
  return layer;
}
// endregion: multi-head-construct

// region: multi-head-project-heads
namespace {

// The projected, split and rotated heads of one input, every node kept.
struct RotatedHeads {
  QkvPass projected;
  TensorValue query_heads;
  TensorValue key_heads;
  TensorValue value_heads;
  TensorValue rotated_query_heads;
  TensorValue rotated_key_heads;
};

RotatedHeads rotated_heads(const MultiHeadAttention& layer, const TensorValue& input,
                           std::size_t offset) {
  const Shape shape = input.shape();
  if (shape.size() != 3) {
    throw AttentionError(AttentionErrorKind::InputRank,
                         {.role = "attention input", .shape = shape});
  }
  if (shape[2] != layer.model_width()) {
    throw AttentionError(
        AttentionErrorKind::InputWidthMismatch,
        {.role = "attention input", .shape = shape, .expected = layer.model_width()});
  }
  const std::size_t tokens = shape[1];
  if (offset > layer.context() || tokens > layer.context() - offset) {  // no overflow
    throw AttentionError(AttentionErrorKind::PositionRange,
                         {.offset = offset, .tokens = tokens, .capacity = layer.context()});
  }
  const QkvPass projected = layer.projections().forward(input);  // three [B, T, D]
  const TensorValue query_heads = split_heads(projected.query, layer.heads());
  const TensorValue key_heads = split_heads(projected.key, layer.heads());
  const TensorValue value_heads = split_heads(projected.value, layer.heads());
  // Positions enter here and only here: queries and keys turn, values do not.
  return {projected,
          query_heads,
          key_heads,
          value_heads,
          layer.rotary().rotate(query_heads, offset),
          layer.rotary().rotate(key_heads, offset)};
}

}  // namespace

HeadProjections MultiHeadAttention::project_heads(const TensorValue& input,
                                                  std::size_t position_offset) const {
  const RotatedHeads heads = rotated_heads(*this, input, position_offset);
  return {heads.rotated_query_heads, heads.rotated_key_heads, heads.value_heads};
}
// endregion: multi-head-project-heads

// region: multi-head-combine-heads
TensorValue MultiHeadAttention::combine_heads(const TensorValue& head_outputs) const {
  return output_.forward(merge_heads(head_outputs));  // [B, H, T, Dh] -> [B, T, D] -> W_O
}
// endregion: multi-head-combine-heads

// region: multi-head-forward
MultiHeadAttentionPass MultiHeadAttention::forward_with_intermediates(
    const TensorValue& input, std::size_t position_offset) const {
  const RotatedHeads heads = rotated_heads(*this, input, position_offset);
  // Every head at once: the head axis is one more batch axis of the attention.
  const AttentionPass attention = scaled_dot_product_attention(
      heads.rotated_query_heads, heads.rotated_key_heads, heads.value_heads, Masking::Causal);
  const TensorValue merged = merge_heads(attention.output);
  return {heads.projected,           heads.query_heads,       heads.key_heads, heads.value_heads,
          heads.rotated_query_heads, heads.rotated_key_heads, attention,       merged,
          output_.forward(merged)};
}

TensorValue MultiHeadAttention::forward(const TensorValue& input,
                                        std::size_t position_offset) const {
  const HeadProjections heads = project_heads(input, position_offset);
  const AttentionPass attention =
      scaled_dot_product_attention(heads.query, heads.key, heads.value, Masking::Causal);
  return combine_heads(attention.output);
}
// endregion: multi-head-forward

std::size_t MultiHeadAttention::parameter_count() const noexcept {
  return projections_.parameter_count() + output_.parameter_count();
}

ParameterSet MultiHeadAttention::parameters() const {
  ParameterSet set = projections_.parameters();
  set.add_all("output", output_.parameters());
  return set;
}

}  // namespace llm
