// The evidence of the parameter errors as their messages print it (chapter 17).
#include "llm/nn/parameter_error.hpp"

#include <cstdio>
#include <utility>

#include "llm/format.hpp"

namespace llm {

std::string ParameterErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "name") return evidence.name;
  if (field == "index") return std::to_string(evidence.index);
  if (field == "expected") return std::to_string(evidence.expected);
  if (field == "actual") return std::to_string(evidence.actual);
  if (field == "fan_in") return std::to_string(evidence.fan_in);
  if (field == "fan_out") return std::to_string(evidence.fan_out);
  if (field == "first_name") return evidence.first_name;
  if (field == "cause_message") return evidence.cause_message;
  if (field == "value") return format_shortest(evidence.value);
  if (field == "divisor") return format_shortest(evidence.divisor);
  if (field == "multiplier") return format_shortest(evidence.multiplier);
  if (field == "name_fault") {  // empty, an empty segment (byte 0), or a byte outside the grammar
    if (evidence.name.empty()) return "a parameter name must not be empty";
    const std::string subject = "parameter name \"" + evidence.name + "\" has ";
    const std::string at = std::to_string(evidence.index);
    if (evidence.byte == 0) return subject + "an empty dot-separated segment at byte " + at;
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned>(evidence.byte));
    return subject + "byte " + byte + " at " + at + "; only a-z, 0-9, '_' and '.' are allowed";
  }
  error_detail::unknown_field(area, field);
}

ParameterError ParameterError::rejected_value(std::string name, std::size_t index,
                                              const Error& cause) {
  return ParameterError(ParameterErrorKind::RejectedValue, {.name = std::move(name),
                                                            .index = index,
                                                            .cause_kind = cause.kind_name(),
                                                            .cause_message = cause.what()});
}

}  // namespace llm
