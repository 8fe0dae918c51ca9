// The worked examples of chapter 24: one residual connection y = x + F(x)
// around a square bias-free linear branch, forward and reverse; the same
// branch with zero weights; a broadcastable branch the merge must refuse;
// four plain and four residual layers stacked; and a central-difference
// check of the merge's gradients. Each returns plain data the demo prints.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "llm/tensor/tensor.hpp"

namespace ch24 {

inline constexpr std::array<double, 2> kInput = {2.0, -1.0};
/// The branch weight [2, 2], row-major: F(x) = x W.
inline constexpr std::array<double, 4> kWeight = {0.5, -1.0, 2.0, 0.25};
/// Every stacked layer's weight: -0.25 times the identity.
inline constexpr std::array<double, 4> kStackWeight = {-0.25, 0.0, 0.0, -0.25};
inline constexpr std::array<double, 2> kUpstream = {1.0, 1.0};
/// The trace's second upstream: unequal and of mixed sign, so a reverse pass
/// that ignores the upstream or swaps its coordinates shows.
inline constexpr std::array<double, 2> kAsymmetricUpstream = {1.5, -2.0};
inline constexpr std::size_t kStackDepth = 4;
inline constexpr double kGradcheckStep = 1e-6;
inline constexpr double kGradcheckTolerance = 2e-6;

/// One merge, forward and reverse.
struct MergeEvidence {
  std::string branch_parameter_name;
  llm::Tensor input, branch_weight, branch_output, residual_output, upstream;
  llm::Tensor identity_gradient;      ///< what the identity path hands to x: the upstream itself
  llm::Tensor branch_input_gradient;  ///< J_F(x)^T upstream, from a pass through the branch alone
  llm::Tensor input_gradient;         ///< x's stored gradient after the pass through y
  llm::Tensor weight_gradient;        ///< W's stored gradient
};
/// y = x + x W with W = `weight`, reversed from `upstream`.
MergeEvidence merge_evidence(const std::array<double, 4>& weight,
                             const std::array<double, 2>& upstream);

/// A [2] branch offered to a [2, 2] stream.
struct ShapeEvidence {
  llm::Shape identity, branch;
  bool generic_add_broadcasts = false;  ///< the plain add accepted the pair
  bool residual_rejected = false;       ///< residual_add threw ResidualError ShapeMismatch
  std::string message;                  ///< its what()
};
ShapeEvidence shape_evidence();

/// The value after each depth, 0 to kStackDepth, and the input's gradient.
struct StackEvidence {
  std::vector<llm::Tensor> values;
  llm::Tensor input_gradient;
  std::vector<std::string> parameter_names;
  bool parameter_gradients_nonzero = false;  ///< every layer's weight got a finite nonzero gradient
};
StackEvidence stack_evidence(bool residual);

/// Sampled central differences of sum((x + x W)^2) in x and in W.
struct GradientCheckEvidence {
  std::size_t input_checks = 0, weight_checks = 0;
  bool passed = false;
};
GradientCheckEvidence gradient_check_evidence();

/// Whether two runs of merge_evidence agree bit for bit.
bool merge_replays_bitwise();

}  // namespace ch24
