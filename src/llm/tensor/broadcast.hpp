// NumPy broadcasting: the shape two operands share, expanding a tensor to it,
// and the reverse reduction that sums a broadcast result back to its source.
//
// Axes of a broadcast are aligned from the right, so the axis an
// IncompatibleBroadcast error names is counted from the right: 0 is the last
// axis, 1 the one before it. Taught in chapter 15.
#pragma once

#include <cstddef>
#include <vector>

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

// region: broadcast-index
/// Where a broadcast reads from: maps each row-major offset of a result of
/// shape `target` to the offset of the `source` element that fills it.
///
/// Each target axis gets a stride into the source: the source's row-major
/// stride where the source has that axis with the same extent, and 0 where the
/// axis is missing from the source or has extent 1, so stepping along it
/// reads the same element again. Used by broadcast_to, sum_to_shape, the
/// elementwise operations and the batch axes of matmul. Taught in chapter 15.
class BroadcastIndex {
 public:
  /// @throws TensorError IncompatibleBroadcast (shape() is `source`,
  ///         other_shape() is `target`) if `source` does not broadcast to `target`.
  BroadcastIndex(const Shape& source, const Shape& target);

  /// The source offset read by target offset `target_offset`.
  /// Precondition: `target_offset < element_count(target)`.
  std::size_t source_offset(std::size_t target_offset) const noexcept;

 private:
  Shape target_;
  std::vector<std::size_t> strides_;  // one per target axis; 0 where the source repeats
};
// endregion: broadcast-index

/// Copies `source` [S...] into `target` shape by repeating it along the axes
/// broadcasting adds or expands: result[c] = source[c with broadcast axes set to 0].
/// Precondition: broadcast_shapes(source.shape(), target) == target.
/// @throws TensorError IncompatibleBroadcast (shape() is the source shape,
///         other_shape() is `target`) if `source` does not broadcast to `target`.
/// @throws TensorError ShapeOverflow if `target`'s element count overflows.
Tensor broadcast_to(const TensorView& source, const Shape& target);

/// Sums `source` over the axes that broadcasting added or expanded, giving a
/// tensor of shape `target`: the adjoint of broadcast_to (chapter 15's VJP),
/// so <broadcast_to(x, S), y> == <x, sum_to_shape(y, shape of x)>.
/// Example: [2, 3] summed to [3] adds the two rows; to [2, 1] adds each row.
/// Each target element adds its contributions in increasing source offset
/// order, starting from 0.0; when `target` equals the source shape the values
/// are copied unchanged.
/// @throws TensorError IncompatibleBroadcast (shape() is the source shape,
///         other_shape() is `target`) if `target` does not broadcast to `source.shape()`.
Tensor sum_to_shape(const TensorView& source, const Shape& target);

}  // namespace llm
