// RMSNorm (Zhang and Sennrich, 2019): each row of features divided by its
// root mean square, then scaled by a learned gain. Taught in chapter 25.
//
//     r = (mean_d x_d^2 + epsilon)^(-1/2),     y = (x * r) * g
// r is computed as exp(-log(.) / 2), not as 1 / sqrt(.), for bit agreement
// with the reference edition (llm/autograd/inverse_square_root.hpp).
//
// Unlike LayerNorm it subtracts no mean and adds no bias; unlike BatchNorm it
// reads one row only, so a position's output never depends on the batch.
// forward() is the fused tape operation rms_norm (one node);
// forward_with_intermediates() composes the same arithmetic from chapter 15's
// and chapter 25's operations, keeping every intermediate node, with the same
// forward bits.
#pragma once

#include <cstddef>

#include "llm/autograd/tensor_value.hpp"
#include "llm/nn/layer_error.hpp"
#include "llm/nn/parameter_set.hpp"

namespace llm {

/// Every node of one composed RMSNorm forward pass (chapter 25 prints them).
struct RmsNormPass {
  TensorValue mean_square;  ///< mean_d x_d^2 [..., 1]
  TensorValue inverse_rms;  ///< r = (mean square + epsilon)^(-1/2), as exp(-log(.) / 2) [..., 1]
  TensorValue normalized;   ///< x * r [..., D]
  TensorValue output;       ///< (x * r) * g [..., D]
};

// region: rms-norm-class
/// A learned gain [D] over the last axis of any input [..., D]. Copies share
/// the gain (the same tape parameter).
class RmsNorm {
 public:
  /// Wraps an existing parameter as the gain [D].
  /// @throws LayerError NotAParameter, GainRank, ZeroGainWidth, InvalidEpsilon, in that order.
  RmsNorm(TensorValue gain, double epsilon);

  /// A new layer whose gain is all ones (as in the reference edition and in
  /// Zhang and Sennrich's paper): at initialization the layer only rescales.
  /// Draws nothing from any generator.
  /// @throws LayerError ZeroGainWidth, InvalidEpsilon; TensorError AllocationFailed.
  static RmsNorm initialized(std::size_t width, double epsilon);

  /// y = rms_norm(x, g, epsilon) for x [..., D]: same shape, one tape node.
  /// @throws DecoderOpError RmsNormInputRank, RmsNormWidthMismatch,
  ///         RmsNormZeroEnergyRow (epsilon 0 and an all-zero row), RmsNormOverflow.
  TensorValue forward(const TensorValue& input) const;

  /// The same output composed from mul, mean_axis, add, rsqrt, mul and mul,
  /// keeping every node (same forward bits as forward()).
  /// @throws DecoderOpError as forward().
  RmsNormPass forward_with_intermediates(const TensorValue& input) const;

  /// The gain g [D].
  const TensorValue& gain() const noexcept { return gain_; }
  /// D, the last extent every input must have.
  std::size_t width() const noexcept { return width_; }
  /// The epsilon added to the mean square before the square root.
  double epsilon() const noexcept { return epsilon_; }
  /// The layer's one parameter, named `gain`; a model adds it under its
  /// prefix (`blocks.0.attention_norm.gain`). A gain is not weight-decayed
  /// (chapter 22's groups put it with the exempt names).
  ParameterSet parameters() const;

 private:
  TensorValue gain_;
  double epsilon_ = 0.0;
  std::size_t width_ = 0;
};
// endregion: rms-norm-class

}  // namespace llm
