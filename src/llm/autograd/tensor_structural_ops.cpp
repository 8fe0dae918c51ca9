// Structural operations of the tensor tape and their VJPs: reshape,
// transpose, permute, slice, broadcast_to and materialize. The first five
// share their operand's storage (a new layout, O(rank)); each VJP moves the
// upstream adjoint back through the inverse layout change. Taught in
// chapter 15; the layouts themselves in chapter 09.
#include <utility>

#include "llm/autograd/recorder.hpp"
#include "llm/tensor/broadcast.hpp"

namespace llm {

// region: tensor-reshape
TensorValue TensorValue::reshape(const Shape& shape) const {
  const Shape source = this->shape();
  return record_operation(
      TensorOperation::Reshape, value().reshape(shape),
      {*this,
       {"reshape to operand shape",
        // VJP: the upstream regrouped back to the operand's shape (values keep their order)
        [source](const SharedTensor& upstream) { return upstream.contiguous().reshape(source); }}});
}
// endregion: tensor-reshape

// region: tensor-transpose
TensorValue TensorValue::transpose(std::size_t axis_a, std::size_t axis_b) const {
  return record_operation(TensorOperation::Transpose, value().transpose(axis_a, axis_b),
                          {*this,
                           {"transpose the same axes",
                            // VJP: swapping two axes is its own inverse, so swap them again
                            [axis_a, axis_b](const SharedTensor& upstream) {
                              return upstream.transpose(axis_a, axis_b);
                            }}});
}
// endregion: tensor-transpose

// region: tensor-permute
TensorValue TensorValue::permute(const Axes& axes) const {
  SharedTensor result = value().permute(axes);
  Axes inverse(axes.size());
  for (std::size_t i = 0; i < axes.size(); ++i) inverse[axes[i]] = i;
  return record_operation(
      TensorOperation::Permute, std::move(result),
      {*this,
       {"inverse permutation",
        // VJP: result axis i came from operand axis axes[i]; send it back
        [inverse](const SharedTensor& upstream) { return upstream.permute(inverse); }}});
}
// endregion: tensor-permute

// region: tensor-slice
TensorValue TensorValue::slice(std::size_t axis, std::size_t start, std::size_t end) const {
  const Shape source = shape();
  return record_operation(
      TensorOperation::Slice, value().slice(axis, start, end),
      {*this,
       {"place into zeros of operand shape",
        // VJP: the sliced positions receive the upstream, every other position 0
        [source, axis, start, end](const SharedTensor& upstream) {
          Tensor gradient = Tensor::zeros(source);
          gradient.mutable_view().slice(axis, start, end).copy_from(upstream);
          return SharedTensor(std::move(gradient));
        }}});
}
// endregion: tensor-slice

// region: tensor-broadcast-to
TensorValue TensorValue::broadcast_to(const Shape& shape) const {
  const Shape source = this->shape();
  return record_operation(TensorOperation::BroadcastTo, value().broadcast_to(shape),
                          {*this,
                           {"sum broadcast axes",
                            // VJP: sum the upstream over the broadcast axes back to the source
                            [source](const SharedTensor& upstream) {
                              return SharedTensor(sum_to_shape(upstream, source));
                            }}});
}
// endregion: tensor-broadcast-to

// region: tensor-materialize
TensorValue TensorValue::materialize() const {
  return record_operation(TensorOperation::Materialize, value().materialize(),
                          {*this,
                           {"upstream unchanged",
                            // VJP: a copy does not change values, so the upstream passes through
                            [](const SharedTensor& upstream) { return upstream; }}});
}
// endregion: tensor-materialize

}  // namespace llm
