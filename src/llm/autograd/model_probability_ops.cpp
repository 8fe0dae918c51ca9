// Probability operations of the tensor tape, each beside its VJP: stable
// log-softmax and the combined indexed mean NLL. Taught in chapter 16.
//
// Each makes ONE checked forward call to the probability kernel, which emits
// the operation's result and the probabilities P from the same per-group
// statistics (maximum and shifted exponential sum). The operation saves those
// emitted P, so its VJP reads the exact forward bits and never normalizes the
// logits again. Two calls on the same logits (a log-softmax and a loss) are
// two operations with two saved tensors; they share only their input.
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "llm/autograd/recorder.hpp"
#include "llm/tensor/elementwise.hpp"
#include "llm/tensor/probability.hpp"
#include "llm/tensor/reduction.hpp"

namespace llm {

// region: model-log-softmax-saved-forward
TensorValue TensorValue::log_softmax(std::size_t axis) const {
  // One checked call: log-probabilities for the caller, probabilities for the VJP.
  const SharedTensor logits = value();
  LogSoftmaxForward forward = log_softmax_forward(logits, axis, EmitProbabilities::Yes);
  const SharedTensor probabilities = std::move(*forward.probabilities);
  // region: model-log-softmax-vjp
  // d log_softmax: dx = g - P * sum_class(g)
  auto vjp = [probabilities, axis](const SharedTensor& upstream) {
    const Tensor class_sums = llm::sum_axis(upstream, axis, KeepDim::Yes);  // [..., 1, ...]
    const Tensor weighted = llm::mul(probabilities, class_sums);
    Tensor result = upstream.materialize();
    std::span<double> values = result.mutable_values();
    for (std::size_t k = 0; k < values.size(); ++k) values[k] -= weighted.values()[k];
    return SharedTensor(std::move(result));
  };
  // endregion: model-log-softmax-vjp
  return record_operation(TensorOperation::LogSoftmax, std::move(forward.value),
                          {*this, {"upstream minus saved P times class sum", std::move(vjp)}});
}
// endregion: model-log-softmax-saved-forward

// region: model-indexed-nll-saved-forward
TensorValue TensorValue::indexed_mean_nll(std::size_t axis, IndexSpan targets) const {
  // Saved context: P, the targets (the rule's own copy, whatever their width),
  // and the class axis that locates each group.
  std::vector<std::size_t> saved_targets(targets.size());
  for (std::size_t group = 0; group < targets.size(); ++group)
    saved_targets[group] = targets[group];
  // One checked call: the scalar mean loss and the probabilities for the VJP.
  // The kernel validates axis, class extent, target count, G > 0 and every
  // target before it computes anything.
  const SharedTensor logits = value();
  IndexedNllForward forward =
      indexed_mean_nll_forward(logits, axis, saved_targets, EmitProbabilities::Yes);
  const SharedTensor probabilities = std::move(*forward.probabilities);
  // region: model-indexed-nll-vjp
  // d mean NLL / dZ[g, c] = (L / G) (P[g, c] - [c = t_g])
  auto vjp = [probabilities, axis,
              saved_targets = std::move(saved_targets)](const SharedTensor& upstream) {
    // Groups numbered as the forward kernel numbers them (the shape was
    // validated by the forward call, so this cannot throw).
    const ClassAxisGroups groups = class_axis_groups(probabilities.shape(), axis);
    const double scale = upstream.at({}) / static_cast<double>(saved_targets.size());
    Tensor result = probabilities.materialize();
    std::span<double> values = result.mutable_values();
    for (std::size_t g = 0; g < saved_targets.size(); ++g) {
      values[groups.offset(g, saved_targets[g])] -= 1.0;
    }
    for (double& value : values) value *= scale;
    return SharedTensor(std::move(result));
  };
  // endregion: model-indexed-nll-vjp
  return record_operation(TensorOperation::IndexedMeanNll, Tensor::scalar(forward.loss),
                          {*this, {"(upstream / G)(saved P - one-hot targets)", std::move(vjp)}});
}
// endregion: model-indexed-nll-saved-forward

}  // namespace llm
