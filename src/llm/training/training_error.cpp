// The evidence of the training loop's errors as their messages print it (chapter 33).
#include "llm/training/training_error.hpp"

#include "llm/format.hpp"

namespace llm {

std::string TrainingErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "step") return std::to_string(evidence.step);
  if (field == "previous") return std::to_string(evidence.previous);
  if (field == "final_step") return std::to_string(evidence.final_step);
  if (field == "value") return format_shortest(evidence.value);
  if (field == "scaled_root") return format_shortest(evidence.scaled_root);
  if (field == "role") return std::string(evidence.role);
  if (field == "expected_partition") return std::string(evidence.expected_partition);
  if (field == "actual_partition") return std::string(evidence.actual_partition);
  if (field == "expected") return std::to_string(evidence.expected);
  if (field == "actual") return std::to_string(evidence.actual);
  if (field == "index") return std::to_string(evidence.index);
  if (field == "batch") return std::to_string(evidence.batch);
  if (field == "shape") return shape_text(evidence.shape);
  error_detail::unknown_field(area, field);
}

}  // namespace llm
