// NumPy broadcasting: the shape two operands share, and the reverse
// reduction that sums a broadcast result back to its source. Expanding one
// tensor to a broadcast shape is a layout change with stride 0 along the
// repeated axes (Layout::broadcast_to, TensorView::broadcast_to): no copy.
//
// Axes of a broadcast are aligned from the right, so the axis an
// IncompatibleBroadcast error names is counted from the right: 0 is the last
// axis, 1 the one before it. Taught in chapters 10 and 15.
#pragma once

#include "llm/tensor/tensor.hpp"

namespace llm {

// region: broadcast-rule
/// The broadcast shape of `left` and `right` under NumPy rules: align the
/// shapes from the right; each pair of extents must be equal or contain a 1,
/// and the result takes the other extent; missing leading axes count as 1.
/// Examples: [2, 1, 3] and [4, 3] give [2, 4, 3]; [] and [3] give [3];
/// [0] and [1] give [0].
/// @throws TensorError IncompatibleBroadcast naming both shapes and the first
///         failing axis counted from the right (0 is the last axis).
/// @throws TensorError ShapeOverflow if the result's element count overflows.
Shape broadcast_shapes(const Shape& left, const Shape& right);
// endregion: broadcast-rule

/// Sums `source` over the axes that broadcasting added or expanded, giving a
/// tensor of shape `target`: the adjoint of broadcasting (chapter 15's VJP),
/// so <broadcast_to(x, S), y> == <x, sum_to_shape(y, shape of x)>.
/// Example: [2, 3] summed to [3] adds the two rows; to [2, 1] adds each row.
/// Each target element adds its contributions in row-major order of the
/// source, starting from 0.0; when `target` equals the source shape the
/// values are copied unchanged. `source` may have any strides.
/// @throws TensorError IncompatibleBroadcast (shape() is the source shape,
///         other_shape() is `target`) if `target` does not broadcast to `source.shape()`.
/// @throws TensorError AllocationFailed if memory cannot hold the result.
Tensor sum_to_shape(const TensorView& source, const Shape& target);

}  // namespace llm
