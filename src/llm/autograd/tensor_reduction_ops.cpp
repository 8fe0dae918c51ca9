// Reductions of the tensor tape and their VJPs: sum_axis and mean_axis, with
// or without keeping the reduced axis. Every element along the axis fed the
// same output element, so the VJP spreads the upstream back along the axis.
// Taught in chapter 15.
#include <utility>

#include "llm/autograd/tensor_value.hpp"
#include "llm/tensor/broadcast.hpp"
#include "llm/tensor/reduction.hpp"
#include "llm/tensor/shape_ops.hpp"

namespace llm {
namespace {

// The upstream of a reduction along `axis`, repeated along that axis to the
// operand's shape. With or without keep_dim the upstream has the operand's
// element count divided by the axis extent, so a reshape to the kept shape
// (extent 1 at `axis`) restores the axis before broadcasting along it.
Tensor spread_along_axis(const Tensor& upstream, const Shape& operand_shape, std::size_t axis) {
  Shape kept = operand_shape;
  kept[axis] = 1;
  return broadcast_to(reshape(upstream.view(), kept).view(), operand_shape);
}

}  // namespace

// region: tensor-sum-axis
TensorValue TensorValue::sum_axis(std::size_t axis, bool keep_dim) const {
  Tensor result = llm::sum_axis(value().view(), axis, keep_dim);
  return record(TensorOperation::SumAxis, std::move(result),
                {{*this,
                  {"spread along axis",
                   // VJP: every summed element receives the upstream of its output element
                   [shape = shape(), axis](const Tensor& upstream) {
                     return spread_along_axis(upstream, shape, axis);
                   }}}});
}
// endregion: tensor-sum-axis

// region: tensor-mean-axis
TensorValue TensorValue::mean_axis(std::size_t axis, bool keep_dim) const {
  Tensor result = llm::mean_axis(value().view(), axis, keep_dim);
  return record(TensorOperation::MeanAxis, std::move(result),
                {{*this,
                  {"spread along axis, divide by extent",
                   // VJP: every averaged element receives upstream / n, n the axis extent
                   [shape = shape(), axis](const Tensor& upstream) {
                     Tensor spread = spread_along_axis(upstream, shape, axis);
                     const double extent = static_cast<double>(shape[axis]);
                     for (double& element : spread.mutable_values()) element /= extent;
                     return spread;
                   }}}});
}
// endregion: tensor-mean-axis

}  // namespace llm
