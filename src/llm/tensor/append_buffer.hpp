// A tensor that grows along one axis without copying what it already holds
// (chapter 37's key/value cache). Storage for `capacity` rows is allocated
// once; append() writes new rows after the committed ones; prefix() returns
// the committed rows as a SharedTensor that shares the storage.
//
// This is the one place where shared storage is written after handles to it
// exist, and it keeps the promise every SharedTensor makes (docs/data-model.md):
// a handle never sees a value change. A prefix handle's layout reaches only
// the rows committed when it was made; append() writes only rows past them.
// reset() empties the buffer; if a prefix handle is still alive then, the
// next append() takes fresh storage instead of overwriting rows that handle
// can read.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "llm/error.hpp"
#include "llm/tensor/shared_tensor.hpp"

namespace llm {

// region: append-buffer-errors
/// What an append buffer refused.
enum class AppendBufferErrorKind {
  InvalidAxis,       ///< the growing axis is not below the rank
  RowShapeMismatch,  ///< appended rows differ from the buffer's shape off the growing axis
  CapacityExceeded,  ///< the rows do not fit in the remaining capacity
};

/// The offending values of an AppendBufferError.
struct AppendBufferErrorEvidence {
  Shape expected{};          ///< the buffer's shape with the appended row count on its axis
  Shape actual{};            ///< the rows' shape
  std::size_t axis = 0;      ///< the growing axis
  std::size_t rank = 0;      ///< InvalidAxis: the shape's rank
  std::size_t length = 0;    ///< rows committed
  std::size_t capacity = 0;  ///< rows the storage holds
  std::size_t rows = 0;      ///< rows offered
};

/// The `append-buffer` area: each kind's stable name and message, in enum order.
struct AppendBufferErrorTraits {
  using Kind = AppendBufferErrorKind;                        ///< the area's kinds
  using Evidence = AppendBufferErrorEvidence;                ///< the offending values
  static constexpr std::string_view area = "append-buffer";  ///< Error::area()
  /// Each kind's stable name and message, in enum order.
  static constexpr std::array<ErrorKindSpec<Kind>, 3> kinds{{
      {Kind::InvalidAxis, "invalid-axis", "axis {axis} is not an axis of a rank-{rank} buffer"},
      {Kind::RowShapeMismatch, "row-shape-mismatch",
       "appended rows must have shape {expected}, got {actual}"},
      {Kind::CapacityExceeded, "capacity-exceeded",
       "{rows} more rows do not fit: {length} of {capacity} are committed"},
  }};
  /// One evidence field as the message prints it.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};
// endregion: append-buffer-errors

/// An error of an append buffer (area `append-buffer`); the buffer is unchanged.
class AppendBufferError : public KindedError<AppendBufferErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw AppendBufferError(AppendBufferErrorKind::..., {.field = value});`
  explicit AppendBufferError(AppendBufferErrorKind kind, AppendBufferErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}
};

// region: append-buffer-class
/// A fixed-capacity tensor that grows along one axis, sharing its committed
/// rows without copies. Copying a buffer shares its storage; use one owner.
class AppendBuffer {
 public:
  /// Zeroed storage of `shape`; its extent along `axis` is the capacity.
  /// @throws AppendBufferError InvalidAxis; TensorError AllocationFailed.
  static AppendBuffer create(Shape shape, std::size_t axis);

  /// Copies `rows` (the buffer's shape with any extent k along the axis) in
  /// after the committed rows: length() grows by k. Rows already committed
  /// are never written. Checks before writing; on a throw nothing changed.
  /// @throws AppendBufferError RowShapeMismatch, CapacityExceeded;
  ///         TensorError AllocationFailed (fresh storage after reset()).
  void append(const TensorView& rows);

  /// The committed rows: the buffer's shape with extent length() along the
  /// axis, a strided view sharing the storage (no copy). Its values never
  /// change, whatever is appended or reset later.
  SharedTensor prefix() const;

  /// Forgets every row: length() becomes 0. The storage is kept for the next
  /// append unless a prefix handle still reads it.
  void reset() noexcept { length_ = 0; }

  /// Rows committed.
  std::size_t length() const noexcept { return length_; }
  /// Rows the storage holds.
  std::size_t capacity() const noexcept { return storage_.shape()[axis_]; }
  /// The growing axis.
  std::size_t axis() const noexcept { return axis_; }
  /// The storage's shape (capacity along the axis).
  const Shape& shape() const noexcept { return storage_.shape(); }
  /// Whether `other` reads this buffer's current storage (tests of reuse).
  bool shares_storage_with(const SharedTensor& other) const noexcept {
    return storage_.shares_storage_with(other);
  }

 private:
  AppendBuffer(SharedTensor storage, std::size_t axis)
      : storage_(std::move(storage)), axis_(axis) {}
  SharedTensor storage_;  ///< the whole allocation, [.., capacity, ..]
  std::size_t axis_ = 0;
  std::size_t length_ = 0;
};
// endregion: append-buffer-class

}  // namespace llm
