// The RMSNorm layer (chapter 25): a checked gain, the fused operation, and
// the same normalization composed from smaller operations.
#include "llm/nn/rms_norm.hpp"

#include <cmath>
#include <utility>

#include "llm/autograd/elementwise_ops.hpp"
#include "llm/autograd/rms_norm_op.hpp"

namespace llm {

// region: rms-norm-construct
RmsNorm::RmsNorm(TensorValue gain, double epsilon) : gain_(std::move(gain)), epsilon_(epsilon) {
  if (!gain_.is_parameter())
    throw LayerError(LayerErrorKind::NotAParameter, {.role = "RMSNorm gain"});
  const Shape shape = gain_.shape();
  if (shape.size() != 1) throw LayerError(LayerErrorKind::GainRank, {.shape = shape});
  if (shape[0] == 0) throw LayerError(LayerErrorKind::ZeroGainWidth, {.shape = shape});
  if (!std::isfinite(epsilon) || epsilon < 0.0) {
    throw LayerError(LayerErrorKind::InvalidEpsilon, {.value = epsilon});
  }
  width_ = shape[0];
}

RmsNorm RmsNorm::initialized(std::size_t width, double epsilon) {
  if (width == 0) throw LayerError(LayerErrorKind::ZeroGainWidth, {.shape = Shape{0}});
  Tensor ones = Tensor::zeros(Shape{width});
  for (double& value : ones.mutable_values()) value = 1.0;
  return RmsNorm(TensorValue::parameter(std::move(ones)), epsilon);
}
// endregion: rms-norm-construct

// region: rms-norm-forward-layer
TensorValue RmsNorm::forward(const TensorValue& input) const {
  return rms_norm(input, gain_, epsilon_);
}
// endregion: rms-norm-forward-layer

// region: rms-norm-composed
RmsNormPass RmsNorm::forward_with_intermediates(const TensorValue& input) const {
  check_rms_norm_operands(input.shape(), gain_.shape(), epsilon_);
  const std::size_t feature_axis = input.rank() - 1;
  const TensorValue mean_square = input.mul(input).mean_axis(feature_axis, KeepDim::Yes);
  if (epsilon_ == 0.0) {  // 0^(-1/2) is infinite: the same refusal as the fused operation
    const Tensor squares = mean_square.value().materialize();
    for (std::size_t row = 0; row < squares.size(); ++row) {
      if (squares.values()[row] == 0.0) {
        throw DecoderOpError(DecoderOpErrorKind::RmsNormZeroEnergyRow,
                             {.shape = input.shape(), .row = row});
      }
    }
  }
  const TensorValue inverse_rms =
      rsqrt(mean_square.add(TensorValue::constant(Tensor::scalar(epsilon_))));
  const TensorValue normalized = input.mul(inverse_rms);  // [..., D] * [..., 1]
  return {mean_square, inverse_rms, normalized, normalized.mul(gain_)};
}
// endregion: rms-norm-composed

ParameterSet RmsNorm::parameters() const {
  ParameterSet set;
  set.add("gain", gain_);
  return set;
}

}  // namespace llm
