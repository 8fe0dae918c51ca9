// Tape helpers for the Part V demos (chapters 26-30): a node's value as a
// plain tensor, the sum of a node's elements as a scalar loss, and whether
// every number a traced reverse pass recorded is finite.
#pragma once

#include <cmath>
#include <optional>

#include "llm/autograd/tensor_value.hpp"
#include "llm/tensor/tensor.hpp"

namespace demo {

/// A node's value as a tensor of its own (a copy, contiguous).
inline llm::Tensor value_of(const llm::TensorValue& node) {
  return node.value().materialize();
}

/// The sum of every element of `node`, recorded on the tape: any shape ->
/// [size] -> a scalar []. Its gradient with respect to `node` is all ones.
inline llm::TensorValue total(const llm::TensorValue& node) {
  return node.reshape(llm::Shape{node.value().size()}).sum_axis(0);
}

/// Whether every value of `tensor` is finite.
inline bool all_finite(const llm::Tensor& tensor) {
  for (double value : tensor.values()) {
    if (!std::isfinite(value)) return false;
  }
  return true;
}

/// all_finite() of the tensor, or true when there is none.
inline bool all_finite(const std::optional<llm::Tensor>& tensor) {
  return !tensor || all_finite(*tensor);
}

/// Whether the seed and every value, pass adjoint, stored gradient, upstream
/// and contribution of a traced pass (TensorValue::backward_with_trace) are finite.
inline bool trace_is_finite(const llm::TensorBackwardTrace& trace) {
  bool finite = all_finite(trace.seed);
  for (const llm::TensorTraceNode& node : trace.nodes) {
    finite = finite && all_finite(node.value) && all_finite(node.pass_adjoint) &&
             all_finite(node.gradient);
  }
  for (const llm::TensorTraceEdge& edge : trace.edges) {
    finite = finite && all_finite(edge.upstream) && all_finite(edge.contribution);
  }
  return finite;
}

}  // namespace demo
