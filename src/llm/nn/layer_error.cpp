// Messages and evidence of the layer errors (chapters 18 and 19).
#include "llm/nn/layer_error.hpp"

#include <utility>

namespace llm {

std::string_view layer_error_kind_name(LayerErrorKind kind) {
  switch (kind) {
    case LayerErrorKind::NotAParameter:
      return "not-a-parameter";
    case LayerErrorKind::TableRank:
      return "table-rank";
    case LayerErrorKind::EmptyVocabulary:
      return "empty-vocabulary";
    case LayerErrorKind::ZeroEmbeddingWidth:
      return "zero-embedding-width";
    case LayerErrorKind::WeightRank:
      return "weight-rank";
    case LayerErrorKind::ZeroInputWidth:
      return "zero-input-width";
    case LayerErrorKind::ZeroOutputWidth:
      return "zero-output-width";
    case LayerErrorKind::BiasRank:
      return "bias-rank";
    case LayerErrorKind::BiasWidthMismatch:
      return "bias-width-mismatch";
    case LayerErrorKind::InputRank:
      return "input-rank";
    case LayerErrorKind::InputWidthMismatch:
      return "input-width-mismatch";
  }
  return "unknown";
}

LayerError::LayerError(LayerErrorKind kind, const std::string& message, Shape shape)
    : Error("layer", layer_error_kind_name(kind), message), kind_(kind), shape_(std::move(shape)) {}

LayerError LayerError::not_a_parameter(std::string_view role) {
  return LayerError(LayerErrorKind::NotAParameter,
                    "the " + std::string(role) + " must be a tape parameter (a tracked leaf)",
                    Shape{});
}

LayerError LayerError::table_rank(Shape shape) {
  const std::string text = shape_text(shape);
  return LayerError(LayerErrorKind::TableRank,
                    "an embedding table must be rank two [V, D], got shape " + text,
                    std::move(shape));
}

LayerError LayerError::empty_vocabulary(Shape shape) {
  const std::string text = shape_text(shape);
  return LayerError(LayerErrorKind::EmptyVocabulary,
                    "an embedding table needs at least one row, got shape " + text,
                    std::move(shape));
}

LayerError LayerError::zero_embedding_width(Shape shape) {
  const std::string text = shape_text(shape);
  return LayerError(LayerErrorKind::ZeroEmbeddingWidth,
                    "an embedding table needs at least one column, got shape " + text,
                    std::move(shape));
}

LayerError LayerError::weight_rank(Shape shape) {
  const std::string text = shape_text(shape);
  return LayerError(LayerErrorKind::WeightRank,
                    "a linear weight must be rank two [in, out], got shape " + text,
                    std::move(shape));
}

LayerError LayerError::zero_input_width(Shape shape) {
  const std::string text = shape_text(shape);
  return LayerError(LayerErrorKind::ZeroInputWidth,
                    "a linear weight needs input width in >= 1, got shape " + text,
                    std::move(shape));
}

LayerError LayerError::zero_output_width(Shape shape) {
  const std::string text = shape_text(shape);
  return LayerError(LayerErrorKind::ZeroOutputWidth,
                    "a linear weight needs output width out >= 1, got shape " + text,
                    std::move(shape));
}

LayerError LayerError::bias_rank(Shape shape) {
  const std::string text = shape_text(shape);
  return LayerError(LayerErrorKind::BiasRank,
                    "a linear bias must be rank one [out], got shape " + text, std::move(shape));
}

LayerError LayerError::bias_width_mismatch(Shape shape, std::size_t expected) {
  const std::size_t actual = shape.empty() ? 0 : shape[0];
  LayerError error(LayerErrorKind::BiasWidthMismatch,
                   "a linear bias needs the weight's output width " + std::to_string(expected) +
                       ", got " + std::to_string(actual),
                   std::move(shape));
  error.expected_ = expected;
  error.actual_ = actual;
  return error;
}

LayerError LayerError::input_rank(Shape shape) {
  return LayerError(LayerErrorKind::InputRank,
                    "a linear input needs a feature axis, got a rank-zero value", std::move(shape));
}

LayerError LayerError::input_width_mismatch(Shape shape, std::size_t expected) {
  const std::size_t actual = shape.back();
  const std::string text = shape_text(shape);
  LayerError error(
      LayerErrorKind::InputWidthMismatch,
      "a linear input's last extent must be " + std::to_string(expected) + ", got shape " + text,
      std::move(shape));
  error.expected_ = expected;
  error.actual_ = actual;
  return error;
}

}  // namespace llm
