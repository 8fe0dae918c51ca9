// Elementwise arithmetic of the tensor tape and its VJPs: add and mul with
// NumPy broadcasting between the operands. A broadcast operand was read by
// several output elements, so its VJP sums the upstream over the broadcast
// axes back to its own shape. Taught in chapter 15.
#include <utility>

#include "llm/autograd/tensor_value.hpp"
#include "llm/tensor/broadcast.hpp"
#include "llm/tensor/elementwise.hpp"

namespace llm {

// region: tensor-add
TensorValue TensorValue::add(const TensorValue& other) const {
  Tensor result = llm::add(value().view(), other.value().view());
  // d(l + r)/dl = d(l + r)/dr = 1: each operand receives the upstream itself.
  auto summed_to = [](Shape shape) {
    // VJP: sum the upstream over the axes this operand was broadcast along
    return [shape = std::move(shape)](const Tensor& upstream) {
      return sum_to_shape(upstream.view(), shape);
    };
  };
  return record(TensorOperation::Add, std::move(result),
                {{*this, {"sum to operand shape", summed_to(shape())}},
                 {other, {"sum to operand shape", summed_to(other.shape())}}});
}
// endregion: tensor-add

// region: tensor-mul
TensorValue TensorValue::mul(const TensorValue& other) const {
  Tensor result = multiply(value().view(), other.value().view());
  // Saved context: both operand values, shared with their nodes, not copied.
  SavedTensor left = saved_value();
  SavedTensor right = other.saved_value();
  return record(TensorOperation::Multiply, std::move(result),
                {{*this,
                  {"times right, sum to operand shape",
                   // VJP: d(l*r)/dl = r, so upstream * r, summed back to the shape of l
                   [right, shape = shape()](const Tensor& upstream) {
                     return sum_to_shape(multiply(upstream.view(), right->view()).view(), shape);
                   }}},
                 {other,
                  {"times left, sum to operand shape",
                   // VJP: d(l*r)/dr = l, so upstream * l, summed back to the shape of r
                   [left, shape = other.shape()](const Tensor& upstream) {
                     return sum_to_shape(multiply(upstream.view(), left->view()).view(), shape);
                   }}}});
}
// endregion: tensor-mul

}  // namespace llm
