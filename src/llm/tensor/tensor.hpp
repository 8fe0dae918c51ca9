// Row-major tensor storage, read-only views and the tensor area's error type.
//
// Shape legend used in every docstring of src/llm/tensor and src/llm/autograd:
//   B  batch             T  sequence position (token)
//   C  channels/features V  vocabulary (classes of a probability axis)
//   R  table rows        D  table width (features per row)
//   M, K, N  the rows, inner extent and columns of a matrix product
// A shape is written `[B, T, V]`; `[]` is a rank-zero (scalar) tensor with one
// element. Storage is row-major: the last axis varies fastest, and the flat
// offset of coordinate c is sum_i c[i] * stride[i] with stride[i] the product
// of shape[i+1..]. Taught in chapter 13 and used by chapters 13-16.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "llm/error.hpp"

namespace llm {

/// Extents of a tensor, outermost axis first. `{}` is rank zero.
using Shape = std::vector<std::size_t>;

/// What went wrong in a tensor operation; every kind is thrown only while
/// validating, before any output is written.
enum class TensorErrorKind {
  ShapeOverflow,          ///< the element count of a shape does not fit in size_t
  ValueCountMismatch,     ///< a value list's length differs from the shape's element count
  RankMismatch,           ///< a coordinate's rank differs from the tensor's rank
  CoordinateOutOfBounds,  ///< a coordinate component is not smaller than its extent
  OffsetOutOfBounds,      ///< a flat offset is not smaller than the element count
  InvalidAxis,            ///< an axis is not smaller than the rank
  EmptyAxis,              ///< a mean or probability axis has extent zero
  IncompatibleBroadcast,  ///< two shapes do not broadcast under NumPy rules
  ReshapeCountMismatch,   ///< a reshape would change the element count
  MatMulRank,             ///< a matrix-product operand has rank below two
  MatMulInnerMismatch,    ///< the inner extents K of a matrix product differ
  TargetCountMismatch,    ///< target count differs from the number of class-axis groups
  EmptyTargets,           ///< a mean over zero targets is undefined
  TargetOutOfRange,       ///< a target class is not smaller than the class extent
  NonFiniteValue,         ///< an input value is NaN or infinite where finiteness is required
};

/// Stable kebab-case name of a kind, e.g. `target-out-of-range`.
std::string_view tensor_error_kind_name(TensorErrorKind kind);

/// An error from tensor storage, views, shape operations, matrix products or
/// probabilities. Fields not used by a kind are empty or zero.
class TensorError : public Error {
 public:
  TensorErrorKind kind() const noexcept { return kind_; }
  /// The shape of the offending (first) operand.
  const Shape& shape() const noexcept { return shape_; }
  /// The shape of the second operand or requested target shape.
  const Shape& other_shape() const noexcept { return other_shape_; }
  /// The offending coordinate, when one is named.
  const std::vector<std::size_t>& coordinate() const noexcept { return coordinate_; }
  /// The offending axis, when one is named.
  std::size_t axis() const noexcept { return axis_; }
  /// The offending position, offset, group or target index.
  std::size_t index() const noexcept { return index_; }
  /// The count the operation required.
  std::size_t expected() const noexcept { return expected_; }
  /// The count the caller supplied.
  std::size_t actual() const noexcept { return actual_; }
  /// The offending floating-point value (NonFiniteValue).
  double value() const noexcept { return value_; }

  static TensorError shape_overflow(Shape shape);
  static TensorError value_count_mismatch(Shape shape, std::size_t expected, std::size_t actual);
  static TensorError rank_mismatch(Shape shape, std::vector<std::size_t> coordinate);
  static TensorError coordinate_out_of_bounds(Shape shape, std::vector<std::size_t> coordinate,
                                              std::size_t axis);
  static TensorError offset_out_of_bounds(Shape shape, std::size_t offset, std::size_t count);
  static TensorError invalid_axis(Shape shape, std::size_t axis);
  static TensorError empty_axis(Shape shape, std::size_t axis);
  static TensorError incompatible_broadcast(Shape shape, Shape other_shape, std::size_t axis);
  static TensorError reshape_count_mismatch(Shape shape, Shape other_shape);
  static TensorError matmul_rank(Shape shape, Shape other_shape);
  static TensorError matmul_inner_mismatch(Shape shape, Shape other_shape);
  static TensorError target_count_mismatch(std::size_t expected, std::size_t actual);
  static TensorError empty_targets();
  static TensorError target_out_of_range(std::size_t group, std::size_t target,
                                         std::size_t classes);
  static TensorError non_finite_value(Shape shape, std::vector<std::size_t> coordinate,
                                      double value);

