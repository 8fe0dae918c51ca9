// Sums and means along one axis.
#include "llm/tensor/reduction.hpp"

namespace llm {

// region: axis-reductions
Tensor sum_axis(const TensorView& source, std::size_t axis, bool keep_dim) {
  if (axis >= source.rank()) throw TensorError::invalid_axis(source.shape(), axis);
  // Read the source as [outer, K, inner]: the axes before, the summed axis, the axes after.
  const Shape& shape = source.shape();
  const std::size_t extent = shape[axis];
  const std::size_t inner = row_major_strides(shape)[axis];
  const std::size_t outer = element_count(Shape(shape.begin(), shape.begin() + axis));

  Shape reduced = shape;
  if (keep_dim) {
    reduced[axis] = 1;
  } else {
    reduced.erase(reduced.begin() + axis);
  }
  Tensor result = Tensor::zeros(reduced);
  std::span<double> sums = result.mutable_values();
  for (std::size_t o = 0; o < outer; ++o) {
    for (std::size_t i = 0; i < inner; ++i) {
      double sum = 0.0;
      for (std::size_t k = 0; k < extent; ++k) sum += source.values()[(o * extent + k) * inner + i];
      sums[o * inner + i] = sum;
    }
  }
  return result;
}

Tensor mean_axis(const TensorView& source, std::size_t axis, bool keep_dim) {
  if (axis >= source.rank()) throw TensorError::invalid_axis(source.shape(), axis);
  if (source.shape()[axis] == 0) throw TensorError::empty_axis(source.shape(), axis);
  Tensor result = sum_axis(source, axis, keep_dim);
  const double count = static_cast<double>(source.shape()[axis]);
  for (double& value : result.mutable_values()) value /= count;
  return result;
}
// endregion: axis-reductions

}  // namespace llm
