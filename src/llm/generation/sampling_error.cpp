// The evidence of the sampling errors as their messages print it (chapter 36).
#include "llm/generation/sampling_error.hpp"

#include "llm/format.hpp"

namespace llm {

std::string SamplingErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "classes") return std::to_string(evidence.classes);
  if (field == "index") return std::to_string(evidence.index);
  if (field == "token") return std::to_string(evidence.token);
  if (field == "top_k") return std::to_string(evidence.top_k);
  if (field == "length") return std::to_string(evidence.length);
  if (field == "context") return std::to_string(evidence.context);
  if (field == "value") return format_shortest(evidence.value);
  error_detail::unknown_field(area, field);
}

}  // namespace llm
