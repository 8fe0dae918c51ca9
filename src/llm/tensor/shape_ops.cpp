// Reshape and transpose: operations that move values without changing them.
#include "llm/tensor/shape_ops.hpp"

#include <utility>
#include <vector>

namespace llm {

// region: reshape
Tensor reshape(const TensorView& source, const Shape& shape) {
  if (element_count(shape) != source.size()) {
    throw TensorError::reshape_count_mismatch(source.shape(), shape);
  }
  return Tensor(shape, std::vector<double>(source.values().begin(), source.values().end()));
}
// endregion: reshape

// region: transpose
Tensor transpose(const TensorView& source, std::size_t axis_a, std::size_t axis_b) {
  for (std::size_t axis : {axis_a, axis_b}) {
    if (axis >= source.rank()) throw TensorError::invalid_axis(source.shape(), axis);
  }
  Shape shape = source.shape();
  std::swap(shape[axis_a], shape[axis_b]);
  Tensor result = Tensor::zeros(shape);
  std::span<double> values = result.mutable_values();
  for (std::size_t offset = 0; offset < values.size(); ++offset) {
    // The output coordinate with its two components swapped is the source coordinate.
    std::vector<std::size_t> coordinate = coordinate_from_offset(shape, offset);
    std::swap(coordinate[axis_a], coordinate[axis_b]);
    values[offset] = source.at(coordinate);
  }
  return result;
}
// endregion: transpose

Tensor matrix_transpose(const TensorView& source) {
  if (source.rank() < 2) throw TensorError::invalid_axis(source.shape(), 1);
  return transpose(source, source.rank() - 2, source.rank() - 1);
}

}  // namespace llm
