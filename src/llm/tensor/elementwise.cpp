// Elementwise arithmetic: each output element combines the operand elements
// that broadcasting places at its coordinate.
#include "llm/tensor/elementwise.hpp"

#include <utility>
#include <vector>

#include "llm/tensor/broadcast.hpp"

namespace llm {

namespace {

// region: broadcast-binary
// result[c] = combine(left[c'], right[c'']) where c' and c'' are c read through
// each operand's broadcast (axes an operand lacks or has with extent 1 repeat).
Tensor broadcast_binary(const TensorView& left, const TensorView& right,
                        double (*combine)(double, double)) {
  const Shape shape = broadcast_shapes(left.shape(), right.shape());
  const BroadcastIndex left_index(left.shape(), shape);
  const BroadcastIndex right_index(right.shape(), shape);
  Tensor result = Tensor::zeros(shape);
  std::span<double> values = result.mutable_values();
  for (std::size_t offset = 0; offset < values.size(); ++offset) {
    values[offset] = combine(left.values()[left_index.source_offset(offset)],
                             right.values()[right_index.source_offset(offset)]);
  }
  return result;
}
// endregion: broadcast-binary

}  // namespace

Tensor add(const TensorView& left, const TensorView& right) {
  return broadcast_binary(left, right, [](double a, double b) { return a + b; });
}

Tensor multiply(const TensorView& left, const TensorView& right) {
  return broadcast_binary(left, right, [](double a, double b) { return a * b; });
}

Tensor map_values(const TensorView& source, double (*function)(double)) {
  std::vector<double> values(source.values().begin(), source.values().end());
  for (double& value : values) value = function(value);
  return Tensor(source.shape(), std::move(values));
}

}  // namespace llm
