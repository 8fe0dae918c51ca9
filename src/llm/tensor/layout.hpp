// Layouts: where each element of a tensor lives in its storage.
//
// A layout is a shape, one stride per axis and a base offset. The element at
// coordinate c lives at storage offset
//     offset + sum_i c[i] * strides[i].
// A row-major layout has offset 0 and strides[i] = product of shape[i+1..]
// (the last axis varies fastest). Transposing, permuting, slicing,
// broadcasting and (for contiguous layouts) reshaping only compute a new
// layout over the same storage: no value moves. Taught in chapters 08 and 09.
//
// Zero extents, one rule whatever their position: a shape is valid when the
// product of its NONZERO extents fits in size_t (NumPy applies the same rule).
// A shape with a zero extent anywhere then has no elements, every row-major
// stride is a product of extents that fits, and every operation accepts it
// and produces an empty result (a sum over an empty axis is 0.0). Only the
// operations that are undefined on an empty axis (mean, log-softmax, the
// indexed NLL's class axis) reject it, with EmptyAxis naming the axis.
// So [2, 0, 3] is valid (strides [0, 3, 1]); [0, 2^40, 2^40] is ShapeOverflow,
// exactly like [2^40, 2^40, 0] and [2^40, 2^40].
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "llm/tensor/shape.hpp"
#include "llm/tensor/tensor_error.hpp"

namespace llm {

// region: row-major-functions
/// Number of elements of `shape`: the product of its extents (1 for rank
/// zero, 0 when an extent is 0).
/// @throws TensorError ShapeOverflow if the product of the nonzero extents
///         does not fit in size_t (the zero-extent rule at the top of this header).
std::size_t element_count(const Shape& shape);

/// Row-major strides of `shape`: strides[i] is the product of shape[i+1..]
/// ([2, 3, 4] -> [12, 4, 1]; [2, 0, 3] -> [0, 3, 1]).
/// @throws TensorError ShapeOverflow as element_count.
Strides row_major_strides(const Shape& shape);

/// Flat row-major offset of `coordinate` inside `shape`.
/// @throws TensorError RankMismatch if the ranks differ.
/// @throws TensorError CoordinateOutOfBounds if a component is not below its extent.
std::size_t offset_from_coordinate(const Shape& shape, std::span<const std::size_t> coordinate);
// endregion: row-major-functions

/// Coordinate of flat row-major `offset` inside `shape`.
/// @throws TensorError OffsetOutOfBounds if `offset >= element_count(shape)`.
/// @throws TensorError ShapeOverflow if the element count does not fit in size_t.
std::vector<std::size_t> coordinate_from_offset(const Shape& shape, std::size_t offset);

// region: layout-class
/// A shape, its strides and a base offset: the map from coordinates to
/// storage offsets. Layouts are small values (no heap allocation up to rank
/// kInlineRank); every transformation returns a new layout and never touches
/// storage. A layout does not know its storage: TensorView checks that a
/// layout stays inside the storage it is paired with. Taught in chapters 08-09.
class Layout {
 public:
  /// The rank-zero layout at offset 0: one element.
  Layout() = default;

  /// The row-major layout of `shape` at offset 0.
  /// @throws TensorError ShapeOverflow as element_count.
  explicit Layout(Shape shape);

  /// An explicit strided layout. Any strides are accepted, including 0
  /// (repetition); whether the layout fits a storage is checked by TensorView.
  /// @throws TensorError RankMismatch if `strides` and `shape` differ in rank.
  /// @throws TensorError ShapeOverflow as element_count.
  Layout(Shape shape, Strides strides, std::size_t offset);

  /// The extents, outermost axis first.
  const Shape& shape() const noexcept { return shape_; }
  /// One stride per axis, in elements.
  const Strides& strides() const noexcept { return strides_; }
  /// The storage offset of the first element (coordinate all zeros).
  std::size_t offset() const noexcept { return offset_; }
  /// Number of axes.
  std::size_t rank() const noexcept { return shape_.size(); }
  /// Number of elements.
  std::size_t size() const noexcept { return size_; }

  /// Whether the elements occupy size() consecutive storage offsets in
  /// row-major order: every axis of extent above 1 has the row-major stride.
  /// An empty layout is contiguous. Such a layout can be reshaped for free.
  bool is_contiguous() const noexcept;

  /// One past the largest storage offset an element reaches (saturating at
  /// SIZE_MAX when the sum overflows); offset() when there are no elements.
  std::size_t end_offset() const noexcept;

  /// Storage offset of `coordinate`: offset + sum_i coordinate[i] * strides[i].
  /// @throws TensorError RankMismatch or CoordinateOutOfBounds.
  std::size_t offset_of(std::span<const std::size_t> coordinate) const;

  /// Axes `axis_a` and `axis_b` swapped, shape and strides alike: [2, 3]
  /// with strides [3, 1] becomes [3, 2] with strides [1, 3].
  /// @throws TensorError InvalidAxis naming the first axis not below the rank.
  Layout transpose(std::size_t axis_a, std::size_t axis_b) const;

  /// The last two axes swapped: [..., M, K] -> [..., K, M].
  /// @throws TensorError InvalidAxis naming axis 1 if the rank is below two.
  Layout matrix_transpose() const;

  /// Axis i of the result is axis `axes[i]` of this layout ([B, T, H, D]
  /// with axes [0, 2, 1, 3] gives [B, H, T, D]).
  /// @throws TensorError InvalidPermutation unless `axes` lists every axis once.
  Layout permute(const Axes& axes) const;

  /// Positions [start, end) of `axis` only: the extent becomes end - start
  /// and the offset moves by start * strides[axis]; the strides stay.
  /// @throws TensorError InvalidAxis, or InvalidSlice if start > end or end > extent.
  Layout slice(std::size_t axis, std::size_t start, std::size_t end) const;

  /// The same elements in row-major order under `shape` (equal element
  /// count). Only a contiguous layout can be reshaped without moving values.
  /// @throws TensorError ShapeOverflow for `shape`, ReshapeCountMismatch
  ///         (shape() is this shape, other_shape() is `shape`), then
  ///         NonContiguousReshape if this layout is not contiguous.
  Layout reshape(const Shape& shape) const;

  /// This layout repeated to `shape` under NumPy broadcasting, without
  /// copying: axes added on the left and axes of extent 1 that grow get stride
  /// 0, so every step along them reads the same element again
  /// ([3] with stride [1] to [2, 3] gives strides [0, 1]).
  /// @throws TensorError IncompatibleBroadcast (shape() is this shape,
  ///         other_shape() is `shape`, axis counted from the right) if this
  ///         shape does not broadcast to `shape`.
  /// @throws TensorError ShapeOverflow if `shape`'s element count overflows.
  Layout broadcast_to(const Shape& shape) const;

  /// Same shape, strides and offset.
  friend bool operator==(const Layout&, const Layout&) = default;

 private:
  Shape shape_;
  Strides strides_;
  std::size_t offset_ = 0;
  std::size_t size_ = 1;
};
// endregion: layout-class

}  // namespace llm
