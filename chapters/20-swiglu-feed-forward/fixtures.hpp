// The worked examples of chapter 20: a SwiGLU block with fixed weights
// (model width 2, hidden width 3) on a two-position input, its gradients for
// an upstream adjoint, an activation contrast, shape and identity checks,
// position independence, and the requests the block rejects. An asymmetric
// input and upstream are computed too, since the worked ones are identities.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "llm/nn/swiglu.hpp"
#include "llm/tensor/tensor.hpp"

namespace ch20 {

/// Gate and up weights [2, 3], down weight [3, 2], row-major.
inline constexpr std::array<double, 6> kGateWeight = {-1, 0, 1, 0, 1, -1};
inline constexpr std::array<double, 6> kUpWeight = {1, 2, 3, 3, 2, 1};
inline constexpr std::array<double, 6> kDownWeight = {1, 0, 0, 1, 1, -1};
/// The worked input [2, 2] (two positions) and upstream adjoint [2, 2].
inline constexpr std::array<double, 4> kInput = {1, 0, 0, 1};
inline constexpr std::array<double, 4> kUpstream = {1, 0, 0, 1};
/// The input with position 0 changed (position 1 kept).
inline constexpr std::array<double, 4> kPerturbedInput = {0, 0, 0, 1};
/// An input and upstream with no symmetry, for the trace.
inline constexpr std::array<double, 4> kAsymmetricInput = {0.5, -1, 2, 0.25};
inline constexpr std::array<double, 4> kAsymmetricUpstream = {1, -0.5, 0.25, 2};

/// The block with the fixed weights.
llm::SwiGlu known_block();

/// One forward and reverse pass of the known block.
struct WorkedPass {
  llm::Tensor input, gate_preactivation, gate, up, product, output, upstream;
  llm::Tensor input_gradient, gate_weight_gradient, up_weight_gradient, down_weight_gradient;
};
WorkedPass worked_pass(const std::array<double, 4>& input, const std::array<double, 4>& upstream);

/// tanh, ReLU and SiLU (through the tape) at each input.
struct ActivationContrast {
  std::vector<double> inputs, tanh, relu, silu;
};
ActivationContrast activation_contrast(const std::vector<double>& inputs);

/// Shapes, identity, independence and errors.
struct BlockChecks {
  std::vector<std::string> parameter_names;  ///< under the prefix `ffn`
  std::size_t parameter_count = 0;
  bool has_bias = true;
  llm::Shape vector_shape, sequence_shape, batch_shape, empty_shape;
  std::size_t empty_value_count = 0;
  bool initialized_reproducible = false;  ///< seed 20 twice gives the same bits
  bool copy_shares_parameters = false;
  std::vector<double> unchanged_before, unchanged_after;  ///< position 1's output
  bool position_independent = false;
  bool scalar_rejected = false, width_rejected = false, hidden_rejected = false;
};
BlockChecks block_checks();

}  // namespace ch20
