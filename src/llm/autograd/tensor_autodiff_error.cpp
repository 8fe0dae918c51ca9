// The evidence of the tensor tape's errors as their messages print it.
#include <string>

#include "llm/autograd/tensor_value.hpp"
#include "llm/format.hpp"

namespace llm {

std::string TensorAutodiffErrorTraits::field_text(const Evidence& evidence,
                                                  std::string_view field) {
  if (field == "operation") return std::string(evidence.operation.name());
  if (field == "named_node") {  // `mean_axis node 7`, or `mean_axis node 7 ("loss")`
    std::string text =
        std::string(evidence.operation.name()) + " node " + std::to_string(evidence.node);
    if (!evidence.label.empty()) text += " (\"" + evidence.label + "\")";
    return text;
  }
  if (field == "parent") return std::to_string(evidence.parent);
  if (field == "operand") return std::to_string(evidence.operand);
  if (field == "shape") return shape_text(evidence.shape);
  if (field == "expected_shape") return shape_text(evidence.expected_shape);
  if (field == "coordinate") return shape_text(evidence.coordinate);
  if (field == "value") return format_shortest(evidence.value);
  if (field == "other_value") return format_shortest(evidence.other_value);
  if (field == "recorded_version") return std::to_string(evidence.recorded_version);
  if (field == "current_version") return std::to_string(evidence.current_version);
  error_detail::unknown_field(area, field);
}

}  // namespace llm
