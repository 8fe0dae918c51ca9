// NumPy broadcasting: the shape two operands share, expanding a tensor to it,
// and the reverse reduction that sums a broadcast result back to its source.
// Taught in chapter 15.
#pragma once

#include "llm/tensor/tensor.hpp"

namespace llm {

/// The broadcast shape of `left` and `right` under NumPy rules: align the
/// shapes from the right; each pair of extents must be equal or contain a 1,
/// and the result takes the larger; missing leading axes count as 1.
/// Example: [2, 1, 3] and [4, 3] broadcast to [2, 4, 3].
/// @throws TensorError IncompatibleBroadcast naming both shapes and the axis.
Shape broadcast_shapes(const Shape& left, const Shape& right);

/// Copies `source` into `target` shape by repeating it along broadcast axes.
/// Preconditions: broadcast_shapes(source.shape(), target) == target.
/// @throws TensorError IncompatibleBroadcast if `source` does not broadcast to `target`.
Tensor broadcast_to(const TensorView& source, const Shape& target);

/// Sums `source` over the axes that broadcasting added or expanded, giving a
/// tensor of shape `target`: the adjoint of broadcast_to (chapter 15's VJP).
/// Example: [2, 3] summed to [3] adds the two rows; to [2, 1] adds each row.
/// @throws TensorError IncompatibleBroadcast if `target` does not broadcast to `source.shape()`.
Tensor sum_to_shape(const TensorView& source, const Shape& target);

}  // namespace llm
