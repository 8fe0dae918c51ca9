// The evidence of the configuration errors as their messages print it.
#include "llm/tensor/configuration_error.hpp"

namespace llm {

std::string ConfigurationErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "source") return evidence.source;
  if (field == "value") return evidence.value;
  if (field == "allowed") return evidence.allowed;
  error_detail::unknown_field(area, field);
}

}  // namespace llm
