// Sums, means and maxima along one axis. Taught in chapters 10 and 15.
#pragma once

#include <cstddef>

#include "llm/tensor/tensor.hpp"

namespace llm {

/// Whether a reduction keeps the reduced axis with extent 1 (`Yes`: [2, 3]
/// along 1 -> [2, 1]) or removes it (`No`: [2, 3] -> [2]).
enum class KeepDim {
  No,   ///< remove the reduced axis
  Yes,  ///< keep it, with extent 1
};

// region: axis-reductions
/// Sums `source` (any strides) along `axis`; `keep_dim` says whether the
/// axis stays with extent 1 or is removed. Each output element adds its K
/// values in increasing index order, starting from 0.0, so an empty axis
/// sums to zero.
/// @throws TensorError InvalidAxis if `axis >= source.rank()`.
/// @throws TensorError AllocationFailed if memory cannot hold the result.
Tensor sum_axis(const TensorView& source, std::size_t axis, KeepDim keep_dim);

/// The arithmetic mean of `source` along `axis`, sum_axis divided by the
/// axis extent K; shapes as for sum_axis.
/// @throws TensorError InvalidAxis if `axis >= source.rank()`.
/// @throws TensorError EmptyAxis if the axis has extent zero (the mean is undefined).
/// @throws TensorError AllocationFailed if memory cannot hold the result.
Tensor mean_axis(const TensorView& source, std::size_t axis, KeepDim keep_dim);
/// The largest value of `source` along `axis`; shapes as for sum_axis. A
/// line holding a NaN gives NaN (the first NaN met stays). Used by chapter 10
/// and by the stable softmax of chapter 12 (the shift m).
/// @throws TensorError InvalidAxis if `axis >= source.rank()`.
/// @throws TensorError EmptyAxis if the axis has extent zero (no largest value).
/// @throws TensorError AllocationFailed if memory cannot hold the result.
Tensor max_axis(const TensorView& source, std::size_t axis, KeepDim keep_dim);
// endregion: axis-reductions

/// The shape sum_axis and mean_axis return: `shape` with `axis` set to 1
/// (KeepDim::Yes) or removed (KeepDim::No).
/// @throws TensorError InvalidAxis if `axis >= shape.size()`.
Shape reduced_shape(const Shape& shape, std::size_t axis, KeepDim keep_dim);

}  // namespace llm
