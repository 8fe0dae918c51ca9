// The linear layer (chapter 19): checks, then chapter 16's matmul and add.
#include "llm/nn/linear.hpp"

#include <utility>

namespace llm {

// region: linear-construct
Linear::Linear(TensorValue weight, std::optional<TensorValue> bias)
    : weight_(std::move(weight)), bias_(std::move(bias)) {
  // region: linear-parameter-checks
  if (!weight_.is_parameter())
    throw LayerError(LayerErrorKind::NotAParameter, {.role = "linear weight"});
  const Shape shape = weight_.shape();
  if (shape.size() != 2) throw LayerError(LayerErrorKind::WeightRank, {.shape = shape});
  if (shape[0] == 0) throw LayerError(LayerErrorKind::ZeroInputWidth, {.shape = shape});
  if (shape[1] == 0) throw LayerError(LayerErrorKind::ZeroOutputWidth, {.shape = shape});
  input_width_ = shape[0];
  output_width_ = shape[1];
  if (bias_) {
    if (!bias_->is_parameter())
      throw LayerError(LayerErrorKind::NotAParameter, {.role = "linear bias"});
    const Shape bias_shape = bias_->shape();
    if (bias_shape.size() != 1) throw LayerError(LayerErrorKind::BiasRank, {.shape = bias_shape});
    if (bias_shape[0] != output_width_) {
      throw LayerError::bias_width_mismatch(bias_shape, output_width_);
    }
  }
  // endregion: linear-parameter-checks
}

Linear Linear::initialized(std::size_t input_width, std::size_t output_width, Bias bias,
                           SplitMix64& generator) {
  if (input_width == 0)
    throw LayerError(LayerErrorKind::ZeroInputWidth, {.shape = Shape{input_width, output_width}});
  if (output_width == 0)
    throw LayerError(LayerErrorKind::ZeroOutputWidth, {.shape = Shape{input_width, output_width}});
  SplitMix64 trial = generator;
  TensorValue weight = TensorValue::parameter(xavier_uniform(input_width, output_width, trial));
  std::optional<TensorValue> bias_value;
  if (bias == Bias::Yes) bias_value = TensorValue::parameter(Tensor::zeros(Shape{output_width}));
  Linear layer(std::move(weight), std::move(bias_value));
  generator = trial;
  return layer;
}
// endregion: linear-construct

// region: linear-forward
TensorValue Linear::forward(const TensorValue& input) const {
  const Shape shape = input.shape();
  if (shape.empty()) throw LayerError(LayerErrorKind::InputRank, {.shape = shape});
  if (shape.back() != input_width_) throw LayerError::input_width_mismatch(shape, input_width_);
  if (shape.size() == 1) {  // a single vector: one row through, then back to [out]
    return forward(input.reshape(Shape{1, input_width_})).reshape(Shape{output_width_});
  }
  const TensorValue projected = input.matmul(weight_);  // [..., in] x [in, out] -> [..., out]
  return bias_ ? projected.add(*bias_) : projected;     // [out] broadcast over every row
}
// endregion: linear-forward

std::size_t Linear::parameter_count() const noexcept {
  return input_width_ * output_width_ + (bias_ ? output_width_ : 0);
}

ParameterSet Linear::parameters() const {
  ParameterSet set;
  set.add("weight", weight_);
  if (bias_) set.add("bias", *bias_);
  return set;
}

}  // namespace llm
