// The worked examples of chapter 31: one pre-norm decoder block on three
// tokens of width four, built from unit RMSNorm gains and identity
// projections (the reference edition's fixture); the order, causality,
// parameter and gradient evidence the demo prints; the refusals; the
// post-norm and recurrent contrasts of the history section; and an
// asymmetric block, for the trace, that shows the wiring bugs the identity
// fixture cannot.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "llm/models/decoder_block.hpp"
#include "llm/tensor/tensor.hpp"

namespace ch31 {

inline constexpr std::size_t kBatch = 1;
inline constexpr std::size_t kTokens = 3;
inline constexpr std::size_t kModelWidth = 4;
inline constexpr std::size_t kHeads = 2;
inline constexpr std::size_t kFeedForwardWidth = 4;
inline constexpr std::size_t kContext = 6;  ///< positions the rotary tables hold
inline constexpr double kRopeBase = 100.0;
inline constexpr double kEpsilon = 0.0;  ///< RMSNorm's epsilon: every input row has RMS 1
inline constexpr double kStep = 1e-6;    ///< the central-difference step
inline constexpr double kTolerance = 2e-5;
inline constexpr double kLayerNormEpsilon = 1e-5;  ///< the post-norm contrast's LayerNorm

/// The input [1, 3, 4]: token t is 2 e_t.
inline constexpr std::array<double, 12> kInput = {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0};
/// The replacement of the last token for the causality probe.
inline constexpr std::array<double, 4> kPerturbedLastToken = {1, -1, 1, 1};
/// The loss is sum(output * kUpstream): every output coordinate gets its own weight.
inline constexpr std::array<double, 12> kUpstream = {1.0, -0.5, 0.25, 0.75, -0.3, 0.8,
                                                     1.2, -0.4, 0.6,  0.1,  -0.7, 0.9};
/// A fixed [4, 3] read-out of the output, for the probe logits.
inline constexpr std::array<double, 12> kProbeWeight = {1, 0, -1, 0, 1, -1, 1, 1, 0, -1, 0, 1};
/// The asymmetric input of the trace's wiring probe.
inline constexpr std::array<double, 12> kAsymmetricInput = {1.0,  -0.5, 0.25,  2.0,  0.5, 1.5,
                                                            -1.0, 0.0,  -0.25, 0.75, 1.0, -1.5};

/// The nine parameter values of a block in its parameters() order:
/// attention-norm gain, query, key, value, output, feed-forward-norm gain,
/// gate, up, down.
using BlockWeights = std::vector<llm::Tensor>;

/// The reference fixture: gains of ones, every projection the identity.
BlockWeights identity_weights();
/// The trace's asymmetric block: Xavier weights from SplitMix64(31) and
/// two different gains.
BlockWeights asymmetric_weights();
/// A block whose parameters are fresh copies of `weights`.
llm::DecoderBlock block_from(const BlockWeights& weights);

/// Every stage of one pass, the loss sum(output * kUpstream) and its gradients.
struct BlockRun {
  llm::Tensor input, attention_norm, attention_weights, attention_branch, after_attention,
      feed_forward_norm, feed_forward_branch, output, probe_logits;
  double loss = 0.0;
  llm::Tensor input_gradient;
  std::vector<llm::Tensor> parameter_gradients;  ///< in parameters() order
  bool tape_finite = false;  ///< every value, adjoint and gradient of the pass is finite
};
BlockRun run_block(const BlockWeights& weights, const std::array<double, 12>& input);

/// The printed order, causality and history evidence.
struct OrderEvidence {
  bool first_residual_exact = false;   ///< after_attention == input + attention, bit for bit
  bool second_residual_exact = false;  ///< output == after_attention + feed-forward
  llm::Tensor post_norm_first_stage;   ///< LayerNorm(x + MHA(x)), the original order
  bool post_norm_differs = false;
  bool post_norm_rows_normalized = false;  ///< each post-norm row has mean 0 and variance ~1
  llm::Tensor perturbed_output;            ///< the output with the last token replaced
  bool prefix_unchanged[2] = {false, false};
  bool suffix_changed = false;
  bool future_probabilities_zero = false;
};
OrderEvidence order_evidence(const BlockRun& run);

/// Names, counts and identity of the block's parameters.
struct ParameterEvidence {
  std::vector<std::string> names;
  std::vector<llm::Shape> shapes;
  std::size_t tensors = 0, scalars = 0;
  bool bias_free = false, stable_order = false, distinct = false;
};
ParameterEvidence parameter_evidence();

/// Central differences of the loss at every input and parameter coordinate.
struct GradientEvidence {
  std::size_t input_checks = 0;
  std::vector<std::size_t> parameter_checks;  ///< per tensor, in parameters() order
  std::size_t parameter_total = 0;
  double worst_abs_difference = 0.0;  ///< the largest |analytic - numerical| seen
  bool passed = false;
};
GradientEvidence gradient_evidence(const BlockRun& run);

/// One refusal the demo asks for: its label, the error's kind and message.
struct Refusal {
  std::string label, kind, message;
};
/// configuration (three), component_width, input_rank, input_width,
/// empty_tokens, position_range, released_input, in that order.
std::vector<Refusal> refusals();

/// The shapes of an empty batch [0, 3, 4] and of one token at position 2.
std::pair<llm::Shape, llm::Shape> edge_shapes();

/// A serial recurrence h_t = tanh(0.5 x_t + 0.75 h_{t-1}) from h = 0.
std::vector<double> recurrent_states(const std::vector<double>& inputs);

/// One wiring bug: the output with the bug, against the correct output.
struct WiringProbe {
  std::string bug;
  bool identity_fixture_detects = false;
  bool asymmetric_fixture_detects = false;
  double identity_max_difference = 0.0, asymmetric_max_difference = 0.0;
};
/// Swapped norm gains, swapped gate and up, a transposed query weight and
/// post-norm branches, each run on both fixtures.
std::vector<WiringProbe> wiring_probes();

}  // namespace ch31
