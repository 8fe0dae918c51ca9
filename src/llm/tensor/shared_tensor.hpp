// Immutable tensors with shared storage: the values a tape node holds, the
// saved context a VJP keeps, and the handle TensorValue::value() returns.
//
// A SharedTensor owns a reference to an immutable block of doubles plus a
// Layout over it. Copying the handle copies the layout and adds a reference;
// no value is copied. transpose, permute, slice, reshape and broadcast_to
// return new handles on the same block in O(rank), so the structural
// operations of the tensor tape cost no copy. Nothing can change the block
// while any handle names it, so a handle can never dangle or see a value
// change under it: TensorValue::assign() installs a new block and leaves the
// old one to the handles that still name it. Taught in chapter 15; the
// storage model is in docs/data-model.md.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "llm/tensor/tensor.hpp"

namespace llm {

// region: shared-tensor-class
/// An owning, immutable, strided tensor handle: shared storage + Layout.
/// Copies share the storage. Safe to read from several threads at once
/// (the block never changes). Taught in chapter 15.
class SharedTensor {
 public:
  /// A rank-zero tensor holding 0.0.
  SharedTensor();

  /// Takes over `tensor`'s values without copying them (row-major layout).
  /// Implicit, so a kernel's Tensor result can be returned as a SharedTensor.
  SharedTensor(Tensor&& tensor);  // NOLINT(google-explicit-constructor)

  /// A copy of `tensor`'s values in new shared storage.
  /// @throws TensorError AllocationFailed if memory cannot hold the copy.
  static SharedTensor copy_of(const TensorView& tensor);

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
  /// Number of elements.
  std::size_t size() const noexcept { return layout_.size(); }
  /// Whether the elements are size() consecutive values in row-major order.
  bool is_contiguous() const noexcept { return layout_.is_contiguous(); }
  /// Whether both handles name the same storage block.
  bool shares_storage_with(const SharedTensor& other) const noexcept {
    return storage_ == other.storage_;
  }

  /// A borrowed view, valid while this handle (or another naming the same
  /// storage) lives. Deleted on a temporary handle, so a view can never
  /// outlive the handle it came from: keep the handle in a variable first.
  TensorView view() const& noexcept;
  /// Deleted: a view of a temporary handle would outlive its storage.
  TensorView view() const&& = delete;
  /// Implicit borrowed view, so a kernel taking `const TensorView&` accepts a
  /// handle; not from a temporary handle (see view()).
  operator TensorView() const& noexcept { return view(); }  // NOLINT
  /// Deleted: a view of a temporary handle would outlive its storage.
  operator TensorView() const&& = delete;

  /// The elements in row-major order as one span; see TensorView::contiguous_values.
  /// @throws TensorError NonContiguousView.
  std::span<const double> contiguous_values() const&;
  /// Deleted: the span of a temporary handle would outlive its storage.
  std::span<const double> contiguous_values() const&& = delete;

  /// The value at `coordinate`.
  /// @throws TensorError RankMismatch or CoordinateOutOfBounds.
  double at(std::span<const std::size_t> coordinate) const;

  /// An owned row-major copy.
  /// @throws TensorError AllocationFailed if memory cannot hold the copy.
  Tensor materialize() const;

  /// Axes swapped, sharing storage (Layout::transpose): O(rank), no copy.
  /// @throws TensorError InvalidAxis.
  SharedTensor transpose(std::size_t axis_a, std::size_t axis_b) const;
  /// The last two axes swapped, sharing storage (Layout::matrix_transpose).
  /// @throws TensorError InvalidAxis if the rank is below two.
  SharedTensor matrix_transpose() const;
  /// Axes reordered, sharing storage (Layout::permute).
  /// @throws TensorError InvalidPermutation.
  SharedTensor permute(const Axes& axes) const;
  /// Positions [start, end) of `axis`, sharing storage (Layout::slice).
  /// @throws TensorError InvalidAxis or InvalidSlice.
  SharedTensor slice(std::size_t axis, std::size_t start, std::size_t end) const;
  /// The same elements as `shape`, sharing storage (Layout::reshape); only a
  /// contiguous handle can be reshaped, contiguous() first otherwise.
  /// @throws TensorError ShapeOverflow, ReshapeCountMismatch, NonContiguousReshape.
  SharedTensor reshape(const Shape& shape) const;
  /// Repeated to `shape` with stride 0, sharing storage (Layout::broadcast_to).
  /// @throws TensorError IncompatibleBroadcast or ShapeOverflow.
  SharedTensor broadcast_to(const Shape& shape) const;

  /// This handle if it is contiguous, otherwise a contiguous copy in new storage.
  /// @throws TensorError AllocationFailed if the copy cannot be allocated.
  SharedTensor contiguous() const;

  /// Whether this handle is the only one naming its storage, so the tape's
  /// own reverse pass may add into it in place. Internal to the tape.
  bool is_sole_owner() const noexcept { return storage_.use_count() == 1; }
  /// The storage for in-place accumulation; only when is_sole_owner().
  /// Internal to the tape's reverse pass (tensor_backward.cpp).
  double* exclusive_storage() noexcept;

 private:
  struct Storage;
  SharedTensor(std::shared_ptr<Storage> storage, Layout layout) noexcept;

  /// AppendBuffer writes rows no handle can see yet (append_buffer.hpp).
  friend class AppendBuffer;
  /// The first value of the storage block, writable; only AppendBuffer calls it.
  double* storage_data() const noexcept;

  std::shared_ptr<Storage> storage_;
  Layout layout_;
};
// endregion: shared-tensor-class

/// Live shared storage blocks and the bytes of their values, counted over the
/// whole process (test hook for graph lifetime, docs/data-model.md).
struct StorageStatistics {
  std::size_t blocks = 0;  ///< storage blocks some SharedTensor still names
  std::size_t bytes = 0;   ///< sizeof(double) times their values
};

/// The current StorageStatistics. Exact when no other thread is creating or
/// releasing storage at the same moment.
StorageStatistics storage_statistics() noexcept;

}  // namespace llm
