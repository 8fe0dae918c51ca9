// Elementwise arithmetic of the tensor tape and its VJPs: add and mul with
// NumPy broadcasting between the operands. A broadcast operand was read by
// several output elements, so its VJP sums the upstream over the broadcast
// axes back to its own shape. Taught in chapter 15.
#include <utility>

#include "llm/autograd/recorder.hpp"
#include "llm/tensor/broadcast.hpp"
#include "llm/tensor/elementwise.hpp"

namespace llm {
namespace {

// region: summed-to
// The upstream summed to `shape`: itself (no copy) when nothing was broadcast.
SharedTensor summed_to(const SharedTensor& upstream, const Shape& shape) {
  if (upstream.shape() == shape) return upstream;
  return sum_to_shape(upstream, shape);
}
// endregion: summed-to

}  // namespace

// region: tensor-add
TensorValue TensorValue::add(const TensorValue& other) const {
  const SharedTensor left = value();
  const SharedTensor right = other.value();
  Tensor result = llm::add(left, right);
  // d(l + r)/dl = d(l + r)/dr = 1: each operand receives the upstream itself.
  auto summed_to_shape_of = [](const SharedTensor& operand) {
    // VJP: sum the upstream over the axes this operand was broadcast along
    return [shape = operand.shape()](const SharedTensor& upstream) {
      return summed_to(upstream, shape);
    };
  };
  return record_operation(TensorOperation::Add, std::move(result),
                          {*this, {"sum to operand shape", summed_to_shape_of(left)}},
                          {other, {"sum to operand shape", summed_to_shape_of(right)}});
}
// endregion: tensor-add

// region: tensor-mul
TensorValue TensorValue::mul(const TensorValue& other) const {
  // Saved context: both operand values, shared with their nodes, not copied.
  const SharedTensor left = value();
  const SharedTensor right = other.value();
  Tensor result = llm::mul(left, right);
  return record_operation(TensorOperation::Mul, std::move(result),
                          {*this,
                           {"times right, sum to operand shape",
                            // VJP: d(l*r)/dl = r, so upstream * r, summed back to the shape of l
                            [right, shape = left.shape()](const SharedTensor& upstream) {
                              return summed_to(llm::mul(upstream, right), shape);
                            }}},
                          {other,
                           {"times left, sum to operand shape",
                            // VJP: d(l*r)/dr = l, so upstream * l, summed back to the shape of r
                            [left, shape = right.shape()](const SharedTensor& upstream) {
                              return summed_to(llm::mul(upstream, left), shape);
                            }}});
}
// endregion: tensor-mul

}  // namespace llm
