// The worked examples of chapter 16: one repeated-token chain (row gather ->
// matmul -> SiLU -> fork into log-softmax and indexed mean NLL) built on the
// tensor tape and checked against a handwritten fixed-array baseline; three
// scalar probes; the eight sampled VJP checks; and four rejected requests.
// Each example returns plain data that the demo prints and writes into its
// trace.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "llm/autograd/gradcheck.hpp"
#include "llm/autograd/tensor_value.hpp"
#include "llm/tensor/tensor.hpp"

namespace ch16 {

/// Embedding table E [V, C] = [3, 2], row-major.
inline constexpr std::array<std::size_t, 2> kEmbeddingShape = {3, 2};
inline constexpr std::array<double, 6> kEmbeddingValues = {2, 2, 1, -1, -1, 1};
/// Token IDs z, one per flat position p = b * T + t with B = 1, T = 4.
inline constexpr std::array<std::size_t, 4> kTokenIds = {1, 1, 1, 2};
inline constexpr std::size_t kBatch = 1;
inline constexpr std::size_t kTime = 4;
/// Projection weights W [C, V] = [2, 2].
inline constexpr std::array<std::size_t, 2> kWeightShape = {2, 2};
inline constexpr std::array<double, 4> kWeightValues = {1, -1, 1, -1};
/// One target class per position.
inline constexpr std::array<std::size_t, 4> kTargets = {0, 0, 0, 1};
/// The class axis of the [4, 2] loss logits.
inline constexpr std::size_t kClassAxis = 1;

/// Projection weights of the asymmetric chain: its rows differ, so the loss
/// logits are non-zero and differ within each row (the shared chain's are all
/// zero, where SiLU's derivative equals sigmoid(0) and every P is one half).
inline constexpr std::array<double, 4> kAsymmetricWeightValues = {0.5, -1.0, 1.5, 0.25};

/// Chapter 13's NLL fixture: logits [2, 3] and one target class per row.
inline constexpr std::array<std::size_t, 2> kChapter13LogitShape = {2, 3};
inline constexpr std::array<double, 6> kChapter13Logits = {0, 1, -1, 2, 0, -2};
inline constexpr std::array<std::size_t, 2> kChapter13Targets = {0, 2};

/// Gradient descent on the shared chain: plain steps p <- p - rate * dL/dp.
inline constexpr double kLearningRate = 0.5;
inline constexpr std::size_t kDescentSteps = 8;

/// Largest |tape - baseline| the shared fixture accepts.
inline constexpr double kBaselineTolerance = 1e-12;
/// Requested central-difference step, in units of each checked element.
inline constexpr double kGradcheckStep = 1e-5;
/// Bound on the scaled error between the analytic and numerical derivative.
inline constexpr double kGradcheckTolerance = 1e-7;
/// Coordinates sampled per check.
inline constexpr std::size_t kGradcheckSamples = 4;

/// The whole chain with fixed arrays and handwritten rules, no tape.
struct HandwrittenModelBaseline {
  std::array<double, 8> gathered;                    ///< X [4, 2]
  std::array<double, 8> projection_preactivations;   ///< XW [4, 2]
  std::array<double, 8> activated;                   ///< SiLU(XW) [4, 2], the loss logits
  std::array<double, 8> log_probabilities;           ///< [4, 2]
  std::array<double, 8> probabilities;               ///< softmax of the logits [4, 2]
  double loss;                                       ///< mean NLL []
  std::array<double, 8> loss_input_gradient;         ///< dL/d logits [4, 2]
  std::array<double, 8> log_softmax_input_gradient;  ///< dL/d logits through log-softmax [4, 2]
  std::array<double, 8> matmul_output_gradient;      ///< through SiLU [4, 2]
  std::array<double, 8> gathered_gradient;           ///< dL/dX [4, 2]
  std::array<double, 6> embedding_gradient;          ///< dL/dE [3, 2]
  std::array<double, 4> weight_gradient;             ///< dL/dW [2, 2]
};

/// The worked chain by hand with projection `weights` [2, 2]: one forward
/// and one reverse pass. The reverse pass goes through the loss and, for the
/// upstream -one_hot / G that sum(mask * log_softmax(Z)) sends, through
/// log-softmax.
HandwrittenModelBaseline handwritten_model_backward(const std::array<double, 4>& weights);

/// The sum of every element of `value`, as one rank-zero tape node: the
/// scalar a reverse pass with seed 1 starts from.
inline llm::TensorValue sum_to_scalar(const llm::TensorValue& value) {
  return value.reshape({value.value().size()}).sum_axis(0);
}

/// One operation call of the forward chain, as the traced passes recorded it.
struct ForwardStep {
  std::string name;                         ///< e.g. `Row gather`
  llm::TensorOperation operation;           ///< the tape operation
  std::string label;                        ///< the result's node label, e.g. `gathered`
  std::vector<std::string> operands;        ///< label of the node in each operand slot
  std::vector<llm::Shape> operand_shapes;   ///< their shapes
  std::vector<std::size_t> consumes;        ///< earlier steps whose result is an operand
  std::vector<std::string> integer_inputs;  ///< IDs or classes it also reads (no gradient)
  llm::Tensor value;                        ///< its result
};

/// The shared fixture's tensors, read from the tape after one traced pass.
struct FrozenModelExample {
  llm::Tensor embeddings;
  std::vector<std::size_t> token_ids;
  llm::Tensor weights;
  std::vector<std::size_t> targets;
  llm::Tensor gathered;
  llm::Tensor projection_preactivations;
  llm::Tensor activated;
  llm::Tensor log_probabilities;
  llm::Tensor loss;
  std::vector<ForwardStep> forward;          ///< gather, matmul, SiLU, log-softmax, NLL
  llm::TensorBackwardTrace backward;         ///< the traced pass from the loss
  std::vector<std::string> backward_labels;  ///< node label of each node of `backward`
  llm::Tensor loss_input_gradient;           ///< pass adjoint of the SiLU output
  llm::Tensor matmul_output_gradient;        ///< pass adjoint of the matmul output
  llm::Tensor gathered_gradient;             ///< pass adjoint of the gathered rows
  llm::Tensor embedding_gradient;
  llm::Tensor weight_gradient;
  double baseline_max_difference;              ///< max |tape - baseline| over every compared tensor
  std::vector<std::string> baseline_compared;  ///< the name of each compared tensor
};

/// Builds the chain on the tape, compares every forward tensor with the
/// baseline, reverses the loss with backward_with_trace, reads the SiLU,
/// matmul and gather pass adjoints from the trace and compares them and both
/// parameter gradients with the baseline. The chain's tape nodes are labelled
/// embeddings, weights, gathered, preactivations, activated,
/// log_probabilities and loss; `forward` and `backward_labels` name nodes by
/// these labels, and each step's operands come from the traced passes (the
/// log-softmax branch, which the loss does not reach, from a zero-seeded
/// traced pass after every gradient was read).
/// @throws std::runtime_error naming the tensor if any differs by more than
///         kBaselineTolerance.
FrozenModelExample frozen_model_example();

/// The same chain with kAsymmetricWeightValues, reversed twice on fresh
/// parameters: once through indexed_mean_nll, once through log_softmax and a
/// masked sum that equals the same loss. Every tensor is compared with the
/// handwritten baseline for those weights.
struct AsymmetricChainExample {
  llm::Tensor weights;
  llm::Tensor preactivations;              ///< XW [4, 2], non-zero
  llm::Tensor logits;                      ///< SiLU(XW) [4, 2]
  llm::Tensor probabilities;               ///< softmax of the logits, from the baseline
  double loss;                             ///< indexed mean NLL
  double masked_loss;                      ///< sum(mask * log_softmax(Z)), the same loss
  llm::Tensor nll_logit_gradient;          ///< pass adjoint of Z, through indexed_mean_nll
  llm::Tensor log_softmax_logit_gradient;  ///< pass adjoint of Z, through log_softmax
  llm::Tensor through_silu;                ///< pass adjoint of XW
  llm::Tensor through_sigmoid_only;        ///< what a SiLU rule of sigmoid(x) alone would send
  llm::Tensor embedding_gradient;
  llm::Tensor weight_gradient;
  double baseline_max_difference;              ///< max |tape - baseline| over every compared tensor
  std::vector<std::string> baseline_compared;  ///< the name of each compared tensor
};

/// @throws std::runtime_error naming the tensor if any differs from the
///         baseline by more than kBaselineTolerance.
AsymmetricChainExample asymmetric_chain_example();

/// Chapter 13's logits and targets as a tape parameter: the indexed mean
/// NLL's gradient against (softmax - one_hot) / rows written out by hand.
struct Chapter13NllExample {
  llm::Tensor logits;
  std::vector<std::size_t> targets;
  double loss;
  llm::Tensor tape_gradient;
  llm::Tensor handwritten_gradient;
  double max_difference;
};

/// @throws std::runtime_error if the two gradients differ by more than kBaselineTolerance.
Chapter13NllExample chapter13_nll_example();

/// Plain gradient descent on the shared chain: kDescentSteps steps of
/// kLearningRate, each a fresh forward pass, backward() and an update of E and W.
struct GradientDescentExample {
  double learning_rate;
  std::vector<double> losses;  ///< before each step, then after the last (kDescentSteps + 1)
  llm::Tensor final_embeddings;
  llm::Tensor final_weights;
  llm::Tensor final_probabilities;  ///< softmax of the final logits [4, 2]
};

GradientDescentExample gradient_descent_example();

/// A value and local derivative read from the tape at one scalar input.
struct ScalarProbe {
  std::string operation;  ///< exp, log, silu
  std::string label;      ///< the probe as printed, e.g. `exp(0)`
  double input;
  double output;
  double gradient;
};

/// exp(0), log(1) and silu(0): each value and its derivative from one backward().
std::vector<ScalarProbe> scalar_probes();

/// One sampled check of one VJP.
struct NamedModelGradcheck {
  std::string operation;   ///< matmul-left, matmul-right, gather_rows, exp, ...
  std::string expression;  ///< the checked scalar objective, e.g. `sum(w * (p @ R))`
  llm::Tensor input;       ///< the checked parameter p
  llm::Tensor weights;     ///< w, the operation's upstream (shape of its output)
  llm::Tensor analytic;    ///< p's gradient from the tape
  llm::TensorGradientCheck report;
};

/// The eight sampled checks: both matmul parents, gather_rows, exp, log,
/// silu, log_softmax and indexed_mean_nll (kGradcheckStep, kGradcheckTolerance,
/// kGradcheckSamples). Each reverses sum(w * op(p)) with fixed weights w that
/// are not all equal, so every VJP receives a non-trivial upstream; the
/// numerical side computes the same weighted sum with the plain kernels.
std::vector<NamedModelGradcheck> model_vjp_gradchecks();

/// A rejected model-operation request.
struct ModelErrorCase {
  std::string label;            ///< invalid-id, invalid-target, empty-targets, exp-overflow
  std::string error_type;       ///< ModelOpError, TensorError or TensorAutodiffError
  std::string kind;             ///< the kind's kebab-case name
  std::string message;          ///< what()
  std::string parameter;        ///< the parameter whose gradient the request touched
  llm::Tensor gradient_before;  ///< that gradient, stored by a real backward pass
  bool gradients_unchanged;     ///< every watched gradient kept its bits
};

/// Four failures after real backward passes stored gradients: an
/// out-of-bounds token ID, an out-of-range target class, an empty target set
/// and an overflowing exp; each compares gradient bits before and after.
/// @throws std::runtime_error if a request is accepted.
std::vector<ModelErrorCase> model_error_example();

}  // namespace ch16
