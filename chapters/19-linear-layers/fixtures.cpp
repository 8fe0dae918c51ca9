// Chapter 19 fixtures (see fixtures.hpp).
#include "fixtures.hpp"

#include <optional>

namespace ch19 {

using llm::Tensor;
using llm::TensorValue;

Tensor known_input() {
  return Tensor({1, 2, 2}, {1, 2, -1, 3});
}
Tensor known_weight() {
  return Tensor({2, 3}, {1, 0, -1, 2, 0.5, 1});
}
Tensor known_bias() {
  return Tensor({3}, {0.5, -0.5, 1});
}
Tensor known_upstream() {
  return Tensor({1, 2, 3}, {1, 0, -1, 0.5, 2, 1});
}

// region: known-linear-layer
llm::Linear known_linear(llm::Bias bias) {
  std::optional<TensorValue> bias_value;
  if (bias == llm::Bias::Yes) bias_value = TensorValue::parameter(known_bias());
  return llm::Linear(TensorValue::parameter(known_weight()), bias_value);
}
// endregion: known-linear-layer

// region: scalar-weighted-unit
double weighted_unit(std::span<const double> inputs, std::span<const double> weights, double bias) {
  double total = 0.0;
  for (std::size_t i = 0; i < inputs.size(); ++i) total += inputs[i] * weights[i];
  return total + bias;
}
// endregion: scalar-weighted-unit

}  // namespace ch19
