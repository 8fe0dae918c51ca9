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
  error_detail::unknown_field(area, field);
}

}  // namespace llm
