// The evidence of the attention errors as their messages print it.
#include "llm/attention/attention_error.hpp"

namespace llm {

std::string AttentionErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "role") return evidence.role;
  if (field == "shape") return shape_text(evidence.shape);
  if (field == "query_shape") return shape_text(evidence.query_shape);
  if (field == "key_shape") return shape_text(evidence.key_shape);
  if (field == "value_shape") return shape_text(evidence.value_shape);
  if (field == "expected") return std::to_string(evidence.expected);
  if (field == "actual") return std::to_string(evidence.actual);
  if (field == "heads") return std::to_string(evidence.heads);
  if (field == "offset") return std::to_string(evidence.offset);
  if (field == "tokens") return std::to_string(evidence.tokens);
  if (field == "capacity") return std::to_string(evidence.capacity);
  error_detail::unknown_field(area, field);
}

}  // namespace llm
