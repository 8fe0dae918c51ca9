// The worked examples of chapter 25: one feature vector through RMSNorm
// composed from small tape operations, every intermediate kept, and reversed
// from an upstream; the same input through the fused rms_norm operation; what
// multiplying the input by ten does with and without epsilon; a zero row and
// a two-row batch; BatchNorm, LayerNorm and RMSNorm of one anchor row; the
// layer's refusals; and central-difference checks of the fused operation's
// gradients. Each returns plain data the demo prints or traces.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "llm/tensor/tensor.hpp"

namespace ch25 {

inline constexpr double kEpsilon = 1e-5;
inline constexpr double kScaleFactor = 10.0;
inline constexpr double kGradcheckStep = 1e-6;
inline constexpr double kGradcheckTolerance = 2e-6;
inline constexpr std::array<double, 2> kInput = {3.0, 4.0};
inline constexpr std::array<double, 2> kGain = {1.5, 0.5};
inline constexpr std::array<double, 2> kUpstream = {1.0, -2.0};
/// A row whose mean square (1.25e-7) is far below epsilon.
inline constexpr std::array<double, 2> kTinyInput = {3e-4, 4e-4};
/// Where a decoder lists this layer's parameters (chapter 31's first block).
inline constexpr const char* kLayerPrefix = "decoder.block.0.attention_norm";

/// Every node of one RMSNorm pass and the adjoints its reverse pass left.
/// A fused pass has no intermediates: `composed` is false and mean_square,
/// inverse_rms and normalized are left default.
struct NormPass {
  bool composed = false;
  llm::Tensor input{}, gain{}, upstream{};
  llm::Tensor mean_square{}, inverse_rms{}, normalized{};  ///< composed pass only
  llm::Tensor output{}, input_gradient{}, gain_gradient{};
  std::size_t tape_nodes = 0;  ///< nodes the reverse pass visited, leaves included
};

/// RMSNorm(x; g, epsilon) composed from mul, mean_axis, add, rsqrt and mul
/// (RmsNorm::forward_with_intermediates), reversed from `upstream`.
NormPass composed_pass(const llm::Tensor& input, const llm::Tensor& gain,
                       const llm::Tensor& upstream);
/// The same through the fused operation (RmsNorm::forward: one node).
NormPass fused_pass(const llm::Tensor& input, const llm::Tensor& gain, const llm::Tensor& upstream);

/// The chapter's worked pass (composed) and what the demo prints about it.
struct WorkedEvidence {
  NormPass pass{};
  std::string gain_name{};          ///< the gain's full name under kLayerPrefix
  bool gain_excluded_from_decay{};  ///< the optimizer's groups keep it out of decay
  double normalized_mean_square{};  ///< mean of normalized^2, plain arithmetic
};
WorkedEvidence worked_evidence();

/// How (m + epsilon)^(-1/2) is computed: the library's rsqrt operation
/// (exp(-log(m + epsilon) / 2), the earlier edition's form), or
/// 1.0 / std::sqrt(m + epsilon) in the fixture, correctly rounded.
enum class InverseRoot { Library, CorrectlyRounded };

/// The normalized (gain one) values of a row and of the row times kScaleFactor.
struct ScaleProbe {
  double epsilon{}, factor{};
  std::vector<double> row{}, base{}, scaled{};
  double max_abs_diff{};
};
ScaleProbe scale_probe(const std::array<double, 2>& row, double epsilon, InverseRoot how);

/// How often scaling a row by `factor` changes the bits of its normalized
/// values (epsilon 0), over `rows` rows of width 4 drawn uniformly from
/// [-1, 1) with SplitMix64(seed), for each way of computing the root; and
/// how often, and by how many units in the last place, the two roots of the
/// unscaled rows' mean squares differ.
struct InvarianceCount {
  double factor{};
  std::size_t rows{}, library_changed{}, correctly_rounded_changed{};
  std::size_t roots_differ{};
  std::uint64_t largest_root_ulps{};
};
InvarianceCount invariance_count(double factor, std::size_t rows, std::uint64_t seed);

/// The mean of normalized^2 (gain one, kEpsilon) for rows s * kInput whose
/// RMS spans several decades around sqrt(epsilon).
struct EpsilonCurvePoint {
  double rms{}, normalized_mean_square{};
};
std::vector<EpsilonCurvePoint> epsilon_curve();

/// The fused layer on an all-zero row and on the rows [3, 4] and [0, 5].
struct ZeroAndBatch {
  llm::Tensor zero_output{}, batch_input{}, batch_output{};
};
ZeroAndBatch zero_and_batch();

/// The anchor row [1, 3] normalized three ways.
struct HistoryEvidence {
  std::array<double, 2> anchor{}, companion_a{}, companion_b{};
  std::vector<double> batch_anchor_a{}, batch_anchor_b{};  ///< BatchNorm, two different companions
  std::vector<double> layer_norm{};                        ///< LayerNorm of the anchor alone
  std::vector<double> rms_norm{};  ///< RMSNorm (epsilon 0) of the anchor alone
  double rms_mean{};               ///< the RMSNorm output's mean
};
HistoryEvidence history_evidence();

/// One refused request: the library's kind name and its message.
struct Refusal {
  std::string request{}, kind{}, message{};
};
/// A rank-zero input, three features for a gain of two, a zero row with
/// epsilon 0, and a negative epsilon, in that order.
std::vector<Refusal> refusals();

/// Central differences of <RMSNorm(x; g), u> in x and in g, against the
/// fused operation's gradients.
struct GradientCheckEvidence {
  std::size_t input_checks{}, gain_checks{};
  bool passed{};
  double largest_scaled_error{};
};
GradientCheckEvidence gradient_check_evidence();

/// Whether two runs of worked_evidence() agree bit for bit.
bool worked_pass_replays_bitwise();

}  // namespace ch25
