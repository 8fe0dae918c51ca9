// The evidence of the layer errors as their messages print it (chapters 18
// and 19), and the two kinds whose evidence is computed from the shape.
#include "llm/nn/layer_error.hpp"

#include <utility>

#include "llm/format.hpp"

namespace llm {

std::string LayerErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "role") return evidence.role;
  if (field == "shape") return shape_text(evidence.shape);
  if (field == "expected") return std::to_string(evidence.expected);
  if (field == "actual") return std::to_string(evidence.actual);
  if (field == "value") return format_shortest(evidence.value);
  error_detail::unknown_field(area, field);
}

LayerError LayerError::bias_width_mismatch(Shape shape, std::size_t expected) {
  const std::size_t actual = shape.empty() ? 0 : shape[0];
  return LayerError(LayerErrorKind::BiasWidthMismatch,
                    {.shape = std::move(shape), .expected = expected, .actual = actual});
}

LayerError LayerError::input_width_mismatch(Shape shape, std::size_t expected) {
  const std::size_t actual = shape.back();
  return LayerError(LayerErrorKind::InputWidthMismatch,
                    {.shape = std::move(shape), .expected = expected, .actual = actual});
}

}  // namespace llm
