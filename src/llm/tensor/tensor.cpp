// Row-major storage, coordinate/offset conversion and tensor error messages.
#include "llm/tensor/tensor.hpp"

#include <limits>
#include <utility>

#include "llm/format.hpp"

namespace llm {

std::string shape_text(const Shape& shape) { return format_list(std::span<const std::size_t>(shape)); }

std::string_view tensor_error_kind_name(TensorErrorKind kind) {
  switch (kind) {
    case TensorErrorKind::ShapeOverflow: return "shape-overflow";
    case TensorErrorKind::ValueCountMismatch: return "value-count-mismatch";
    case TensorErrorKind::RankMismatch: return "rank-mismatch";
    case TensorErrorKind::CoordinateOutOfBounds: return "coordinate-out-of-bounds";
    case TensorErrorKind::OffsetOutOfBounds: return "offset-out-of-bounds";
    case TensorErrorKind::InvalidAxis: return "invalid-axis";
    case TensorErrorKind::EmptyAxis: return "empty-axis";
    case TensorErrorKind::IncompatibleBroadcast: return "incompatible-broadcast";
    case TensorErrorKind::ReshapeCountMismatch: return "reshape-count-mismatch";
    case TensorErrorKind::MatMulRank: return "matmul-rank";
    case TensorErrorKind::MatMulInnerMismatch: return "matmul-inner-mismatch";
    case TensorErrorKind::TargetCountMismatch: return "target-count-mismatch";
    case TensorErrorKind::EmptyTargets: return "empty-targets";
    case TensorErrorKind::TargetOutOfRange: return "target-out-of-range";
    case TensorErrorKind::NonFiniteValue: return "non-finite-value";
  }
  return "unknown";
}

TensorError::TensorError(TensorErrorKind kind, const std::string& message)
    : Error(message), kind_(kind) {}

TensorError TensorError::shape_overflow(Shape shape) {
  TensorError error(TensorErrorKind::ShapeOverflow,
                    "tensor shape " + shape_text(shape) + " has more elements than size_t can count");
  error.shape_ = std::move(shape);
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

TensorError TensorError::invalid_axis(Shape shape, std::size_t axis) {
  TensorError error(TensorErrorKind::InvalidAxis,
                    "axis " + std::to_string(axis) + " is out of range for shape " +
                        shape_text(shape) + " of rank " + std::to_string(shape.size()));
  error.shape_ = std::move(shape);
  error.axis_ = axis;
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
                    "value " + format_shortest(value) + " at coordinate " +
                        shape_text(coordinate) + " of shape " + shape_text(shape) +
                        " is not finite");
  error.shape_ = std::move(shape);
  error.coordinate_ = std::move(coordinate);
  error.value_ = value;
  return error;
}

std::size_t element_count(const Shape& shape) {
  std::size_t count = 1;
  for (std::size_t extent : shape) {
    if (extent != 0 && count > std::numeric_limits<std::size_t>::max() / extent) {
      throw TensorError::shape_overflow(shape);
    }
    count *= extent;
  }
  return count;
}

std::vector<std::size_t> row_major_strides(const Shape& shape) {
  element_count(shape);  // a shape whose count overflows has no strides
  std::vector<std::size_t> strides(shape.size(), 1);
  for (std::size_t axis = shape.size(); axis-- > 1;) {
    strides[axis - 1] = strides[axis] * shape[axis];
  }
  return strides;
}

std::size_t offset_from_coordinate(const Shape& shape, std::span<const std::size_t> coordinate) {
  if (coordinate.size() != shape.size()) {
    throw TensorError::rank_mismatch(shape, {coordinate.begin(), coordinate.end()});
  }
  std::size_t offset = 0;
  for (std::size_t axis = 0; axis < shape.size(); ++axis) {
    if (coordinate[axis] >= shape[axis]) {
      throw TensorError::coordinate_out_of_bounds(shape, {coordinate.begin(), coordinate.end()},
                                                  axis);
    }
    // Horner's rule: offset = ((c0 * s1 + c1) * s2 + c2)...; stays below the count.
    offset = offset * shape[axis] + coordinate[axis];
  }
  return offset;
}

std::vector<std::size_t> coordinate_from_offset(const Shape& shape, std::size_t offset) {
  const std::size_t count = element_count(shape);
  if (offset >= count) throw TensorError::offset_out_of_bounds(shape, offset, count);
  std::vector<std::size_t> coordinate(shape.size(), 0);
  for (std::size_t axis = shape.size(); axis-- > 0;) {
    coordinate[axis] = offset % shape[axis];
    offset /= shape[axis];
  }
  return coordinate;
}

Tensor::Tensor() : values_(1, 0.0) {}

Tensor::Tensor(Shape shape, std::vector<double> values)
    : shape_(std::move(shape)), values_(std::move(values)) {
  const std::size_t expected = element_count(shape_);
  if (values_.size() != expected) {
    throw TensorError::value_count_mismatch(shape_, expected, values_.size());
  }
}

Tensor Tensor::zeros(Shape shape) {
  const std::size_t count = element_count(shape);
  return Tensor(std::move(shape), std::vector<double>(count, 0.0));
}

Tensor Tensor::scalar(double value) { return Tensor({}, {value}); }

double Tensor::at(std::span<const std::size_t> coordinate) const {
  return values_[offset_from_coordinate(shape_, coordinate)];
}

TensorView Tensor::view() const { return TensorView(values_, shape_); }

TensorView::TensorView(std::span<const double> values, Shape shape)
    : values_(values), shape_(std::move(shape)) {
  const std::size_t expected = element_count(shape_);
  if (values_.size() != expected) {
    throw TensorError::value_count_mismatch(shape_, expected, values_.size());
  }
}

double TensorView::at(std::span<const std::size_t> coordinate) const {
  return values_[offset_from_coordinate(shape_, coordinate)];
}

std::size_t TensorView::offset_of(std::span<const std::size_t> coordinate) const {
  return offset_from_coordinate(shape_, coordinate);
}

std::vector<std::size_t> TensorView::coordinate_of(std::size_t offset) const {
  return coordinate_from_offset(shape_, offset);
}

Tensor TensorView::to_tensor() const {
  return Tensor(shape_, std::vector<double>(values_.begin(), values_.end()));
}

}  // namespace llm
