// NumPy broadcasting and its adjoint, the sum back to a source shape.
#include "llm/tensor/broadcast.hpp"

#include <algorithm>

#include "llm/tensor/strided_walk.hpp"

namespace llm {

namespace {

// The extent `axis` places from the right; a missing leading axis counts as 1.
std::size_t extent_from_right(const Shape& shape, std::size_t axis) {
  return axis < shape.size() ? shape[shape.size() - 1 - axis] : 1;
}

}  // namespace

// region: broadcast-rule
Shape broadcast_shapes(const Shape& left, const Shape& right) {
  const std::size_t rank = std::max(left.size(), right.size());
  Shape result(rank);
  for (std::size_t axis = 0; axis < rank; ++axis) {  // counted from the right
    const std::size_t a = extent_from_right(left, axis);
    const std::size_t b = extent_from_right(right, axis);
    if (a != b && a != 1 && b != 1)
      throw TensorError(TensorErrorKind::IncompatibleBroadcast,
                        {.shape = left, .other_shape = right, .axis = axis});
    result[rank - 1 - axis] = a == 1 ? b : a;
  }
  element_count(result);  // a result whose element count overflows is rejected here
  return result;
}
// endregion: broadcast-rule

// region: sum-to-shape
Tensor sum_to_shape(const TensorView& source, const Shape& target) {
  // The target must broadcast to the source; its layout, broadcast to the
  // source shape, says which target element each source element came from.
  Layout back;
  try {
    back = Layout(target).broadcast_to(source.shape());
  } catch (const TensorError& error) {
    if (error.kind() != TensorErrorKind::IncompatibleBroadcast) throw;
    throw TensorError(TensorErrorKind::IncompatibleBroadcast,
                      {.shape = source.shape(), .other_shape = target, .axis = error.axis()});
  }
  if (target == source.shape()) return source.materialize();  // nothing was broadcast
  Tensor result = Tensor::zeros(target);
  double* sums = result.mutable_values().data();
  const double* values = source.storage().data();
  // Row-major over the source: every element adds into the target element it
  // was copied from, so each target element sums in increasing source order.
  for_each_offset<2>(source.shape(), {back.strides(), source.strides()}, {0, source.offset()},
                     [&](const std::array<std::size_t, 2>& at) { sums[at[0]] += values[at[1]]; });
  return result;
}
// endregion: sum-to-shape

}  // namespace llm
