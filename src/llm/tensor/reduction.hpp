// Sums and means along one axis. Taught in chapter 15.
#pragma once

#include <cstddef>

#include "llm/tensor/tensor.hpp"

namespace llm {

// region: axis-reductions
/// Sums `source` along `axis`. With `keep_dim` the axis stays with extent 1
/// ([2, 3] along 1 -> [2, 1]); without it the axis is removed ([2, 3] -> [2]).
/// Each output element adds its K values in increasing index order, starting
/// from 0.0, so an empty axis sums to zero.
/// @throws TensorError InvalidAxis if `axis >= source.rank()`.
Tensor sum_axis(const TensorView& source, std::size_t axis, bool keep_dim);

/// The arithmetic mean of `source` along `axis`, sum_axis divided by the
/// axis extent K; shapes as for sum_axis.
/// @throws TensorError InvalidAxis if `axis >= source.rank()`.
/// @throws TensorError EmptyAxis if the axis has extent zero (the mean is undefined).
Tensor mean_axis(const TensorView& source, std::size_t axis, bool keep_dim);
// endregion: axis-reductions

}  // namespace llm
