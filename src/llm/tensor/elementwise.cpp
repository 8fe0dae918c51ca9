// Elementwise arithmetic: each output element combines the operand elements
// that broadcasting places at its coordinate.
#include "llm/tensor/elementwise.hpp"

namespace llm {

Tensor add(const TensorView& left, const TensorView& right) {
  return broadcast_map(left, right, [](double a, double b) { return a + b; });
}

Tensor mul(const TensorView& left, const TensorView& right) {
  return broadcast_map(left, right, [](double a, double b) { return a * b; });
}

}  // namespace llm
