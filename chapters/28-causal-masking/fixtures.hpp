// The worked examples of chapter 28: chapter 27's head over three tokens
// under a causal mask, forward and reverse; a change to the last key and
// value that must leave the first two outputs bit for bit as they were; a
// seed on the first two outputs that must send nothing to the third token;
// one token; an empty batch; the refusals; a check that every number the
// reverse pass touched is finite; the mask written three ways (fused, an
// additive -inf mask before a plain softmax, a 0/1 keep mask on the tape)
// and compared bit for bit; and a central-difference check against causal
// attention written with plain loops.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "demo_attention_check.hpp"
#include "demo_refusal.hpp"
#include "llm/tensor/tensor.hpp"

namespace ch28 {

/// Q, K, V [1, 3, 2]: chapter 27's two tokens and a third.
inline constexpr std::array<double, 6> kQuery = {0.0, 3.0, 2.0, -1.0, 1.0, 1.0};
inline constexpr std::array<double, 6> kKey = {3.0, 0.0, -1.0, 2.0, 2.0, 1.0};
inline constexpr std::array<double, 6> kValue = {3.0, -3.0, 1.0, 3.0, -2.0, 4.0};
/// The seed of the printed reverse pass: L = sum(O * O-bar).
inline constexpr std::array<double, 6> kUpstream = {1.0, -0.5, 0.25, 2.0, -1.0, 0.75};
/// A seed on the outputs of positions 0 and 1 only.
inline constexpr std::array<double, 6> kPrefixUpstream = {1.0, -1.0, 0.5, 2.0, 0.0, 0.0};
/// The last key and value replaced: positions 0 and 1 must not notice.
inline constexpr std::array<double, 6> kPerturbedKey = {3.0, 0.0, -1.0, 2.0, -2.0, 4.0};
inline constexpr std::array<double, 6> kPerturbedValue = {3.0, -3.0, 1.0, 3.0, 5.0, -1.0};
inline constexpr double kGradcheckStep = 1e-6;
inline constexpr double kGradcheckTolerance = 4e-6;

/// One causal pass over kQuery, kKey and `value`, forward and reverse from `upstream`.
struct CausalEvidence {
  llm::Tensor query{}, key{}, value{};
  llm::Tensor additive_mask{};  ///< the textbook 0 / -inf mask [3, 3], for printing
  llm::Tensor scores{}, scaled_scores{}, weights{}, output{};
  double scale = 0.0;
  std::vector<double> row_sums{};
  llm::Tensor upstream{};
  double loss = 0.0;
  llm::Tensor query_gradient{}, key_gradient{}, value_gradient{};
  bool tape_finite = false;          ///< every value, adjoint and contribution of the pass
  bool future_weights_zero = false;  ///< every masked weight has the bits of +0.0
};
CausalEvidence causal_evidence(const std::array<double, 6>& upstream);

/// The last key and value replaced, and a seed on the first two outputs only.
struct PrefixEvidence {
  llm::Tensor perturbed_output{};
  bool position_0_unchanged = false, position_1_unchanged = false, position_2_changed = false;
  llm::Tensor seed{}, query_gradient{}, key_gradient{}, value_gradient{};
  bool suffix_gradient_zero = false;  ///< position 2's rows of all three gradients are +0.0
};
PrefixEvidence prefix_evidence();

/// One token under the mask: weight 1, zero query and key gradients.
struct SingleTokenEvidence {
  llm::Tensor additive_mask{}, weights{}, output{};
  bool query_gradient_zero = false, key_gradient_zero = false;
};
SingleTokenEvidence single_token_evidence();

/// [0, 3, 2] inputs: the weights and output keep their shapes.
struct EmptyBatchEvidence {
  llm::Shape weights{}, output{};
  bool valid = false;
};
EmptyBatchEvidence empty_batch_evidence();

/// One refused call: the kind expected, the kind thrown, the message.
using Refusal = demo::KindRefusal;
/// empty tokens, softmax rank, softmax shape, query rank, token mismatch,
/// released score: in the printed order.
std::vector<Refusal> refusal_evidence();

/// The same masked softmax written three ways and compared with the fused one.
struct MaskFormsEvidence {
  llm::Tensor fused{};         ///< causal_softmax(S)
  llm::Tensor additive{};      ///< softmax(S + M) with M = 0 / -inf, written out
  llm::Tensor keep{};          ///< exp((S - m) * M) * M / sum, M = 0 / 1, on the tape
  llm::Tensor zeroed_after{};  ///< softmax(S) * M: the future zeroed after an unmasked softmax
  std::vector<double> zeroed_after_row_sums{};
  bool additive_bits_equal = false, keep_bits_equal = false;
  llm::Tensor fused_gradient{}, keep_gradient{};  ///< dL/dS for the printed seed
  bool gradient_bits_equal = false;
  double gradient_largest_difference = 0.0;
  std::string additive_on_tape_refusal{};    ///< what the tape says to a -inf constant
  std::string additive_in_kernel_refusal{};  ///< what the softmax kernel says to a -inf score
};
MaskFormsEvidence mask_forms_evidence();

/// Central differences of sum(O * O-bar), with causal attention as plain
/// loops: Q, K and V checked coordinate by coordinate.
using GradientCheckEvidence = demo::AttentionGradientCheck;
GradientCheckEvidence gradient_check_evidence(const CausalEvidence& primary);

/// Whether two runs of the printed pass agree bit for bit.
bool replays_bitwise();

}  // namespace ch28
