// Owned row-major tensors and borrowed strided views of any storage.
//
// Three types share one layout model (layout.hpp):
//   Tensor             owns a row-major contiguous block of doubles; its
//                      values can be changed in place (chapter 08);
//   TensorView         borrows storage it does not own and reads it through a
//                      Layout: shape, strides, base offset (chapter 09);
//   MutableTensorView  the same, writing into caller storage (a slice of a
//                      preallocated buffer, chapter 37).
// A view is checked when it is made: every offset its layout reaches lies
// inside the storage it borrows. It stays valid while that storage lives
// unchanged in size; it never owns, copies or frees anything. Shared,
// immutable storage that many views can own together is SharedTensor
// (shared_tensor.hpp). The shape legend is in shape.hpp.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "llm/error.hpp"
#include "llm/tensor/layout.hpp"
#include "llm/tensor/shape.hpp"
#include "llm/tensor/tensor_error.hpp"

namespace llm {

class TensorView;
class MutableTensorView;
class SharedTensor;

// region: tensor-class
/// An owned, row-major block of doubles with a shape.
///
/// Values may be any double, including NaN and infinities; operations that
/// need finiteness check it themselves. Copying a Tensor copies its values.
/// Taught in chapter 08.
class Tensor {
 public:
  /// A rank-zero tensor holding 0.0.
  Tensor();

  /// Takes ownership of `values`, laid out row-major in `shape`.
  /// @throws TensorError ShapeOverflow if the shape's element count overflows.
  /// @throws TensorError ValueCountMismatch if `values.size()` differs from it.
  Tensor(Shape shape, std::vector<double> values);

  /// A tensor of `shape` filled with zeros.
  /// @throws TensorError ShapeOverflow if the shape's element count overflows.
  /// @throws TensorError AllocationFailed if the count fits in size_t but
  ///         memory cannot hold that many doubles (never std::bad_alloc).
  static Tensor zeros(Shape shape);

  /// A tensor of `shape` with every element `value`.
  /// @throws TensorError ShapeOverflow or AllocationFailed as zeros().
  static Tensor filled(Shape shape, double value);

  /// A rank-zero tensor holding `value`.
  static Tensor scalar(double value);

  /// A deep copy of shape and values.
  Tensor(const Tensor&) = default;
  /// Takes the other tensor's values, leaving it empty.
  Tensor(Tensor&&) noexcept = default;
  /// A deep copy of shape and values.
  Tensor& operator=(const Tensor&) = default;
  /// Takes the other tensor's values, leaving it empty.
  Tensor& operator=(Tensor&&) noexcept = default;
  /// Hands a large value buffer to this thread's reuse cache (value_pool.hpp).
  ~Tensor();

  /// The extents, outermost axis first.
  const Shape& shape() const noexcept { return shape_; }
  /// Number of axes.
  std::size_t rank() const noexcept { return shape_.size(); }
  /// Number of elements.
  std::size_t size() const noexcept { return values_.size(); }
  /// The row-major strides of shape() (chapter 08 prints them).
  Strides strides() const { return row_major_strides(shape_); }

  /// The values in row-major order (a Tensor is always contiguous).
  std::span<const double> values() const noexcept { return values_; }
  /// The values in row-major order, writable; the shape cannot change.
  std::span<double> mutable_values() noexcept { return values_; }

  /// The value at `coordinate`.
  /// @throws TensorError RankMismatch or CoordinateOutOfBounds.
  double at(std::span<const std::size_t> coordinate) const;
  /// Writes `value` at `coordinate` (chapter 08's in-place update).
  /// @throws TensorError RankMismatch or CoordinateOutOfBounds.
  void set(std::span<const std::size_t> coordinate, double value);

