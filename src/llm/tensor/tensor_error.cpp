// Messages and evidence of the tensor area's typed errors.
#include "llm/tensor/tensor_error.hpp"

#include <utility>

#include "llm/format.hpp"

namespace llm {

std::string shape_text(std::span<const std::size_t> extents) {
  return format_list(extents);
}

std::string_view tensor_error_kind_name(TensorErrorKind kind) {
  switch (kind) {
    case TensorErrorKind::ShapeOverflow:
      return "shape-overflow";
    case TensorErrorKind::AllocationFailed:
      return "allocation-failed";
    case TensorErrorKind::ValueCountMismatch:
      return "value-count-mismatch";
    case TensorErrorKind::RankMismatch:
      return "rank-mismatch";
    case TensorErrorKind::CoordinateOutOfBounds:
      return "coordinate-out-of-bounds";
    case TensorErrorKind::OffsetOutOfBounds:
      return "offset-out-of-bounds";
    case TensorErrorKind::ViewOutOfBounds:
      return "view-out-of-bounds";
    case TensorErrorKind::NonContiguousView:
      return "non-contiguous-view";
    case TensorErrorKind::NonContiguousReshape:
      return "non-contiguous-reshape";
    case TensorErrorKind::InvalidAxis:
      return "invalid-axis";
    case TensorErrorKind::InvalidPermutation:
      return "invalid-permutation";
    case TensorErrorKind::InvalidSlice:
      return "invalid-slice";
    case TensorErrorKind::ShapeMismatch:
      return "shape-mismatch";
    case TensorErrorKind::EmptyAxis:
      return "empty-axis";
    case TensorErrorKind::IncompatibleBroadcast:
      return "incompatible-broadcast";
    case TensorErrorKind::ReshapeCountMismatch:
      return "reshape-count-mismatch";
    case TensorErrorKind::MatMulRank:
      return "matmul-rank";
    case TensorErrorKind::MatMulInnerMismatch:
      return "matmul-inner-mismatch";
    case TensorErrorKind::TargetCountMismatch:
      return "target-count-mismatch";
    case TensorErrorKind::EmptyTargets:
      return "empty-targets";
    case TensorErrorKind::TargetOutOfRange:
      return "target-out-of-range";
    case TensorErrorKind::NonFiniteValue:
      return "non-finite-value";
  }
  return "unknown";
}

TensorError::TensorError(TensorErrorKind kind, const std::string& message)
    : Error("tensor", tensor_error_kind_name(kind), message), kind_(kind) {}

TensorError TensorError::shape_overflow(Shape shape) {
  TensorError error(TensorErrorKind::ShapeOverflow, "tensor shape " + shape_text(shape) +
                                                        " has more elements than size_t can count");
  error.shape_ = std::move(shape);
  return error;
}

TensorError TensorError::allocation_failed(Shape shape, std::size_t count) {
  TensorError error(TensorErrorKind::AllocationFailed, "tensor shape " + shape_text(shape) +
                                                           " needs " + std::to_string(count) +
                                                           " values, more than memory can hold");
  error.shape_ = std::move(shape);
  error.expected_ = count;
  return error;
}

TensorError TensorError::value_count_mismatch(Shape shape, std::size_t expected,
                                              std::size_t actual) {
  TensorError error(TensorErrorKind::ValueCountMismatch,
                    "tensor shape " + shape_text(shape) + " needs " + std::to_string(expected) +
                        " values, got " + std::to_string(actual));
  error.shape_ = std::move(shape);
  error.expected_ = expected;
  error.actual_ = actual;
  return error;
}

TensorError TensorError::rank_mismatch(Shape shape, std::vector<std::size_t> coordinate) {
  TensorError error(TensorErrorKind::RankMismatch,
                    "coordinate " + shape_text(coordinate) + " has rank " +
                        std::to_string(coordinate.size()) + " but tensor shape " +
                        shape_text(shape) + " has rank " + std::to_string(shape.size()));
  error.shape_ = std::move(shape);
  error.coordinate_ = std::move(coordinate);
  return error;
}

TensorError TensorError::strides_rank_mismatch(Shape shape, Strides strides) {
  TensorError error(TensorErrorKind::RankMismatch,
                    "strides " + shape_text(strides) + " have rank " +
                        std::to_string(strides.size()) + " but shape " + shape_text(shape) +
                        " has rank " + std::to_string(shape.size()));
  error.shape_ = std::move(shape);
  error.strides_ = std::move(strides);
  return error;
}

TensorError TensorError::coordinate_out_of_bounds(Shape shape, std::vector<std::size_t> coordinate,
                                                  std::size_t axis) {
  TensorError error(TensorErrorKind::CoordinateOutOfBounds,
                    "coordinate " + shape_text(coordinate) + " is out of bounds for shape " +
                        shape_text(shape) + " at axis " + std::to_string(axis) + " (" +
                        std::to_string(coordinate[axis]) + " >= " + std::to_string(shape[axis]) +
                        ")");
  error.shape_ = std::move(shape);
  error.coordinate_ = std::move(coordinate);
  error.axis_ = axis;
  return error;
}

TensorError TensorError::offset_out_of_bounds(Shape shape, std::size_t offset, std::size_t count) {
  TensorError error(TensorErrorKind::OffsetOutOfBounds,
                    "flat offset " + std::to_string(offset) + " is out of bounds for shape " +
                        shape_text(shape) + " with " + std::to_string(count) + " elements");
  error.shape_ = std::move(shape);
  error.index_ = offset;
  error.expected_ = count;
  return error;
}

TensorError TensorError::view_out_of_bounds(Shape shape, Strides strides, std::size_t offset,
                                            std::size_t storage_size) {
  TensorError error(TensorErrorKind::ViewOutOfBounds,
                    "a view of shape " + shape_text(shape) + " with strides " +
                        shape_text(strides) + " reaches storage offset " + std::to_string(offset) +
                        ", but the storage holds " + std::to_string(storage_size) + " values");
  error.shape_ = std::move(shape);
  error.strides_ = std::move(strides);
  error.index_ = offset;
  error.expected_ = storage_size;
  return error;
}

TensorError TensorError::non_contiguous_view(Shape shape, Strides strides) {
  TensorError error(TensorErrorKind::NonContiguousView,
                    "a view of shape " + shape_text(shape) + " with strides " +
                        shape_text(strides) +
                        " is not row-major contiguous; read it through its strides or "
                        "materialize it");
  error.shape_ = std::move(shape);
  error.strides_ = std::move(strides);
  return error;
}

TensorError TensorError::non_contiguous_reshape(Shape shape, Strides strides, Shape other_shape) {
  TensorError error(TensorErrorKind::NonContiguousReshape,
                    "cannot reshape a view of shape " + shape_text(shape) + " with strides " +
                        shape_text(strides) + " to " + shape_text(other_shape) +
                        ": it is not row-major contiguous; materialize it first");
  error.shape_ = std::move(shape);
  error.strides_ = std::move(strides);
  error.other_shape_ = std::move(other_shape);
  return error;
}

TensorError TensorError::invalid_axis(Shape shape, std::size_t axis) {
  TensorError error(TensorErrorKind::InvalidAxis,
                    "axis " + std::to_string(axis) + " is out of range for shape " +
                        shape_text(shape) + " of rank " + std::to_string(shape.size()));
  error.shape_ = std::move(shape);
  error.axis_ = axis;
  return error;
}

TensorError TensorError::invalid_permutation(Shape shape, std::vector<std::size_t> axes) {
  TensorError error(TensorErrorKind::InvalidPermutation,
                    "axes " + shape_text(axes) + " are not a permutation of the " +
                        std::to_string(shape.size()) + " axes of shape " + shape_text(shape));
  error.shape_ = std::move(shape);
  error.coordinate_ = std::move(axes);
  return error;
}

TensorError TensorError::invalid_slice(Shape shape, std::size_t axis, std::size_t start,
                                       std::size_t end) {
  const std::size_t extent = shape[axis];
  const std::string reason = start > end ? "its start is past its end"
                                         : "its end is past the extent " + std::to_string(extent);
  TensorError error(TensorErrorKind::InvalidSlice,
                    "slice " + std::to_string(start) + ".." + std::to_string(end) + " of axis " +
                        std::to_string(axis) + " of shape " + shape_text(shape) +
                        " is invalid: " + reason);
  error.shape_ = std::move(shape);
  error.axis_ = axis;
  error.index_ = start;
  error.actual_ = end;
  error.expected_ = extent;
  return error;
}

TensorError TensorError::shape_mismatch(Shape shape, Shape other_shape) {
  TensorError error(TensorErrorKind::ShapeMismatch, "shapes " + shape_text(shape) + " and " +
                                                        shape_text(other_shape) + " must be equal");
  error.shape_ = std::move(shape);
  error.other_shape_ = std::move(other_shape);
  return error;
}

TensorError TensorError::empty_axis(Shape shape, std::size_t axis) {
  TensorError error(TensorErrorKind::EmptyAxis, "axis " + std::to_string(axis) + " of shape " +
                                                    shape_text(shape) + " has extent zero");
  error.shape_ = std::move(shape);
  error.axis_ = axis;
  return error;
}

TensorError TensorError::incompatible_broadcast(Shape shape, Shape other_shape, std::size_t axis) {
  // The extent each shape has at `axis` counted from the right; a missing axis counts as 1.
  const auto extent_at = [axis](const Shape& s) {
    return axis < s.size() ? std::to_string(s[s.size() - 1 - axis]) : std::string("1 (missing)");
  };
  TensorError error(TensorErrorKind::IncompatibleBroadcast,
                    "shapes " + shape_text(shape) + " and " + shape_text(other_shape) +
                        " cannot broadcast at axis " + std::to_string(axis) +
                        " counted from the right (0 = last): extents " + extent_at(shape) +
                        " and " + extent_at(other_shape));
  error.shape_ = std::move(shape);
  error.other_shape_ = std::move(other_shape);
  error.axis_ = axis;
  return error;
}

TensorError TensorError::reshape_count_mismatch(Shape shape, Shape other_shape) {
  std::string message = "cannot reshape " + shape_text(shape) + " to " + shape_text(other_shape) +
                        ": the element counts differ";
  TensorError error(TensorErrorKind::ReshapeCountMismatch, message);
  error.shape_ = std::move(shape);
  error.other_shape_ = std::move(other_shape);
  return error;
}

TensorError TensorError::matmul_rank(Shape shape, Shape other_shape) {
  TensorError error(TensorErrorKind::MatMulRank,
                    "matrix product needs operands of rank two or more, got " + shape_text(shape) +
                        " and " + shape_text(other_shape));
  error.shape_ = std::move(shape);
  error.other_shape_ = std::move(other_shape);
  return error;
}

TensorError TensorError::matmul_inner_mismatch(Shape shape, Shape other_shape) {
  TensorError error(TensorErrorKind::MatMulInnerMismatch,
                    "matrix product " + shape_text(shape) + " times " + shape_text(other_shape) +
                        " has inner extents " + std::to_string(shape.back()) + " and " +
                        std::to_string(other_shape[other_shape.size() - 2]) + " that differ");
  error.shape_ = std::move(shape);
  error.other_shape_ = std::move(other_shape);
  return error;
}

TensorError TensorError::target_count_mismatch(std::size_t expected, std::size_t actual) {
  TensorError error(TensorErrorKind::TargetCountMismatch,
                    "the class axis has " + std::to_string(expected) + " groups but " +
                        std::to_string(actual) + " targets were given");
  error.expected_ = expected;
  error.actual_ = actual;
  return error;
}

TensorError TensorError::empty_targets() {
  return TensorError(TensorErrorKind::EmptyTargets,
                     "indexed mean NLL needs at least one target: a mean over zero targets is "
                     "undefined");
}

TensorError TensorError::target_out_of_range(std::size_t group, std::size_t target,
                                             std::size_t classes) {
  TensorError error(TensorErrorKind::TargetOutOfRange,
                    "target " + std::to_string(target) + " of group " + std::to_string(group) +
                        " is out of range for " + std::to_string(classes) + " classes");
  error.index_ = group;
  error.actual_ = target;
  error.expected_ = classes;
  return error;
}

TensorError TensorError::non_finite_value(Shape shape, std::vector<std::size_t> coordinate,
                                          double value) {
  TensorError error(TensorErrorKind::NonFiniteValue,
                    "value " + format_shortest(value) + " at coordinate " + shape_text(coordinate) +
                        " of shape " + shape_text(shape) + " is not finite");
  error.shape_ = std::move(shape);
  error.coordinate_ = std::move(coordinate);
  error.value_ = value;
  return error;
}

}  // namespace llm
