// The evidence of a rejected AdamW state as its messages print it (chapter 35).
#include "llm/training/adamw_state_error.hpp"

#include "llm/format.hpp"

namespace llm {

namespace {

// `["a", "b"]`: names as the groups-mismatch message quotes them.
std::string quoted(const std::vector<std::string>& names) {
  std::string text = "[";
  for (std::size_t i = 0; i < names.size(); ++i) text += (i == 0 ? "\"" : ", \"") + names[i] + "\"";
  return text + "]";
}

}  // namespace

std::string AdamWStateErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "name") return evidence.name;
  if (field == "moment") return std::string(evidence.moment);
  if (field == "step_count") return std::to_string(evidence.step_count);
  if (field == "entries") return std::to_string(evidence.entries);
  if (field == "shape") return shape_text(evidence.shape);
  if (field == "expected") return std::to_string(evidence.expected);
  if (field == "first_length") return std::to_string(evidence.first_length);
  if (field == "second_length") return std::to_string(evidence.second_length);
  if (field == "index") return std::to_string(evidence.index);
  if (field == "value") return format_shortest(evidence.value);
  if (field == "grouped_names") return quoted(evidence.grouped_names);
  if (field == "moment_names") return quoted(evidence.moment_names);
  error_detail::unknown_field(area, field);
}

}  // namespace llm