  /// A read-only row-major view; valid while this tensor lives unchanged in shape.
  TensorView view() const noexcept;
  /// A writable row-major view; valid while this tensor lives unchanged in shape.
  MutableTensorView mutable_view() noexcept;
  /// Implicit read-only view, so a kernel taking `const TensorView&` accepts a
  /// tensor (a temporary one too: it lives until the kernel returns).
  operator TensorView() const noexcept;  // NOLINT(google-explicit-constructor)

 private:
  friend class SharedTensor;  // moves the values into shared storage without a copy

  Shape shape_;
  std::vector<double> values_;
};
// endregion: tensor-class

/// `count` doubles, zero-initialized, for a tensor of `shape`.
/// @throws TensorError AllocationFailed naming `shape` instead of
///         std::bad_alloc or std::length_error.
std::vector<double> allocate_values(const Shape& shape, std::size_t count);

// region: tensor-view-class
/// A read-only, borrowed, strided window on storage: storage + Layout.
///
/// Element c of the view is storage[offset + sum_i c[i] * strides[i]].
/// Making a view checks that every offset its layout reaches is inside the
/// storage, so reading any coordinate afterwards cannot leave it. Views are
/// cheap to copy (no allocation up to rank kInlineRank), never own their
/// storage, and must not outlive it. transpose, permute, slice, reshape and
/// broadcast_to return new views of the same storage in O(rank); only
/// materialize() copies. Taught in chapter 09.
class TensorView {
 public:
  /// Views `values` row-major as `shape` (offset 0).
  /// @throws TensorError ShapeOverflow, or ValueCountMismatch if
  ///         `values.size()` differs from the element count.
  TensorView(std::span<const double> values, Shape shape);

  /// Views `storage` through `layout`.
  /// @throws TensorError ViewOutOfBounds if an element's offset is not below
  ///         `storage.size()` (an empty layout reaches no offset and always fits).
  TensorView(std::span<const double> storage, Layout layout);

  // region: tensor-view-accessors
  /// Shape, strides and base offset together.
  const Layout& layout() const noexcept { return layout_; }
  /// The extents, outermost axis first.
  const Shape& shape() const noexcept { return layout_.shape(); }
  /// One stride per axis, in elements of the storage.
  const Strides& strides() const noexcept { return layout_.strides(); }
  /// Storage offset of the first element (chapter 09 calls it the base).
  std::size_t offset() const noexcept { return layout_.offset(); }
  /// Number of axes.
  std::size_t rank() const noexcept { return layout_.rank(); }
  /// Number of elements.
  std::size_t size() const noexcept { return layout_.size(); }
  /// The whole borrowed storage, including values this view does not reach.
  std::span<const double> storage() const noexcept { return storage_; }
  /// Whether the elements are size() consecutive values in row-major order.
  bool is_contiguous() const noexcept { return layout_.is_contiguous(); }
  /// Whether both views read the same storage block (their layouts may differ).
  bool shares_storage_with(const TensorView& other) const noexcept {
    return storage_.data() == other.storage_.data();
  }
  // endregion: tensor-view-accessors

  /// The elements in row-major order as one span, for kernels that need a
  /// flat block. Only a contiguous view has one.
  /// @throws TensorError NonContiguousView naming the shape and strides.
  std::span<const double> contiguous_values() const;

  /// The value at `coordinate`.
  /// @throws TensorError RankMismatch or CoordinateOutOfBounds.
  double at(std::span<const std::size_t> coordinate) const;
  /// Storage offset of `coordinate`; see Layout::offset_of.
  std::size_t offset_of(std::span<const std::size_t> coordinate) const;

