// The worked examples of chapter 30: one causal multi-head attention layer
// (width 4, 2 heads of width 2, rotary base 100, 6 positions) with identity
// Q/K/V projections and an output projection that swaps the two heads'
// blocks, run on one three-token input; every intermediate, a weighted loss
// and its five gradients; a changed last token, a shifted offset and a
// changed head-0 feature; the shapes accepted and the requests refused; and
// central differences of all 76 gradient coordinates. Each returns plain
// data the demo prints and traces.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "demo_refusal.hpp"
#include "llm/attention/attention_error.hpp"
#include "llm/attention/multi_head_attention.hpp"
#include "llm/autograd/gradcheck.hpp"
#include "llm/tensor/tensor.hpp"

namespace ch30 {

inline constexpr std::size_t kBatch = 1;
inline constexpr std::size_t kTokens = 3;
inline constexpr std::size_t kModelWidth = 4;  ///< D
inline constexpr std::size_t kHeads = 2;       ///< H, so Dh = 2
inline constexpr std::size_t kCapacity = 6;    ///< positions the rotary table holds
inline constexpr std::size_t kShift = 3;       ///< the offset of the shifted run
inline constexpr double kRopeBase = 100.0;

using Matrix = std::array<double, kModelWidth * kModelWidth>;
/// W_Q = W_K = W_V = I: each head sees its own two input features.
inline constexpr Matrix kIdentity = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
/// W_O: merged features 0, 1 (head 0) go to outputs 2, 3 and 2, 3 (head 1) to 0, 1.
inline constexpr Matrix kBlockSwap = {0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0};
inline constexpr std::array<double, kTokens* kModelWidth> kUpstream = {
    1.0, -0.5, 0.25, 0.75, -0.3, 0.8, 1.2, -0.4, 0.6, 0.1, -0.7, 0.9};
/// The last token's features after the change of the prefix check.
inline constexpr std::array<double, kModelWidth> kChangedLastToken = {3.0, -2.0, -1.0, 4.0};
/// The seed of the trace's second layer, drawn with Xavier-uniform weights.
inline constexpr std::uint64_t kAsymmetricSeed = 30;

inline constexpr double kGradcheckStep = 1e-6;
inline constexpr double kGradcheckTolerance = 8e-6;
inline constexpr double kInvariantTolerance = 1e-12;

/// The input [1, 3, 4]: rows [1, 0, 1, 0], [cos 1, -sin 1, 0, 1] and
/// [cos 2, -sin 2, 1, 1]. Head 0's pair at position t is (cos t, -sin t),
/// which RoPE turns back to [1, 0]; head 1's pairs differ by position.
llm::Tensor worked_input();

/// A layer from four [4, 4] weights, two heads, the chapter's rotary table.
llm::MultiHeadAttention layer_from(const Matrix& query, const Matrix& key, const Matrix& value,
                                   const Matrix& output);

/// One forward and reverse pass and the checks on it.
struct AttentionEvidence {
  llm::Tensor input, query_heads, key_heads, value_heads, rotated_query_heads, rotated_key_heads;
  llm::Tensor weights, head_outputs, merged, output_weight, output;
  llm::Tensor upstream;
  double loss = 0.0;
  llm::Tensor input_gradient;
  std::vector<llm::Tensor> weight_gradients;  ///< query, key, value, output
  llm::Tensor prefix_perturbed_output;        ///< the last token changed to kChangedLastToken
  bool head_0_uniform = false;                ///< head 0's rows are 1, 1/2 1/2, 1/3 1/3 1/3
  bool head_1_distinct = false;               ///< head 1's weights differ from head 0's
  bool future_probabilities_zero = false;     ///< every weight above the diagonal is exactly 0
  bool position_0_unchanged = false, position_1_unchanged = false, position_2_changed = false;
  bool split_merge_bitwise = false;              ///< merge(split(X)) has X's bits
  bool head_isolation_before_output = false;     ///< a head-0 feature moves head 0's outputs only
  bool common_offset_weights_preserved = false;  ///< weights at offset kShift match offset 0
  bool tape_finite = false;
};
AttentionEvidence attention_evidence();

/// The parameter list of the layer under the prefix `attention`.
struct ParameterEvidence {
  std::vector<std::string> names;
  std::vector<llm::Shape> shapes;
  std::size_t count = 0;
  bool bias_free = false, node_distinct = false;
};
ParameterEvidence parameter_evidence();

/// Output shapes for an empty batch and for one token at position 2.
struct ShapeEvidence {
  llm::Shape empty_batch_weights, empty_batch_output, single_token_weights;
};
ShapeEvidence shape_evidence();

/// The requests the layer refuses, in the printed order.
struct RefusalEvidence {
  std::vector<demo::Rejection<llm::AttentionError>> refusals;
  demo::Rejection<llm::TensorAutodiffError> released;  ///< a pass through a released input
};
RefusalEvidence refusal_evidence();
inline constexpr std::array<llm::AttentionErrorKind, 9> kExpectedRefusals = {
    llm::AttentionErrorKind::ZeroModelWidth,    llm::AttentionErrorKind::ZeroHeads,
    llm::AttentionErrorKind::WidthNotDivisible, llm::AttentionErrorKind::OddHeadWidth,
    llm::AttentionErrorKind::InputRank,         llm::AttentionErrorKind::InputWidthMismatch,
    llm::AttentionErrorKind::EmptyKeys,         llm::AttentionErrorKind::PositionRange,
    llm::AttentionErrorKind::PositionRange};

/// Central differences of the loss in the input and in each weight.
struct GradientCheckEvidence {
  std::vector<llm::TensorGradientCheck> checks;  ///< input, query, key, value, output
  std::size_t total = 0;
  bool passed = false;
};
GradientCheckEvidence gradient_check_evidence(const AttentionEvidence& printed);

/// Attention as one distribution per target: the earlier weighted context,
/// and one causal head over the full width against the two heads.
struct HistoryEvidence {
  std::array<double, 2> earlier_weighted_context{};  ///< 0.25 [1, 0] + 0.75 [0, 1]
  llm::Shape single_head_shape, multi_head_shape;
  std::size_t single_head_tables = 0, multi_head_tables = 0;
  bool rows_normalized = false;
  llm::Tensor single_head_weights;
};
HistoryEvidence history_evidence(const AttentionEvidence& printed);

/// The same input through a layer with Xavier-uniform weights (seed
/// kAsymmetricSeed), and the exchange of W_Q and W_K in both layers.
struct SwapEvidence {
  llm::Tensor query_weight, key_weight;
  llm::Tensor weights, output, swapped_output;  ///< swapped: W_Q and W_K exchanged
  bool printed_swap_identical = false;          ///< the identity layer cannot tell
  double swap_max_difference = 0.0;             ///< in the seeded layer
};
SwapEvidence swap_evidence();

/// Whether two runs of attention_evidence agree bit for bit.
bool attention_replays_bitwise();

}  // namespace ch30
