// Row-major strides, coordinate/offset conversion and the layout
// transformations: transpose, permute, slice, reshape and broadcast.
#include "llm/tensor/layout.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

namespace llm {

namespace {

constexpr std::size_t kMaxSize = std::numeric_limits<std::size_t>::max();

// The extent `axis` places from the right; a missing leading axis counts as 1.
std::size_t extent_from_right(const Shape& shape, std::size_t axis) {
  return axis < shape.size() ? shape[shape.size() - 1 - axis] : 1;
}

// The first axis, counted from the right, at which `source` cannot expand to
// `target`, or none when `source` broadcasts to exactly `target`. Unlike the
// symmetric rule, only the source may have extent 1 or fewer axes.
std::optional<std::size_t> expansion_mismatch(const Shape& source, const Shape& target) {
  for (std::size_t axis = 0; axis < source.size(); ++axis) {
    if (axis >= target.size()) return axis;
    const std::size_t extent = extent_from_right(source, axis);
    if (extent != 1 && extent != extent_from_right(target, axis)) return axis;
  }
  return std::nullopt;
}

void require_axis(const Shape& shape, std::size_t axis) {
  if (axis >= shape.size())
    throw TensorError(TensorErrorKind::InvalidAxis, {.shape = shape, .axis = axis});
}

}  // namespace

// region: element-count
std::size_t element_count(const Shape& shape) {
  // The product of the nonzero extents must fit, wherever a zero extent sits.
  std::size_t nonzero_product = 1;
  bool has_zero_extent = false;
  for (std::size_t extent : shape) {
    if (extent == 0) {
      has_zero_extent = true;
      continue;
    }
    if (nonzero_product > kMaxSize / extent)
      throw TensorError(TensorErrorKind::ShapeOverflow, {.shape = shape});
    nonzero_product *= extent;
  }
  return has_zero_extent ? 0 : nonzero_product;
}
// endregion: element-count

// region: row-major-strides
Strides row_major_strides(const Shape& shape) {
  element_count(shape);  // every suffix product below fits once the whole product does
  Strides strides(shape.size(), 1);
  for (std::size_t axis = shape.size(); axis-- > 1;) {
    strides[axis - 1] = strides[axis] * shape[axis];
  }
  return strides;
}
// endregion: row-major-strides

// region: row-major-offset
std::size_t offset_from_coordinate(const Shape& shape, std::span<const std::size_t> coordinate) {
  // region: coordinate-rank-check
  if (coordinate.size() != shape.size()) {
    throw TensorError(TensorErrorKind::RankMismatch,
                      {.shape = shape, .coordinate = {coordinate.begin(), coordinate.end()}});
  }
  // endregion: coordinate-rank-check
  std::size_t offset = 0;
  for (std::size_t axis = 0; axis < shape.size(); ++axis) {
    // region: coordinate-bounds-check
    if (coordinate[axis] >= shape[axis]) {
      throw TensorError(
          TensorErrorKind::CoordinateOutOfBounds,
          {.shape = shape, .coordinate = {coordinate.begin(), coordinate.end()}, .axis = axis});
    }
    // endregion: coordinate-bounds-check
    // Horner's rule: offset = ((c0 * s1 + c1) * s2 + c2)...; stays below the count.
    offset = offset * shape[axis] + coordinate[axis];
  }
  return offset;
}
// endregion: row-major-offset

std::vector<std::size_t> coordinate_from_offset(const Shape& shape, std::size_t offset) {
  const std::size_t count = element_count(shape);
  if (offset >= count)
    throw TensorError(TensorErrorKind::OffsetOutOfBounds,
                      {.shape = shape, .index = offset, .expected = count});
  std::vector<std::size_t> coordinate(shape.size(), 0);
  for (std::size_t axis = shape.size(); axis-- > 0;) {
    coordinate[axis] = offset % shape[axis];
    offset /= shape[axis];
  }
  return coordinate;
}

Layout::Layout(Shape shape)
    : shape_(std::move(shape)), strides_(row_major_strides(shape_)), size_(element_count(shape_)) {}

Layout::Layout(Shape shape, Strides strides, std::size_t offset)
    : shape_(std::move(shape)), strides_(std::move(strides)), offset_(offset) {
  if (strides_.size() != shape_.size())
    throw TensorError(TensorErrorKind::RankMismatch,
                      {.shape = shape_, .strides = strides_, .strides_rank = true});
  size_ = element_count(shape_);
}

// region: layout-contiguity
bool Layout::is_contiguous() const noexcept {
  if (size_ == 0) return true;
  std::size_t expected = 1;  // the row-major stride of the current axis
  for (std::size_t axis = shape_.size(); axis-- > 0;) {
    // An axis of extent 1 is never stepped along, so its stride does not matter.
    if (shape_[axis] != 1 && strides_[axis] != expected) return false;
    expected *= shape_[axis];
  }
  return true;
}
// endregion: layout-contiguity

std::size_t Layout::end_offset() const noexcept {
  if (size_ == 0) return offset_;
  std::size_t last = offset_;
  for (std::size_t axis = 0; axis < shape_.size(); ++axis) {
    const std::size_t steps = shape_[axis] - 1;
    if (strides_[axis] != 0 && steps > (kMaxSize - last) / strides_[axis]) return kMaxSize;
    last += steps * strides_[axis];
  }
  return last == kMaxSize ? kMaxSize : last + 1;
}

// region: layout-offset-of
std::size_t Layout::offset_of(std::span<const std::size_t> coordinate) const {
  if (coordinate.size() != shape_.size()) {
    throw TensorError(TensorErrorKind::RankMismatch,
                      {.shape = shape_, .coordinate = {coordinate.begin(), coordinate.end()}});
  }
  std::size_t offset = offset_;
  for (std::size_t axis = 0; axis < shape_.size(); ++axis) {
    if (coordinate[axis] >= shape_[axis]) {
      throw TensorError(
          TensorErrorKind::CoordinateOutOfBounds,
          {.shape = shape_, .coordinate = {coordinate.begin(), coordinate.end()}, .axis = axis});
    }
    offset += coordinate[axis] * strides_[axis];
  }
  return offset;
}
// endregion: layout-offset-of

// region: layout-transpose
Layout Layout::transpose(std::size_t axis_a, std::size_t axis_b) const {
  require_axis(shape_, axis_a);
  require_axis(shape_, axis_b);
  Layout result = *this;
  std::swap(result.shape_[axis_a], result.shape_[axis_b]);
  std::swap(result.strides_[axis_a], result.strides_[axis_b]);
  return result;
}
// endregion: layout-transpose

Layout Layout::matrix_transpose() const {
  if (rank() < 2) throw TensorError(TensorErrorKind::InvalidAxis, {.shape = shape_, .axis = 1});
  return transpose(rank() - 2, rank() - 1);
}

// region: layout-permute
Layout Layout::permute(const Axes& axes) const {
  std::vector<bool> seen(shape_.size(), false);
  const bool valid =
      axes.size() == shape_.size() && std::all_of(axes.begin(), axes.end(), [&](std::size_t axis) {
        if (axis >= seen.size() || seen[axis]) return false;
        seen[axis] = true;
        return true;
      });
  if (!valid)
    throw TensorError(TensorErrorKind::InvalidPermutation,
                      {.shape = shape_, .coordinate = {axes.begin(), axes.end()}});
  Layout result = *this;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    result.shape_[i] = shape_[axes[i]];
    result.strides_[i] = strides_[axes[i]];
  }
  return result;
}
// endregion: layout-permute