  /// See Layout::transpose. @throws TensorError InvalidAxis.
  TensorView transpose(std::size_t axis_a, std::size_t axis_b) const;
  /// See Layout::matrix_transpose. @throws TensorError InvalidAxis.
  TensorView matrix_transpose() const;
  /// See Layout::permute. @throws TensorError InvalidPermutation.
  TensorView permute(const Axes& axes) const;
  /// See Layout::slice. @throws TensorError InvalidAxis or InvalidSlice.
  TensorView slice(std::size_t axis, std::size_t start, std::size_t end) const;
  /// See Layout::reshape: free for a contiguous view, an error otherwise.
  /// @throws TensorError ShapeOverflow, ReshapeCountMismatch, NonContiguousReshape.
  TensorView reshape(const Shape& shape) const;
  /// See Layout::broadcast_to: stride 0 along repeated axes, no copy.
  /// @throws TensorError IncompatibleBroadcast or ShapeOverflow.
  TensorView broadcast_to(const Shape& shape) const;

  /// An owned row-major copy of the viewed elements (the only copying member).
  /// @throws TensorError AllocationFailed if memory cannot hold the copy.
  Tensor materialize() const;

 private:
  std::span<const double> storage_;
  Layout layout_;
};
// endregion: tensor-view-class

/// A writable, borrowed, strided window on caller storage: the writing
/// counterpart of TensorView (same layout rules and checks). Writing through
/// a view whose layout repeats an element (stride 0) writes that element
/// once per repetition; the last write wins. Used to fill a slice of a
/// preallocated buffer in place (chapter 37's cache).
class MutableTensorView {
 public:
  /// Views `values` row-major as `shape`.
  /// @throws TensorError ShapeOverflow or ValueCountMismatch as TensorView.
  MutableTensorView(std::span<double> values, Shape shape);
  /// Views `storage` through `layout`.
  /// @throws TensorError ViewOutOfBounds as TensorView.
  MutableTensorView(std::span<double> storage, Layout layout);

  /// Shape, strides and base offset together.
  const Layout& layout() const noexcept { return layout_; }
  /// The extents, outermost axis first.
  const Shape& shape() const noexcept { return layout_.shape(); }
  /// One stride per axis, in elements of the storage.
  const Strides& strides() const noexcept { return layout_.strides(); }
  /// Storage offset of the first element.
  std::size_t offset() const noexcept { return layout_.offset(); }
  /// Number of axes.
  std::size_t rank() const noexcept { return layout_.rank(); }
  /// Number of elements.
  std::size_t size() const noexcept { return layout_.size(); }
  /// Whether the elements are size() consecutive values in row-major order.
  bool is_contiguous() const noexcept { return layout_.is_contiguous(); }

  /// The same window, read-only.
  TensorView view() const noexcept;
  /// See TensorView::at. @throws TensorError RankMismatch or CoordinateOutOfBounds.
  double at(std::span<const std::size_t> coordinate) const;
  /// Writes `value` at `coordinate`.
  /// @throws TensorError RankMismatch or CoordinateOutOfBounds.
  void set(std::span<const std::size_t> coordinate, double value);
  /// Writes `value` into every element.
  void fill(double value) noexcept;
  /// Copies `source` element by element into this window, in row-major
  /// order. When the two overlap in storage, the source is copied first, so
  /// the result is as if every value was read before any was written.
  /// @throws TensorError ShapeMismatch (shape() is this shape) if the shapes
  ///         differ, or AllocationFailed for the overlap copy; nothing is written then.
  void copy_from(const TensorView& source);

  /// See TensorView::transpose. @throws TensorError InvalidAxis.
  MutableTensorView transpose(std::size_t axis_a, std::size_t axis_b) const;
  /// See TensorView::permute. @throws TensorError InvalidPermutation.
  MutableTensorView permute(const Axes& axes) const;
  /// See TensorView::slice. @throws TensorError InvalidAxis or InvalidSlice.
  MutableTensorView slice(std::size_t axis, std::size_t start, std::size_t end) const;
  /// See TensorView::reshape.
  /// @throws TensorError ShapeOverflow, ReshapeCountMismatch, NonContiguousReshape.
  MutableTensorView reshape(const Shape& shape) const;

 private:
  std::span<double> storage_;
  Layout layout_;
};

}  // namespace llm
