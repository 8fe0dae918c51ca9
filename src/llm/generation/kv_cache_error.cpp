// The evidence of the key/value cache errors as their messages print it
// (chapters 37 and 38).
#include "llm/generation/kv_cache_error.hpp"

namespace llm {

std::string KvCacheErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "shape") return shape_text(evidence.shape);
  if (field == "expected_shape") return shape_text(evidence.expected_shape);
  if (field == "expected") return std::to_string(evidence.expected);
  if (field == "actual") return std::to_string(evidence.actual);
  if (field == "length") return std::to_string(evidence.length);
  if (field == "capacity") return std::to_string(evidence.capacity);
  if (field == "position") return std::to_string(evidence.position);
  if (field == "token") return std::to_string(evidence.token);
  if (field == "parameter") return evidence.parameter;
  if (field == "quantity") return evidence.quantity;
  error_detail::unknown_field(area, field);
}

}  // namespace llm
