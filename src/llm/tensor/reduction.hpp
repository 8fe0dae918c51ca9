// Sums and means along one axis. Taught in chapter 15.
#pragma once

#include <cstddef>

#include "llm/tensor/tensor.hpp"

namespace llm {

/// Sums `source` along `axis`. With `keep_dim` the axis stays with extent 1
/// ([2, 3] along 1 -> [2, 1]); without it the axis is removed ([2, 3] -> [2]).
/// An empty axis sums to zero.
/// @throws TensorError InvalidAxis if `axis >= source.rank()`.
Tensor sum_axis(const TensorView& source, std::size_t axis, bool keep_dim);

/// The arithmetic mean of `source` along `axis`; shapes as for sum_axis.
/// @throws TensorError InvalidAxis if `axis >= source.rank()`.
/// @throws TensorError EmptyAxis if the axis has extent zero (the mean is undefined).
Tensor mean_axis(const TensorView& source, std::size_t axis, bool keep_dim);

}  // namespace llm
