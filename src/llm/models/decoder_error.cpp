// The evidence of the decoder errors as their messages print it.
#include "llm/models/decoder_error.hpp"

#include "llm/format.hpp"

namespace llm {

std::string DecoderErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "role") return evidence.role;
  if (field == "quantity") return evidence.quantity;
  if (field == "shape") return shape_text(evidence.shape);
  if (field == "expected_shape") return shape_text(evidence.expected_shape);
  if (field == "expected") return std::to_string(evidence.expected);
  if (field == "actual") return std::to_string(evidence.actual);
  if (field == "heads") return std::to_string(evidence.heads);
  if (field == "position") return std::to_string(evidence.position);
  if (field == "value") return format_shortest(evidence.value);
  if (field == "expected_value") return format_shortest(evidence.expected_value);
  if (field == "actual_value") return format_shortest(evidence.actual_value);
  if (field == "tying") return evidence.tying;
  error_detail::unknown_field(area, field);
}

}  // namespace llm
