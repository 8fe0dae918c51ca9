// NumPy broadcasting and its adjoint, the sum back to a source shape.
#include "llm/tensor/broadcast.hpp"

#include <algorithm>
#include <optional>

namespace llm {

namespace {

// The extent `axis` places from the right; a missing leading axis counts as 1.
std::size_t extent_from_right(const Shape& shape, std::size_t axis) {
  return axis < shape.size() ? shape[shape.size() - 1 - axis] : 1;
}

// The first axis, counted from the right, at which `source` cannot expand to
// `target`, or none when broadcast_shapes(source, target) == target. Unlike
// the symmetric rule, only the source may have extent 1 or fewer axes.
std::optional<std::size_t> expansion_mismatch(const Shape& source, const Shape& target) {
  for (std::size_t axis = 0; axis < source.size(); ++axis) {
    if (axis >= target.size()) return axis;
    const std::size_t extent = extent_from_right(source, axis);
    if (extent != 1 && extent != extent_from_right(target, axis)) return axis;
  }
  return std::nullopt;
}

}  // namespace

// region: broadcast-rule
Shape broadcast_shapes(const Shape& left, const Shape& right) {
  const std::size_t rank = std::max(left.size(), right.size());
  Shape result(rank);
  for (std::size_t axis = 0; axis < rank; ++axis) {  // counted from the right
    const std::size_t a = extent_from_right(left, axis);
    const std::size_t b = extent_from_right(right, axis);
    if (a != b && a != 1 && b != 1) throw TensorError::incompatible_broadcast(left, right, axis);
    result[rank - 1 - axis] = a == 1 ? b : a;
  }
  element_count(result);  // a result whose element count overflows is rejected here
  return result;
}
// endregion: broadcast-rule

// region: broadcast-index
BroadcastIndex::BroadcastIndex(const Shape& source, const Shape& target)
    : target_(target), strides_(target.size(), 0) {
  if (const auto axis = expansion_mismatch(source, target)) {
    throw TensorError::incompatible_broadcast(source, target, *axis);
  }
  const std::vector<std::size_t> source_strides = row_major_strides(source);
  const std::size_t added_axes = target.size() - source.size();
  for (std::size_t axis = 0; axis < source.size(); ++axis) {
    // An extent-1 source axis keeps stride 0: every step along it rereads one element.
    if (source[axis] != 1) strides_[added_axes + axis] = source_strides[axis];
  }
}

std::size_t BroadcastIndex::source_offset(std::size_t target_offset) const noexcept {
  std::size_t offset = 0;
  for (std::size_t axis = target_.size(); axis-- > 0;) {  // peel coordinates, last axis first
    offset += (target_offset % target_[axis]) * strides_[axis];
    target_offset /= target_[axis];
  }
  return offset;
}
// endregion: broadcast-index

// region: broadcast-to
Tensor broadcast_to(const TensorView& source, const Shape& target) {
  const BroadcastIndex index(source.shape(), target);
  Tensor result = Tensor::zeros(target);
  std::span<double> values = result.mutable_values();
  for (std::size_t offset = 0; offset < values.size(); ++offset) {
    values[offset] = source.values()[index.source_offset(offset)];
  }
  return result;
}
// endregion: broadcast-to

// region: sum-to-shape
Tensor sum_to_shape(const TensorView& source, const Shape& target) {
  if (const auto axis = expansion_mismatch(target, source.shape())) {
    throw TensorError::incompatible_broadcast(source.shape(), target, *axis);
  }
  if (target == source.shape()) return source.to_tensor();  // nothing was broadcast
  // Every element broadcast_to copied from target offset t sends its value back to t.
  const BroadcastIndex index(target, source.shape());
  Tensor result = Tensor::zeros(target);
  std::span<double> sums = result.mutable_values();
  for (std::size_t offset = 0; offset < source.size(); ++offset) {
    sums[index.source_offset(offset)] += source.values()[offset];
  }
  return result;
}
// endregion: sum-to-shape

}  // namespace llm
