// The evidence of the model operations' errors as their messages print it
// (chapter 16).
#include <string>

#include "llm/autograd/model_ops.hpp"
#include "llm/format.hpp"

namespace llm {

std::string ModelOpErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "rank") return std::to_string(evidence.rank);
  if (field == "expected") return std::to_string(evidence.expected);
  if (field == "actual") return std::to_string(evidence.actual);
  if (field == "position") return std::to_string(evidence.position);
  if (field == "index") return std::to_string(evidence.index);
  if (field == "rows") return std::to_string(evidence.rows);
  if (field == "shape") return shape_text(evidence.shape);
  if (field == "coordinate") return shape_text(evidence.coordinate);
  if (field == "value") return format_shortest(evidence.value);
  error_detail::unknown_field(area, field);
}

}  // namespace llm
