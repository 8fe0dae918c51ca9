// The shared repeated-token chain and the scalar probes: see fixtures.hpp.
#include "fixtures.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
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
                             std::string(operation.name()));
  }
  return *adjoint;
}

// One tape node of the worked chain and the label the trace gives it.
struct ChainNode {
  const char* label;
  TensorValue value;
};

// The label of the chain node with id `node_id`.
std::string label_of(std::span<const ChainNode> chain, std::uint64_t node_id) {
  for (const ChainNode& node : chain) {
    if (node.value.node_id() == node_id) return node.label;
  }
  throw std::runtime_error("node " + std::to_string(node_id) + " is not part of the worked chain");
}

// The label of every node of a traced pass, in its topological order.
std::vector<std::string> trace_labels(std::span<const ChainNode> chain,
                                      const llm::TensorBackwardTrace& trace) {
  std::vector<std::string> labels;
  for (const llm::TensorTraceNode& node : trace.nodes) {
    labels.push_back(label_of(chain, node.node_id));
  }
  return labels;
}

// The chain's operation calls in the order the fixture makes them; each
// step's operation, operands and their shapes come from the traced passes,
// which recorded them. The loss's pass does not reach the log-softmax
// branch, so a step missing from it is reversed here with a zero seed,
// traced, once every gradient has been read: the pass adds zero to each
// gradient and records which node the branch reads.
std::vector<ForwardStep> forward_steps(std::span<const ChainNode> chain,
                                       const llm::TensorBackwardTrace& loss_pass) {
  struct Call {
    const char* name;
    const char* result;  // the label of the node the call made
    std::vector<std::string> integer_inputs;
  };
  const std::vector<Call> calls = {{"Row gather", "gathered", {"token IDs"}},
                                   {"Matrix product", "preactivations", {}},
                                   {"SiLU", "activated", {}},
                                   {"Log-softmax", "log_probabilities", {}},
                                   {"Indexed mean NLL", "loss", {"target classes"}}};
  std::vector<ForwardStep> steps;
  for (const Call& call : calls) {
    const auto named = std::find_if(chain.begin(), chain.end(), [&](const ChainNode& node) {
      return std::string_view(node.label) == call.result;
    });
    if (named == chain.end()) throw std::runtime_error(std::string("no chain node ") + call.result);
    const TensorValue& result = named->value;
    std::optional<llm::TensorBackwardTrace> branch_pass;
    const llm::TensorBackwardTrace* pass = &loss_pass;
    if (pass->find(result.node_id()) == nullptr) {
      branch_pass =
          result.backward_with_trace(Tensor::zeros(result.shape()), llm::Retention::Retain);
      pass = &*branch_pass;
    }
    const llm::TensorTraceNode& node = *pass->find(result.node_id());
    ForwardStep step{call.name, node.operation, call.result, {}, {}, {}, call.integer_inputs,
                     result.value().materialize()};
    for (std::size_t operand : node.operands) {
      const llm::TensorTraceNode& parent = pass->nodes.at(operand);
      step.operands.push_back(label_of(chain, parent.node_id));
      step.operand_shapes.push_back(parent.shape);
      for (std::size_t earlier = 0; earlier < steps.size(); ++earlier) {
        if (steps[earlier].label == step.operands.back()) step.consumes.push_back(earlier);
      }
    }
    steps.push_back(std::move(step));
  }
  return steps;
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
  const std::vector<ChainNode> chain = {{"embeddings", embeddings},
                                        {"gathered", gathered},
                                        {"weights", weights},
                                        {"preactivations", projection_preactivations},
                                        {"activated", activated},
                                        {"log_probabilities", log_probabilities},
                                        {"loss", loss}};  // the trace's labels

  const HandwrittenModelBaseline baseline = handwritten_model_backward();
  BaselineCheck check;
  check("gathered rows", gathered.value().materialize(), baseline.gathered);
  check("projection preactivations", projection_preactivations.value().materialize(),
        baseline.projection_preactivations);
  check("SiLU", activated.value().materialize(), baseline.activated);
  check("log-probabilities", log_probabilities.value().materialize(), baseline.log_probabilities);
  check("loss", loss.value().materialize(), std::array{baseline.loss});

  // Traced because the comparison reads intermediate adjoints (and the
  // figures the recorded graph); training would call backward(): the same
  // reverse pass without the record.
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
  std::vector<std::string> backward_labels = trace_labels(chain, backward);
  std::vector<ForwardStep> forward = forward_steps(chain, backward);  // after the reads above

  return {embeddings.value().materialize(),
          {kTokenIds.begin(), kTokenIds.end()},
          weights.value().materialize(),
          {kTargets.begin(), kTargets.end()},
          gathered.value().materialize(),
          projection_preactivations.value().materialize(),
          activated.value().materialize(),
          log_probabilities.value().materialize(),
          loss.value().materialize(),
          std::move(forward),
          std::move(backward),
          std::move(backward_labels),
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
    probes.push_back({probe.operation, probe.label, probe.input, y.value().at({}),
                      x.gradient()->values()[0]});
  }
  return probes;
}
// endregion: model-scalar-probes

}  // namespace ch16
