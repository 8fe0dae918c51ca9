// The worked examples of chapter 27: one unmasked scaled dot-product
// attention head over chapter 26's query, key and value rows, forward and
// reverse; the same head with a query row changed and an asymmetric seed;
// the scale probe; one token; a batch of two; empty batches; the refusals;
// and a central-difference check against attention written with plain loops.
// Each returns plain data the demo prints or writes to its trace.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "demo_attention_check.hpp"
#include "demo_refusal.hpp"
#include "llm/tensor/tensor.hpp"

namespace ch27 {

/// Q, K, V [1, 2, 2] (B = 1, T = 2, Dk = Dv = 2), row-major: chapter 26's projections.
inline constexpr std::array<double, 4> kQuery = {0.0, 3.0, 2.0, -1.0};
inline constexpr std::array<double, 4> kKey = {3.0, 0.0, -1.0, 2.0};
inline constexpr std::array<double, 4> kValue = {3.0, -3.0, 1.0, 3.0};
/// The printed seed: L = O[0][0] + O[1][1].
inline constexpr std::array<double, 4> kUpstream = {1.0, 0.0, 0.0, 1.0};
/// The trace's second case. With the printed inputs Q K^T happens to be
/// symmetric and the seed is the identity, so a pass that computes K Q^T, or
/// that transposes the seed, prints the same digits; this query (row 1 is
/// chapter 28's third query) and this seed break both symmetries.
inline constexpr std::array<double, 4> kAsymmetricQuery = {0.0, 3.0, 1.0, 1.0};
inline constexpr std::array<double, 4> kAsymmetricUpstream = {1.0, -0.5, 0.25, 2.0};
inline constexpr double kGradcheckStep = 1e-6;
inline constexpr double kGradcheckTolerance = 2e-6;

/// One attention pass, forward and reverse, read back from the tape.
struct AttentionEvidence {
  llm::Tensor query{}, key{}, value{};
  llm::Tensor scores{};         ///< Q K^T [1, 2, 2]
  llm::Tensor scaled_scores{};  ///< Q K^T / sqrt(Dk)
  llm::Tensor weights{};        ///< softmax along the key axis
  llm::Tensor output{};         ///< weights V [1, 2, 2]
  double scale = 0.0;           ///< 1 / sqrt(Dk)
  std::vector<double> row_sums{};
  /// terms[i][j] = weights[i][j] * value row j: the output row i is their sum.
  std::vector<std::vector<std::vector<double>>> terms{};
  llm::Tensor upstream{};  ///< the seed O-bar: L = sum(O * O-bar)
  double loss = 0.0;
  llm::Tensor query_gradient{}, key_gradient{}, value_gradient{};
  /// The output of the bug "scores = K Q^T" (query and key swapped).
  llm::Tensor swapped_scores_output{};
};
AttentionEvidence attention_evidence(const std::array<double, 4>& query,
                                     const std::array<double, 4>& upstream);

/// Q = K = V = I: scores [1, 0] in row 0, before and after the 1/sqrt(2).
struct ScaleEvidence {
  double unscaled_focus = 0.0, scaled_focus = 0.0, orthogonal_probability = 0.0;
  bool softened = false;
};
ScaleEvidence scale_evidence();

/// One token: its only weight is 1, so query and key get zero gradient.
struct SingleTokenEvidence {
  llm::Tensor scores, weights, output;
  bool query_gradient_zero = false, key_gradient_zero = false;
};
SingleTokenEvidence single_token_evidence();

/// A batch of two sequences, empty batches, and a value width of 1.
struct ShapeEvidence {
  llm::Shape batch_query, batch_key, batch_value, batch_weights, batch_output;
  bool isolated = false;  ///< each batch's output has the bits of its own single pass
  llm::Shape empty_weights, empty_output, narrow_value_output;
};
ShapeEvidence shape_evidence();

/// One refused call: the kind expected, the kind thrown, the message.
using Refusal = demo::KindRefusal;
/// query rank, batch, tokens, empty, width: in the printed order.
std::vector<Refusal> refusal_evidence();

/// Central differences of sum(O * O-bar), with attention written as plain
/// loops: Q, K and V checked coordinate by coordinate.
using GradientCheckEvidence = demo::AttentionGradientCheck;
GradientCheckEvidence gradient_check_evidence(const AttentionEvidence& primary);

/// Whether two runs of the printed pass agree bit for bit.
bool replays_bitwise();

}  // namespace ch27
