// Structural operations of the tensor tape and their VJPs: reshape,
// transpose and broadcast_to. Each moves values without changing one, so each
// VJP moves the upstream adjoint back the same way. Taught in chapter 15.
#include <utility>

#include "llm/autograd/tensor_value.hpp"
#include "llm/tensor/broadcast.hpp"
#include "llm/tensor/shape_ops.hpp"

namespace llm {

// region: tensor-reshape
TensorValue TensorValue::reshape(const Shape& shape) const {
  Tensor result = llm::reshape(value().view(), shape);
  return record(
      TensorOperation::Reshape, std::move(result),
      {{*this,
        {"reshape to operand shape",
         // VJP: reshape the upstream back to the operand's shape (values keep their order)
         [source = this->shape()](const Tensor& upstream) {
           return llm::reshape(upstream.view(), source);
         }}}});
}
// endregion: tensor-reshape

// region: tensor-transpose
TensorValue TensorValue::transpose(std::size_t axis_a, std::size_t axis_b) const {
  Tensor result = llm::transpose(value().view(), axis_a, axis_b);
  return record(TensorOperation::Transpose, std::move(result),
                {{*this,
                  {"transpose the same axes",
                   // VJP: swapping two axes is its own inverse, so swap them again
                   [axis_a, axis_b](const Tensor& upstream) {
                     return llm::transpose(upstream.view(), axis_a, axis_b);
                   }}}});
}
// endregion: tensor-transpose

// region: tensor-broadcast-to
TensorValue TensorValue::broadcast_to(const Shape& shape) const {
  Tensor result = llm::broadcast_to(value().view(), shape);
  return record(TensorOperation::BroadcastTo, std::move(result),
                {{*this,
                  {"sum broadcast axes",
                   // VJP: sum the upstream over the broadcast axes back to the operand's shape
                   [source = this->shape()](const Tensor& upstream) {
                     return sum_to_shape(upstream.view(), source);
                   }}}});
}
// endregion: tensor-broadcast-to

}  // namespace llm