 private:
  TensorError(TensorErrorKind kind, const std::string& message);

  TensorErrorKind kind_;
  Shape shape_;
  Shape other_shape_;
  std::vector<std::size_t> coordinate_;
  std::size_t axis_ = 0;
  std::size_t index_ = 0;
  std::size_t expected_ = 0;
  std::size_t actual_ = 0;
  double value_ = 0.0;
};

/// Number of elements of `shape` (1 for rank zero).
/// @throws TensorError ShapeOverflow if the product does not fit in size_t.
std::size_t element_count(const Shape& shape);

/// Row-major strides of `shape`: stride[i] is the product of shape[i+1..].
/// @throws TensorError ShapeOverflow if the element count does not fit in size_t.
std::vector<std::size_t> row_major_strides(const Shape& shape);

/// Flat row-major offset of `coordinate` inside `shape`.
/// @throws TensorError RankMismatch if the ranks differ.
/// @throws TensorError CoordinateOutOfBounds if a component is not below its extent.
std::size_t offset_from_coordinate(const Shape& shape, std::span<const std::size_t> coordinate);

/// Coordinate of flat row-major `offset` inside `shape`.
/// @throws TensorError OffsetOutOfBounds if `offset >= element_count(shape)`.
/// @throws TensorError ShapeOverflow if the element count does not fit in size_t.
std::vector<std::size_t> coordinate_from_offset(const Shape& shape, std::size_t offset);

class TensorView;

/// An owned, row-major block of doubles with a shape.
///
/// Values may be any double, including NaN and infinities; operations that
/// need finiteness check it themselves. Copying a Tensor copies its values.
/// Taught in chapter 13.
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
  static Tensor zeros(Shape shape);

  /// A rank-zero tensor holding `value`.
  static Tensor scalar(double value);

  const Shape& shape() const noexcept { return shape_; }
  std::size_t rank() const noexcept { return shape_.size(); }
  /// Number of elements.
  std::size_t size() const noexcept { return values_.size(); }

  /// The values in row-major order.
  std::span<const double> values() const noexcept { return values_; }
  /// The values in row-major order, writable; the shape cannot change.
  std::span<double> mutable_values() noexcept { return values_; }

  /// The value at `coordinate`.
  /// @throws TensorError RankMismatch or CoordinateOutOfBounds.
  double at(std::span<const std::size_t> coordinate) const;

  /// A read-only view of this tensor; valid while the tensor lives unchanged in shape.
  /// @throws std::bad_alloc if the view's copy of the shape cannot be allocated.
  TensorView view() const;

 private:
  Shape shape_;
  std::vector<double> values_;
};

/// A read-only, non-owning window on row-major values with a shape.
///
/// Views are cheap to copy and never outlive the storage they point into.
/// Taught in chapter 13.
class TensorView {
 public:
  /// Views `values` as `shape`.
  /// @throws TensorError ShapeOverflow or ValueCountMismatch as for Tensor.
  TensorView(std::span<const double> values, Shape shape);

  const Shape& shape() const noexcept { return shape_; }
  std::size_t rank() const noexcept { return shape_.size(); }
  std::size_t size() const noexcept { return values_.size(); }
  std::span<const double> values() const noexcept { return values_; }

  /// The value at `coordinate`.
  /// @throws TensorError RankMismatch or CoordinateOutOfBounds.
  double at(std::span<const std::size_t> coordinate) const;

  /// Flat offset of `coordinate`; see offset_from_coordinate.
  std::size_t offset_of(std::span<const std::size_t> coordinate) const;

  /// Coordinate of flat `offset`; see coordinate_from_offset.
  std::vector<std::size_t> coordinate_of(std::size_t offset) const;

  /// An owned copy of the viewed values.
  Tensor to_tensor() const;

 private:
  std::span<const double> values_;
  Shape shape_;
};

/// Text of a shape as `[2, 3]`; `[]` for rank zero.
std::string shape_text(const Shape& shape);

}  // namespace llm
