// The tensor area's error type: one kind per fact a tensor operation checks.
// Every kind is thrown only while validating, before any output is written.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "llm/error.hpp"
#include "llm/tensor/shape.hpp"

namespace llm {

/// What went wrong in a tensor operation.
enum class TensorErrorKind {
  ShapeOverflow,       ///< the product of a shape's nonzero extents does not fit in size_t
  AllocationFailed,    ///< the element count fits in size_t, but memory cannot hold the values
  ValueCountMismatch,  ///< a value list's length differs from the shape's element count
  RankMismatch,        ///< a coordinate's (or a strides list's) rank differs from the tensor's rank
  CoordinateOutOfBounds,  ///< a coordinate component is not smaller than its extent
  OffsetOutOfBounds,      ///< a flat offset is not smaller than the element count
  ViewOutOfBounds,        ///< a strided layout reaches an offset outside its storage
  NonContiguousView,      ///< contiguous_values() of a view that is not row-major contiguous
  NonContiguousReshape,   ///< reshape of a view that is not row-major contiguous
  InvalidAxis,            ///< an axis is not smaller than the rank
  InvalidPermutation,     ///< a list of axes is not a permutation of 0..rank-1
  InvalidSlice,           ///< a slice's start exceeds its end, or its end exceeds the extent
  ShapeMismatch,          ///< two shapes that must be equal differ (a copy into a view)
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

/// An error from tensor storage, layouts, views, shape operations, matrix
/// products or probabilities. Its area() is `tensor`. Fields not used by a
/// kind are empty or zero. Taught in chapters 08-12.
class TensorError : public Error {
 public:
  TensorErrorKind kind() const noexcept { return kind_; }
  /// The shape of the offending (first) operand.
  const Shape& shape() const noexcept { return shape_; }
  /// The shape of the second operand or requested target shape.
  const Shape& other_shape() const noexcept { return other_shape_; }
  /// The offending strides (RankMismatch of a layout, ViewOutOfBounds,
  /// NonContiguousView, NonContiguousReshape).
  const Strides& strides() const noexcept { return strides_; }
  /// The offending coordinate, or the axes of an InvalidPermutation.
  const std::vector<std::size_t>& coordinate() const noexcept { return coordinate_; }
  /// The offending axis, when one is named.
  std::size_t axis() const noexcept { return axis_; }
  /// The offending position, offset, group, target index or slice start.
  std::size_t index() const noexcept { return index_; }
  /// The count or extent the operation required (or the storage size of ViewOutOfBounds).
  std::size_t expected() const noexcept { return expected_; }
  /// The count the caller supplied (or the slice end of InvalidSlice).
  std::size_t actual() const noexcept { return actual_; }
  /// The offending floating-point value (NonFiniteValue).
  double value() const noexcept { return value_; }

  static TensorError shape_overflow(Shape shape);
  static TensorError allocation_failed(Shape shape, std::size_t count);
  static TensorError value_count_mismatch(Shape shape, std::size_t expected, std::size_t actual);
  static TensorError rank_mismatch(Shape shape, std::vector<std::size_t> coordinate);
  static TensorError strides_rank_mismatch(Shape shape, Strides strides);
  static TensorError coordinate_out_of_bounds(Shape shape, std::vector<std::size_t> coordinate,
                                              std::size_t axis);
  static TensorError offset_out_of_bounds(Shape shape, std::size_t offset, std::size_t count);
  static TensorError view_out_of_bounds(Shape shape, Strides strides, std::size_t offset,
                                        std::size_t storage_size);
  static TensorError non_contiguous_view(Shape shape, Strides strides);
  static TensorError non_contiguous_reshape(Shape shape, Strides strides, Shape other_shape);
  static TensorError invalid_axis(Shape shape, std::size_t axis);
  static TensorError invalid_permutation(Shape shape, std::vector<std::size_t> axes);
  static TensorError invalid_slice(Shape shape, std::size_t axis, std::size_t start,
                                   std::size_t end);
  static TensorError shape_mismatch(Shape shape, Shape other_shape);
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
  Strides strides_;
  std::vector<std::size_t> coordinate_;
  std::size_t axis_ = 0;
  std::size_t index_ = 0;
  std::size_t expected_ = 0;
  std::size_t actual_ = 0;
  double value_ = 0.0;
};

}  // namespace llm
