// The shared repeated-token chain and the scalar probes: see fixtures.hpp.
#include "fixtures.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <utility>

#include "llm/format.hpp"

namespace ch16 {

using llm::Shape;
using llm::Tensor;
using llm::TensorOperation;
using llm::TensorValue;

namespace {

Tensor tensor(std::span<const std::size_t> shape, std::span<const double> values) {
  return Tensor(Shape(shape.begin(), shape.end()),
                std::vector<double>(values.begin(), values.end()));
}

// Compares tape tensors with the baseline, failing loudly on the first
// element that differs by more than kBaselineTolerance; remembers the largest
// difference seen.
class BaselineCheck {
 public:
  void operator()(const char* name, const Tensor& tape, std::span<const double> baseline) {
    if (tape.size() != baseline.size()) {
      throw std::runtime_error(std::string(name) + ": the tape has " + std::to_string(tape.size()) +
                               " values, the baseline " + std::to_string(baseline.size()));
    }
    for (std::size_t k = 0; k < baseline.size(); ++k) {
      const double difference = std::fabs(tape.values()[k] - baseline[k]);
      if (!(difference <= kBaselineTolerance)) {
        throw std::runtime_error(
            std::string(name) + " differs from the handwritten baseline at flat " +
            std::to_string(k) + ": tape " + llm::format_shortest(tape.values()[k]) + ", baseline " +
            llm::format_shortest(baseline[k]));
      }
      largest_ = std::max(largest_, difference);
    }
  }
  double largest() const noexcept { return largest_; }

 private:
  double largest_ = 0.0;
};

// The pass adjoint of the node `operation` produced, read from the trace.
Tensor pass_adjoint(const llm::TensorBackwardTrace& trace, TensorOperation operation) {
  const Tensor* adjoint = trace.pass_adjoint(operation);
  if (adjoint == nullptr) {
    throw std::runtime_error("the traced pass has no adjoint for " +
                             std::string(llm::tensor_operation_name(operation)));
  }
  return *adjoint;
}

// The forward chain as the figure draws it: the fork after SiLU is two
// steps that both consume step 2.
std::vector<ForwardStep> forward_steps(const TensorValue& embeddings, const TensorValue& gathered,
                                       const TensorValue& weights, const TensorValue& projected,
                                       const TensorValue& activated,
                                       const TensorValue& log_probabilities,
                                       const TensorValue& loss) {
  const Shape logits_shape = activated.shape();
  return {
      {"Row gather",
       TensorOperation::GatherRows,
       "embedding table + token IDs",
       {embeddings.shape()},
       {},
       gathered.value_snapshot()},
      {"Matrix product",
       TensorOperation::MatMul,
       "gathered feature rows + projection weights",
       {gathered.shape(), weights.shape()},
       {0},
       projected.value_snapshot()},
      {"SiLU",
       TensorOperation::Silu,
       "projection preactivations",
       {logits_shape},
       {1},
       activated.value_snapshot()},
      {"Log-softmax",
       TensorOperation::LogSoftmax,
       "activated values used as loss logits",
       {logits_shape},
       {2},
       log_probabilities.value_snapshot()},
      {"Indexed mean NLL",
       TensorOperation::IndexedMeanNll,
       "activated values used as loss logits + target classes",
       {logits_shape},
       {2},
       loss.value_snapshot()},
  };
}

}  // namespace

// region: shared-model-vjp-fixture
FrozenModelExample frozen_model_example() {
  const TensorValue embeddings = TensorValue::parameter(tensor(kEmbeddingShape, kEmbeddingValues));
  const TensorValue gathered = embeddings.gather_rows(kTokenIds, {kTokenIds.size()});
  const TensorValue weights = TensorValue::parameter(tensor(kWeightShape, kWeightValues));
  const TensorValue projection_preactivations = gathered.matmul(weights);
  const TensorValue activated = projection_preactivations.silu();
  // The fork: two separate calls over the same logits, each saving its own P.
  const TensorValue log_probabilities = activated.log_softmax(kClassAxis);
  const TensorValue loss = activated.indexed_mean_nll(kClassAxis, kTargets);

  const HandwrittenModelBaseline baseline = handwritten_model_backward();
  BaselineCheck check;
  check("gathered rows", gathered.value(), baseline.gathered);
  check("projection preactivations", projection_preactivations.value(),
        baseline.projection_preactivations);
  check("SiLU", activated.value(), baseline.activated);
  check("log-probabilities", log_probabilities.value(), baseline.log_probabilities);
  check("loss", loss.value(), std::array{baseline.loss});

  // Traced only because the comparison reads intermediate adjoints; training
  // would call backward(): the same reverse pass without the record.
  llm::TensorBackwardTrace backward = loss.backward_with_trace();
  Tensor loss_input_gradient = pass_adjoint(backward, TensorOperation::Silu);
  Tensor matmul_output_gradient = pass_adjoint(backward, TensorOperation::MatMul);
  Tensor gathered_gradient = pass_adjoint(backward, TensorOperation::GatherRows);
  Tensor embedding_gradient = *embeddings.gradient_snapshot();
  Tensor weight_gradient = *weights.gradient_snapshot();
  check("loss-logit gradient", loss_input_gradient, baseline.loss_input_gradient);
  check("gradient through SiLU", matmul_output_gradient, baseline.matmul_output_gradient);
  check("gathered-row gradient", gathered_gradient, baseline.gathered_gradient);
  check("embedding gradient", embedding_gradient, baseline.embedding_gradient);
  check("weight gradient", weight_gradient, baseline.weight_gradient);

  return {embeddings.value_snapshot(),
          {kTokenIds.begin(), kTokenIds.end()},
          weights.value_snapshot(),
          {kTargets.begin(), kTargets.end()},
          gathered.value_snapshot(),
          projection_preactivations.value_snapshot(),
          activated.value_snapshot(),
          log_probabilities.value_snapshot(),
          loss.value_snapshot(),
          forward_steps(embeddings, gathered, weights, projection_preactivations, activated,
                        log_probabilities, loss),
          std::move(backward),
          std::move(loss_input_gradient),
          std::move(matmul_output_gradient),
          std::move(gathered_gradient),
          std::move(embedding_gradient),
          std::move(weight_gradient),
          check.largest()};
}
// endregion: shared-model-vjp-fixture

// region: model-scalar-probes
std::vector<ScalarProbe> scalar_probes() {
  struct Probe {
    const char* operation;
    const char* label;
    double input;
    TensorValue (TensorValue::*apply)() const;
  };
  std::vector<ScalarProbe> probes;
  for (const Probe& probe : {Probe{"exp", "exp(0)", 0.0, &TensorValue::exp},
                             Probe{"log", "log(1)", 1.0, &TensorValue::log},
                             Probe{"silu", "silu(0)", 0.0, &TensorValue::silu}}) {
    const TensorValue x = TensorValue::parameter(Tensor::scalar(probe.input));
    const TensorValue y = (x.*probe.apply)();
    y.backward();  // seed 1: the stored gradient is the local derivative
    probes.push_back({probe.operation, probe.label, probe.input, y.value().values()[0],
                      x.gradient()->values()[0]});
  }
  return probes;
}
// endregion: model-scalar-probes

}  // namespace ch16
