// Reductions of the tensor tape and their VJPs: sum_axis and mean_axis, with
// or without keeping the reduced axis. Every element along the axis fed the
// same output element, so the VJP spreads the upstream back along the axis.
// Taught in chapter 15.
#include <utility>

#include "llm/autograd/recorder.hpp"
#include "llm/tensor/reduction.hpp"

namespace llm {
namespace {

// region: spread-along-axis
// The upstream of a reduction along `axis`, repeated along that axis to the
// operand's shape: a view with stride 0 along `axis`, no copy. With or
// without keep_dim the upstream has the operand's element count divided by
// the axis extent, so regrouping it as the kept shape (extent 1 at `axis`)
// restores the axis before broadcasting along it.
SharedTensor spread_along_axis(const SharedTensor& upstream, const Shape& operand_shape,
                               std::size_t axis) {
  Shape kept = operand_shape;
  kept[axis] = 1;
  return upstream.contiguous().reshape(kept).broadcast_to(operand_shape);
}
// endregion: spread-along-axis

}  // namespace

// region: tensor-sum-axis
TensorValue TensorValue::sum_axis(std::size_t axis, KeepDim keep_dim) const {
  const SharedTensor operand = value();
  return record_operation(TensorOperation::SumAxis, llm::sum_axis(operand, axis, keep_dim),
                          {*this,
                           {"spread along axis",
                            // VJP: every summed element receives the upstream of its output element
                            [shape = operand.shape(), axis](const SharedTensor& upstream) {
                              return spread_along_axis(upstream, shape, axis);
                            }}});
}
// endregion: tensor-sum-axis

// region: tensor-mean-axis
TensorValue TensorValue::mean_axis(std::size_t axis, KeepDim keep_dim) const {
  const SharedTensor operand = value();
  return record_operation(TensorOperation::MeanAxis, llm::mean_axis(operand, axis, keep_dim),
                          {*this,
                           {"spread along axis, divide by extent",
                            // VJP: every averaged element receives upstream / n, n the axis extent
                            [shape = operand.shape(), axis](const SharedTensor& upstream) {
                              Tensor spread =
                                  spread_along_axis(upstream, shape, axis).materialize();
                              const double extent = static_cast<double>(shape[axis]);
                              for (double& element : spread.mutable_values()) element /= extent;
                              return SharedTensor(std::move(spread));
                            }}});
}
// endregion: tensor-mean-axis

}  // namespace llm
