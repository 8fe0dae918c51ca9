// The evidence of the checkpoint errors as their messages print it (chapter 35).
#include "llm/training/checkpoint_error.hpp"

#include <cstdio>

namespace llm {

namespace {

std::string hex64(std::uint64_t value, int digits) {
  char text[24];
  std::snprintf(text, sizeof text, "%0*llx", digits, static_cast<unsigned long long>(value));
  return text;
}

std::string quoted(const std::vector<std::string>& names) {
  std::string text = "[";
  for (std::size_t i = 0; i < names.size(); ++i) text += (i == 0 ? "\"" : ", \"") + names[i] + "\"";
  return text + "]";
}

}  // namespace

std::string CheckpointErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "path") return evidence.path.empty() ? "" : evidence.path + ": ";
  if (field == "field") return std::string(evidence.field);
  if (field == "expected") return std::to_string(evidence.expected);
  if (field == "actual") return std::to_string(evidence.actual);
  if (field == "expected_checksum") return hex64(evidence.expected, 16);
  if (field == "actual_checksum") return hex64(evidence.actual, 16);
  if (field == "actual_marker") return "0x" + hex64(evidence.actual, 8);
  if (field == "name") return evidence.name;
  if (field == "expected_shape") return shape_text(evidence.expected_shape);
  if (field == "actual_shape") return shape_text(evidence.actual_shape);
  if (field == "expected_names") return quoted(evidence.expected_names);
  if (field == "actual_names") return quoted(evidence.actual_names);
  if (field == "detail") return evidence.detail;
  error_detail::unknown_field(area, field);
}

}  // namespace llm
