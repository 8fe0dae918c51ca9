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
#include "llm/tensor/probability.hpp"

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
    compared_.emplace_back(name);
  }
  double largest() const noexcept { return largest_; }
  // The names of every tensor compared so far, in order.
  const std::vector<std::string>& compared() const noexcept { return compared_; }

 private:
  double largest_ = 0.0;
  std::vector<std::string> compared_;
};

// The pass adjoint of the node `operation` produced, read from the trace.
Tensor pass_adjoint(const llm::TensorBackwardTrace& trace, TensorOperation operation) {
  const Tensor* adjoint = trace.pass_adjoint(operation);
  if (adjoint == nullptr) {
    throw std::runtime_error("the traced pass has no adjoint for " + std::string(operation.name()));
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
    ForwardStep step{call.name,
                     node.operation,
                     call.result,
                     {},
                     {},
                     {},
                     call.integer_inputs,
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

  const HandwrittenModelBaseline baseline = handwritten_model_backward(kWeightValues);
  BaselineCheck check;
  check("gathered rows", gathered.value().materialize(), baseline.gathered);
  check("projection preactivations", projection_preactivations.value().materialize(),
        baseline.projection_preactivations);
  check("SiLU", activated.value().materialize(), baseline.activated);
  check("log-probabilities", log_probabilities.value().materialize(), baseline.log_probabilities);
  check("loss", loss.value().materialize(), std::array{baseline.loss});

  // Traced because the comparison reads intermediate adjoints (and the
  // figures the recorded graph); training would call backward(): the same
  // reverse pass without the record. Retained, because forward_steps below
  // reverses the log-softmax branch, which shares this graph up to SiLU.
  llm::TensorBackwardTrace backward = loss.backward_with_trace(llm::Retention::Retain);
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
          check.largest(),
          check.compared()};
}
// endregion: shared-model-vjp-fixture

// region: asymmetric-chain-example
AsymmetricChainExample asymmetric_chain_example() {
  const HandwrittenModelBaseline baseline = handwritten_model_backward(kAsymmetricWeightValues);
  const double groups = static_cast<double>(kTargets.size());
  // The mask that turns sum(mask * log_softmax(Z)) into the mean NLL: -1/G at each target.
  Tensor mask = Tensor::zeros({kTargets.size(), 2});
  for (std::size_t g = 0; g < kTargets.size(); ++g) {
    mask.mutable_values()[g * 2 + kTargets[g]] = -1.0 / groups;
  }

  struct Path {
    TensorValue embeddings, weights, preactivations, logits, loss;
  };
  // A fresh chain per path, so that each pass stores its own parameter gradients.
  const auto build = [&](bool through_log_softmax) {
    const TensorValue embeddings =
        TensorValue::parameter(tensor(kEmbeddingShape, kEmbeddingValues));
    const TensorValue weights =
        TensorValue::parameter(tensor(kWeightShape, kAsymmetricWeightValues));
    const TensorValue preactivations =
        embeddings.gather_rows(kTokenIds, {kTokenIds.size()}).matmul(weights);
    const TensorValue logits = preactivations.silu();
    const TensorValue loss =
        through_log_softmax
            ? sum_to_scalar(logits.log_softmax(kClassAxis).mul(TensorValue::constant(mask)))
            : logits.indexed_mean_nll(kClassAxis, kTargets);
    return Path{embeddings, weights, preactivations, logits, loss};
  };
  const Path nll = build(false);
  const Path masked = build(true);
  const llm::TensorBackwardTrace nll_pass = nll.loss.backward_with_trace();
  const llm::TensorBackwardTrace masked_pass = masked.loss.backward_with_trace();

  BaselineCheck check;
  check("asymmetric logits", nll.logits.value().materialize(), baseline.activated);
  check("asymmetric loss", nll.loss.value().materialize(), std::array{baseline.loss});
  check("asymmetric masked loss", masked.loss.value().materialize(), std::array{baseline.loss});
  Tensor nll_logit_gradient = pass_adjoint(nll_pass, TensorOperation::Silu);
  Tensor log_softmax_logit_gradient = pass_adjoint(masked_pass, TensorOperation::Silu);
  Tensor through_silu = pass_adjoint(nll_pass, TensorOperation::MatMul);
  check("logit gradient through indexed_mean_nll", nll_logit_gradient,
        baseline.loss_input_gradient);
  check("logit gradient through log_softmax", log_softmax_logit_gradient,
        baseline.log_softmax_input_gradient);
  check("asymmetric gradient through SiLU", through_silu, baseline.matmul_output_gradient);
  check("asymmetric gradient through SiLU (log-softmax path)",
        pass_adjoint(masked_pass, TensorOperation::MatMul), baseline.matmul_output_gradient);
  for (const Path* path : {&nll, &masked}) {
    check("asymmetric embedding gradient", *path->embeddings.gradient_snapshot(),
          baseline.embedding_gradient);
    check("asymmetric weight gradient", *path->weights.gradient_snapshot(),
          baseline.weight_gradient);
  }

  // A common SiLU mistake multiplies by sigmoid(x) alone; at x = 0 it is right.
  Tensor through_sigmoid_only = nll_logit_gradient;
  const Tensor preactivations = nll.preactivations.value().materialize();
  for (std::size_t k = 0; k < through_sigmoid_only.size(); ++k) {
    through_sigmoid_only.mutable_values()[k] *= llm::stable_sigmoid(preactivations.values()[k]);
  }
  return {nll.weights.value().materialize(),
          preactivations,
          nll.logits.value().materialize(),
          tensor(std::array<std::size_t, 2>{kTargets.size(), 2}, baseline.probabilities),
          nll.loss.value().at({}),
          masked.loss.value().at({}),
          std::move(nll_logit_gradient),
          std::move(log_softmax_logit_gradient),
          std::move(through_silu),
          std::move(through_sigmoid_only),
          *nll.embeddings.gradient_snapshot(),
          *nll.weights.gradient_snapshot(),
          check.largest(),
          check.compared()};
}
// endregion: asymmetric-chain-example

// region: chapter13-nll-example
Chapter13NllExample chapter13_nll_example() {
  const Tensor logits = tensor(kChapter13LogitShape, kChapter13Logits);
  const TensorValue parameter = TensorValue::parameter(logits);
  const TensorValue loss = parameter.indexed_mean_nll(1, kChapter13Targets);
  loss.backward();
  Tensor tape_gradient = *parameter.gradient_snapshot();

  // By hand, as chapter 13 derived it: (softmax(row) - one_hot(target)) / rows.
  const std::size_t rows = kChapter13LogitShape[0];
  const std::size_t columns = kChapter13LogitShape[1];
  std::vector<double> handwritten(rows * columns);
  for (std::size_t row = 0; row < rows; ++row) {
    const auto line = std::span(kChapter13Logits).subspan(row * columns, columns);
    const double maximum = *std::max_element(line.begin(), line.end());
    double denominator = 0.0;
    for (double logit : line) denominator += std::exp(logit - maximum);
    for (std::size_t c = 0; c < columns; ++c) {
      const double target = kChapter13Targets[row] == c ? 1.0 : 0.0;
      handwritten[row * columns + c] =
          (std::exp(line[c] - maximum) / denominator - target) / static_cast<double>(rows);
    }
  }
  BaselineCheck check;
  check("chapter 13 NLL gradient", tape_gradient, handwritten);
  return {logits,
          {kChapter13Targets.begin(), kChapter13Targets.end()},
          loss.value().at({}),
          std::move(tape_gradient),
          Tensor(logits.shape(), std::move(handwritten)),
          check.largest()};
}
// endregion: chapter13-nll-example

// region: gradient-descent-example
GradientDescentExample gradient_descent_example() {
  Tensor embeddings = tensor(kEmbeddingShape, kEmbeddingValues);
  Tensor weights = tensor(kWeightShape, kWeightValues);
  // One plain step: p <- p - rate * gradient, element by element.
  const auto step = [](Tensor& values, const Tensor& gradient) {
    for (std::size_t k = 0; k < values.size(); ++k) {
      values.mutable_values()[k] -= kLearningRate * gradient.values()[k];
    }
  };
  std::vector<double> losses;
  Tensor probabilities;
  for (std::size_t iteration = 0; iteration <= kDescentSteps; ++iteration) {
    // A fresh graph each step: the parameters are new leaves holding the updated values.
    const TensorValue e = TensorValue::parameter(embeddings);
    const TensorValue w = TensorValue::parameter(weights);
    const TensorValue logits = e.gather_rows(kTokenIds, {kTokenIds.size()}).matmul(w).silu();
    const TensorValue loss = logits.indexed_mean_nll(kClassAxis, kTargets);
    losses.push_back(loss.value().at({}));
    if (iteration == kDescentSteps) {
      probabilities = logits.log_softmax(kClassAxis).exp().value().materialize();
      break;
    }
    loss.backward();
    step(embeddings, *e.gradient_snapshot());
    step(weights, *w.gradient_snapshot());
  }
  return {kLearningRate, std::move(losses), std::move(embeddings), std::move(weights),
          std::move(probabilities)};
}
// endregion: gradient-descent-example

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
    probes.push_back(
        {probe.operation, probe.label, probe.input, y.value().at({}), x.gradient()->values()[0]});
  }
  return probes;
}
// endregion: model-scalar-probes

}  // namespace ch16