// region: layout-slice
Layout Layout::slice(std::size_t axis, std::size_t start, std::size_t end) const {
  require_axis(shape_, axis);
  if (start > end || end > shape_[axis]) {
    throw TensorError(
        TensorErrorKind::InvalidSlice,
        {.shape = shape_, .axis = axis, .index = start, .expected = shape_[axis], .actual = end});
  }
  Layout result = *this;
  result.shape_[axis] = end - start;
  result.size_ = element_count(result.shape_);
  // An empty slice reaches no element, so its offset never has to be read.
  if (result.size_ != 0) result.offset_ += start * strides_[axis];
  return result;
}
// endregion: layout-slice

// region: layout-reshape
Layout Layout::reshape(const Shape& shape) const {
  if (element_count(shape) != size_)
    throw TensorError(TensorErrorKind::ReshapeCountMismatch,
                      {.shape = shape_, .other_shape = shape});
  if (!is_contiguous())
    throw TensorError(TensorErrorKind::NonContiguousReshape,
                      {.shape = shape_, .other_shape = shape, .strides = strides_});
  Layout result(shape);
  result.offset_ = offset_;
  return result;
}
// endregion: layout-reshape

// region: layout-broadcast
Layout Layout::broadcast_to(const Shape& shape) const {
  if (const auto axis = expansion_mismatch(shape_, shape)) {
    throw TensorError(TensorErrorKind::IncompatibleBroadcast,
                      {.shape = shape_, .other_shape = shape, .axis = *axis});
  }
  Layout result(shape, Strides(shape.size(), 0), offset_);  // added axes repeat: stride 0
  const std::size_t added_axes = shape.size() - shape_.size();
  for (std::size_t axis = 0; axis < shape_.size(); ++axis) {
    // An extent-1 axis that grows keeps stride 0: every step along it rereads one element.
    if (shape_[axis] == shape[added_axes + axis]) {
      result.strides_[added_axes + axis] = strides_[axis];
    }
  }
  return result;
}
// endregion: layout-broadcast

}  // namespace llm
