// The worked example of docs/adding-an-operation.md: validate, compute,
// build the rule, record. Compiled and tested with the library
// (tests/autograd/outside_operation_test.cpp).
#include "sqrt_operation.hpp"

#include <cmath>
#include <span>
#include <utility>

#include "llm/autograd/recorder.hpp"
#include "llm/format.hpp"
#include "llm/tensor/elementwise.hpp"

namespace example {

std::string SqrtErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "coordinate") {
    return llm::format_list(std::span<const std::size_t>(evidence.coordinate));
  }
  if (field == "value") return llm::format_shortest(evidence.value);
  llm::error_detail::unknown_field(area, field);
}

llm::TensorValue sqrt(const llm::TensorValue& x) {
  // 1. Validate: a refusal here records nothing and changes nothing.
  const llm::SharedTensor input = x.value().contiguous();
  const std::span<const double> inputs = input.contiguous_values();
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (!(inputs[k] > 0.0)) {
      throw SqrtError(
          SqrtErrorKind::NonPositiveInput,
          {.coordinate = llm::coordinate_from_offset(input.shape(), k), .value = inputs[k]});
    }
  }
  // 2. Forward: the saved context is the output (a SharedTensor: copying the
  //    rule copies a handle, never the values).
  const llm::SharedTensor output = llm::map_values(input, [](double v) { return std::sqrt(v); });
  // 3. The rule: d sqrt(x)/dx = 1 / (2 sqrt(x))
  auto over_twice_output = [output](const llm::SharedTensor& upstream) {
    return llm::SharedTensor(
        llm::broadcast_map(upstream, output, [](double g, double y) { return g / (2.0 * y); }));
  };
  // 4. Record: one output, one rule per operand slot.
  return llm::record_operation(kSqrt, output, {x, {"upstream / (2 sqrt(x))", over_twice_output}});
}

}  // namespace example
