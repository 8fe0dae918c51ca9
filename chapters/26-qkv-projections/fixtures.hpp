// The worked examples of chapter 26: one hidden-state sequence [1, 2, 3]
// projected into a query, a key and a value by three bias-free weights, and
// reversed through one scalar objective; each branch's share of the input's
// adjoint; a two-item batch whose items differ; empty batch and token axes;
// changing one weight; seeded initialization; the layer's refusals; the
// three projections as one wide product; additive attention of the earlier
// era on a toy decoder state; and central-difference checks. Each returns
// plain data the demo prints or traces.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "llm/tensor/tensor.hpp"

namespace ch26 {

/// X [1, 2, 3]: one batch item, two tokens of three features.
inline constexpr std::array<double, 6> kInput = {1.0, 2.0, -1.0, 0.0, 1.0, 2.0};
/// W_Q, W_K, W_V [3, 2], row-major: row i reads input feature i.
inline constexpr std::array<double, 6> kQueryWeight = {1.0, 0.0, 0.0, 1.0, 1.0, -1.0};
inline constexpr std::array<double, 6> kKeyWeight = {0.0, 1.0, 1.0, 0.0, -1.0, 1.0};
inline constexpr std::array<double, 6> kValueWeight = {1.0, 1.0, 1.0, -1.0, 0.0, 2.0};
/// U_Q, U_K, U_V [1, 2, 2]: the objective is <Q, U_Q> + <K, U_K> + <V, U_V>.
inline constexpr std::array<double, 4> kQueryUpstream = {1.0, 0.0, -1.0, 2.0};
inline constexpr std::array<double, 4> kKeyUpstream = {0.5, -1.0, 1.0, 0.0};
inline constexpr std::array<double, 4> kValueUpstream = {2.0, 1.0, 0.0, -0.5};
/// The trace's second batch item: other tokens, so a batch bug shows.
inline constexpr std::array<double, 6> kSecondItem = {2.0, -1.0, 0.0, 1.0, 1.0, -3.0};
inline constexpr std::array<double, 4> kSecondQueryUpstream = {0.0, 1.0, 2.0, -1.0};
inline constexpr std::array<double, 4> kSecondKeyUpstream = {-1.0, 0.5, 0.0, 1.0};
inline constexpr std::array<double, 4> kSecondValueUpstream = {1.0, 0.0, -2.0, 0.5};
/// Where a decoder lists this layer's parameters (chapter 31's first block).
inline constexpr const char* kLayerPrefix = "decoder.block.0.attention";
inline constexpr std::uint64_t kSeed = 26;
inline constexpr double kGradcheckStep = 1e-6;
inline constexpr double kGradcheckTolerance = 2e-6;

/// The three weights and the three upstream adjoints of one reverse pass.
struct Weights {
  std::array<double, 6> query{}, key{}, value{};
};
struct Upstreams {
  std::vector<double> query{}, key{}, value{};
};

/// One forward and reverse pass through the three projections.
struct ProjectionPass {
  llm::Tensor input{}, query_weight{}, key_weight{}, value_weight{};
  llm::Tensor query{}, key{}, value{};
  llm::Tensor query_upstream{}, key_upstream{}, value_upstream{};
  double objective{};  ///< <Q, U_Q> + <K, U_K> + <V, U_V>
  llm::Tensor input_gradient{};
  llm::Tensor query_weight_gradient{}, key_weight_gradient{}, value_weight_gradient{};
  std::vector<std::string> parameter_names{};  ///< under kLayerPrefix, in declaration order
  std::size_t parameter_count{};
};
ProjectionPass projection_pass(const llm::Tensor& input, const Weights& weights,
                               const Upstreams& upstreams);
/// The printed case: kInput, the three chapter weights, the three upstreams.
ProjectionPass worked_pass();

/// Each branch's share of the input's adjoint, reversed on its own:
/// U_Q W_Q^T, U_K W_K^T, U_V W_V^T. The worked input_gradient is their sum.
struct BranchShares {
  llm::Tensor query{}, key{}, value{};
};
BranchShares branch_shares();

/// The worked pass on a two-item batch [2, 2, 3] (kInput, then kSecondItem)
/// and on each item alone.
struct BatchEvidence {
  ProjectionPass batch{}, first{}, second{};
};
BatchEvidence batch_evidence();

/// The three output shapes for an input of `shape` (zeros).
std::array<llm::Shape, 3> output_shapes(const llm::Shape& shape);

/// The worked input through the chapter layer and through a layer whose
/// query weight differs in one entry.
struct IndependenceEvidence {
  bool query_changed{}, key_unchanged{}, value_unchanged{};
};
IndependenceEvidence independence_evidence();

/// QkvProjections::initialized(3, 2, SplitMix64(kSeed)), run twice, and a
/// refused initialization with head width 0.
struct InitializationEvidence {
  llm::Tensor query_weight{}, key_weight{}, value_weight{};
  bool reproducible{};   ///< two runs give the same bits and generator state
  bool independent{};    ///< three distinct nodes with pairwise different values
  bool transactional{};  ///< the refused call left the generator as it was
};
InitializationEvidence initialization_evidence();

/// One refused request: what was asked, the library's kind name, its message.
struct Refusal {
  std::string request{}, kind{}, message{};
};
/// The refusals, each checked for its expected kind and evidence.
struct ErrorEvidence {
  bool rank{}, width{}, model_mismatch{}, head_mismatch{}, duplicate_name{}, shared_weight{},
      bias{};
  std::vector<Refusal> refusals{};
};
ErrorEvidence error_evidence();

/// The three projections as one product with the [D, 3 Dh] concatenation
/// [W_Q | W_K | W_V] (GPT-2's layout), compared bit for bit with the three
/// separate products, on a seeded input [2, 5, 16] and Dh = 8.
struct WideProductEvidence {
  llm::Shape input{}, wide_weight{};
  std::size_t compared{}, differing{};
};
WideProductEvidence wide_product_evidence();

/// Additive attention (Bahdanau et al.) on a toy case: one decoder state s
/// scores three encoder annotations h_j with v^T tanh(W s + U h_j), and the
/// softmax of the scores mixes the annotations themselves.
struct AdditiveAttention {
  std::string query_source{}, key_value_source{};  ///< where each role's vectors come from
  std::vector<double> decoder_state{}, scores{}, weights{}, context{};
  std::vector<std::vector<double>> annotations{};
};
AdditiveAttention additive_attention();
/// Where self-attention's three roles come from: one sequence.
inline constexpr const char* kSelfAttentionSource = "hidden_sequence";

/// Central differences of the worked objective in X, W_Q, W_K and W_V.
struct GradientCheckEvidence {
  std::size_t input_checks{}, query_checks{}, key_checks{}, value_checks{};
  bool passed{};
  double largest_scaled_error{};
};
GradientCheckEvidence gradient_check_evidence();

/// Whether two runs of worked_pass() agree bit for bit.
bool worked_pass_replays_bitwise();

}  // namespace ch26
