// The Q/K/V projections (chapter 26): three checked bias-free linear layers.
#include "llm/attention/qkv_projections.hpp"

#include <utility>

namespace llm {

// region: qkv-projections-construct
QkvProjections::QkvProjections(Linear query, Linear key, Linear value)
    : query_(std::move(query)), key_(std::move(key)), value_(std::move(value)) {
  if (query_.bias())
    throw AttentionError(AttentionErrorKind::ProjectionBias, {.role = "query projection"});
  if (key_.bias())
    throw AttentionError(AttentionErrorKind::ProjectionBias, {.role = "key projection"});
  if (value_.bias())
    throw AttentionError(AttentionErrorKind::ProjectionBias, {.role = "value projection"});
  const Shape query_shape = query_.weight().shape();
  const Shape key_shape = key_.weight().shape();
  const Shape value_shape = value_.weight().shape();
  if (key_shape != query_shape || value_shape != query_shape) {
    throw AttentionError(
        AttentionErrorKind::ProjectionShapeMismatch,
        {.query_shape = query_shape, .key_shape = key_shape, .value_shape = value_shape});
  }
  if (key_.weight().is_same_node(query_.weight())) {
    throw AttentionError(AttentionErrorKind::SharedProjectionWeight, {.role = "key projection"});
  }
  if (value_.weight().is_same_node(query_.weight()) ||
      value_.weight().is_same_node(key_.weight())) {
    throw AttentionError(AttentionErrorKind::SharedProjectionWeight, {.role = "value projection"});
  }
}

QkvProjections QkvProjections::initialized(std::size_t model_width, std::size_t head_width,
                                           SplitMix64& generator) {
  SplitMix64 trial = generator;  // copied back only when all three exist
  Linear query = Linear::initialized(model_width, head_width, Bias::No, trial);
  Linear key = Linear::initialized(model_width, head_width, Bias::No, trial);
  Linear value = Linear::initialized(model_width, head_width, Bias::No, trial);
  QkvProjections projections(std::move(query), std::move(key), std::move(value));
  generator = trial;
  return projections;
}
// endregion: qkv-projections-construct

// region: qkv-projections-forward
QkvPass QkvProjections::forward(const TensorValue& input) const {
  const Shape shape = input.shape();
  if (shape.size() != 3) {
    throw AttentionError(AttentionErrorKind::InputRank, {.role = "Q/K/V input", .shape = shape});
  }
  if (shape[2] != model_width()) {
    throw AttentionError(AttentionErrorKind::InputWidthMismatch,
                         {.role = "Q/K/V input", .shape = shape, .expected = model_width()});
  }
  // Three independent products of the same input: [B, T, D] x [D, Dh] each.
  return {query_.forward(input), key_.forward(input), value_.forward(input)};
}
// endregion: qkv-projections-forward

std::size_t QkvProjections::parameter_count() const noexcept {
  return query_.parameter_count() + key_.parameter_count() + value_.parameter_count();
}

ParameterSet QkvProjections::parameters() const {
  ParameterSet set;
  set.add_all("query", query_.parameters());
  set.add_all("key", key_.parameters());
  set.add_all("value", value_.parameters());
  return set;
}

}  // namespace llm
