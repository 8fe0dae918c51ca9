// Sums, means and maxima along one axis.
#include "llm/tensor/reduction.hpp"

#include <cmath>

#include "llm/tensor/kernel_output.hpp"
#include "llm/tensor/strided_walk.hpp"

namespace llm {

// region: reduced-shape
Shape reduced_shape(const Shape& shape, std::size_t axis, KeepDim keep_dim) {
  if (axis >= shape.size())
    throw TensorError(TensorErrorKind::InvalidAxis, {.shape = shape, .axis = axis});
  Shape reduced = shape;
  if (keep_dim == KeepDim::Yes) {
    reduced[axis] = 1;
  } else {
    reduced.erase(reduced.begin() + axis);
  }
  return reduced;
}
// endregion: reduced-shape

// region: axis-reductions
// region: sum-axis
Tensor sum_axis(const TensorView& source, std::size_t axis, KeepDim keep_dim) {
  Tensor result = kernel_output(reduced_shape(source.shape(), axis, keep_dim));
  // Walk the source with the summed axis collapsed to extent 1; each visited
  // element starts one output element's sum along the axis.
  Shape kept = source.shape();
  kept[axis] = 1;
  const std::size_t extent = source.shape()[axis];
  const std::size_t step = source.strides()[axis];
  double* sums = result.mutable_values().data();
  const double* values = source.storage().data();
  const Strides dense = row_major_strides(kept);
  for_each_offset<2>(kept, {dense, source.strides()}, {0, source.offset()},
                     [&](const std::array<std::size_t, 2>& at) {
                       double sum = 0.0;
                       for (std::size_t k = 0; k < extent; ++k) sum += values[at[1] + k * step];
                       sums[at[0]] = sum;
                     });
  return result;
}
// endregion: sum-axis

// region: mean-axis
Tensor mean_axis(const TensorView& source, std::size_t axis, KeepDim keep_dim) {
  // region: mean-axis-validation
  if (axis >= source.rank())
    throw TensorError(TensorErrorKind::InvalidAxis, {.shape = source.shape(), .axis = axis});
  if (source.shape()[axis] == 0)
    throw TensorError(TensorErrorKind::EmptyAxis, {.shape = source.shape(), .axis = axis});
  // endregion: mean-axis-validation
  Tensor result = sum_axis(source, axis, keep_dim);
  const double count = static_cast<double>(source.shape()[axis]);
  for (double& value : result.mutable_values()) value /= count;
  return result;
}
// endregion: mean-axis

// region: max-axis
Tensor max_axis(const TensorView& source, std::size_t axis, KeepDim keep_dim) {
  // region: max-axis-validation
  if (axis >= source.rank())
    throw TensorError(TensorErrorKind::InvalidAxis, {.shape = source.shape(), .axis = axis});
  if (source.shape()[axis] == 0)
    throw TensorError(TensorErrorKind::EmptyAxis, {.shape = source.shape(), .axis = axis});
  // endregion: max-axis-validation
  Tensor result = kernel_output(reduced_shape(source.shape(), axis, keep_dim));
  Shape kept = source.shape();
  kept[axis] = 1;
  const std::size_t extent = source.shape()[axis];
  const std::size_t step = source.strides()[axis];
  double* maxima = result.mutable_values().data();
  const double* values = source.storage().data();
  const Strides dense = row_major_strides(kept);
  for_each_offset<2>(kept, {dense, source.strides()}, {0, source.offset()},
                     [&](const std::array<std::size_t, 2>& at) {
                       double largest = values[at[1]];
                       for (std::size_t k = 1; k < extent && !std::isnan(largest); ++k) {
                         const double value = values[at[1] + k * step];
                         if (value > largest || std::isnan(value)) largest = value;
                       }
                       maxima[at[0]] = largest;
                     });
  return result;
}
// endregion: max-axis
// endregion: axis-reductions

}  // namespace llm
