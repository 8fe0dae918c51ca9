// The evidence of the tensor area's errors as their messages print it.
#include "llm/tensor/tensor_error.hpp"

#include "llm/format.hpp"

namespace llm {

std::string shape_text(std::span<const std::size_t> extents) {
  return format_list(extents);
}

namespace {

// Entry `axis` of a shape or coordinate, or "?" when the evidence does not reach it.
std::string extent_text(std::span<const std::size_t> extents, std::size_t axis) {
  return axis < extents.size() ? std::to_string(extents[axis]) : std::string("?");
}

// The extent `shape` has at `axis` counted from the right; a missing axis counts as 1.
std::string extent_from_right(const Shape& shape, std::size_t axis) {
  return axis < shape.size() ? std::to_string(shape[shape.size() - 1 - axis])
                             : std::string("1 (missing)");
}

}  // namespace

std::string TensorErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "shape") return shape_text(evidence.shape);
  if (field == "other_shape") return shape_text(evidence.other_shape);
  if (field == "strides") return shape_text(evidence.strides);
  if (field == "coordinate") return shape_text(evidence.coordinate);
  if (field == "axis") return std::to_string(evidence.axis);
  if (field == "index") return std::to_string(evidence.index);
  if (field == "expected") return std::to_string(evidence.expected);
  if (field == "actual") return std::to_string(evidence.actual);
  if (field == "value") return format_shortest(evidence.value);
  if (field == "rank") return std::to_string(evidence.shape.size());
  if (field == "ranked_operand") {
    return evidence.strides_rank ? "strides " + shape_text(evidence.strides) + " have rank " +
                                       std::to_string(evidence.strides.size())
                                 : "coordinate " + shape_text(evidence.coordinate) + " has rank " +
                                       std::to_string(evidence.coordinate.size());
  }
  if (field == "ranked_against") return evidence.strides_rank ? "shape" : "tensor shape";
  if (field == "coordinate_at_axis") return extent_text(evidence.coordinate, evidence.axis);
  if (field == "extent_at_axis") return extent_text(evidence.shape, evidence.axis);
  if (field == "extent_from_right") return extent_from_right(evidence.shape, evidence.axis);
  if (field == "other_extent_from_right")
    return extent_from_right(evidence.other_shape, evidence.axis);
  if (field == "inner_extent") return extent_text(evidence.shape, evidence.shape.size() - 1);
  if (field == "other_inner_extent")
    return extent_text(evidence.other_shape, evidence.other_shape.size() - 2);
  if (field == "slice_fault") {
    return evidence.index > evidence.actual
               ? "its start is past its end"
               : "its end is past the extent " + std::to_string(evidence.expected);
  }
  error_detail::unknown_field(area, field);
}

}  // namespace llm
