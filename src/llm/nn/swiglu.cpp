// The SwiGLU feed-forward block (chapter 20): three linear layers of
// chapter 19 and chapter 16's SiLU and product.
#include "llm/nn/swiglu.hpp"

#include <utility>

namespace llm {

std::string SwiGluErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "gate_width") return std::to_string(evidence.gate_width);
  if (field == "up_width") return std::to_string(evidence.up_width);
  if (field == "down_width") return std::to_string(evidence.down_width);
  error_detail::unknown_field(area, field);
}

// region: swiglu-construct
SwiGlu::SwiGlu(Linear gate, Linear up, Linear down)
    : gate_(std::move(gate)), up_(std::move(up)), down_(std::move(down)) {
  if (gate_.bias() || up_.bias() || down_.bias()) {
    throw SwiGluError(SwiGluErrorKind::BiasNotAllowed);
  }
  if (gate_.input_width() != up_.input_width()) {
    throw SwiGluError(SwiGluErrorKind::InputWidthMismatch,
                      {.gate_width = gate_.input_width(), .up_width = up_.input_width()});
  }
  if (gate_.output_width() != up_.output_width()) {
    throw SwiGluError(SwiGluErrorKind::HiddenWidthMismatch,
                      {.gate_width = gate_.output_width(), .up_width = up_.output_width()});
  }
  if (down_.input_width() != gate_.output_width()) {
    throw SwiGluError(SwiGluErrorKind::DownWidthMismatch,
                      {.gate_width = gate_.output_width(), .down_width = down_.input_width()});
  }
}

SwiGlu SwiGlu::initialized(std::size_t input_width, std::size_t hidden_width,
                           std::size_t output_width, SplitMix64& generator) {
  SplitMix64 trial = generator;  // copied back only when all three exist
  Linear gate = Linear::initialized(input_width, hidden_width, Bias::No, trial);
  Linear up = Linear::initialized(input_width, hidden_width, Bias::No, trial);
  Linear down = Linear::initialized(hidden_width, output_width, Bias::No, trial);
  SwiGlu block(std::move(gate), std::move(up), std::move(down));
  generator = trial;
  return block;
}
// endregion: swiglu-construct

// region: swiglu-forward
SwiGluPass SwiGlu::forward_with_intermediates(const TensorValue& input) const {
  const TensorValue gate_preactivation = gate_.forward(input);  // checks the input first
  const TensorValue gate = gate_preactivation.silu();           // a * sigmoid(a)
  const TensorValue up = up_.forward(input);
  const TensorValue product = gate.mul(up);  // same shape: no broadcast
  return {gate_preactivation, gate, up, product, down_.forward(product)};
}

TensorValue SwiGlu::forward(const TensorValue& input) const {
  return forward_with_intermediates(input).output;
}
// endregion: swiglu-forward

std::size_t SwiGlu::parameter_count() const noexcept {
  return gate_.parameter_count() + up_.parameter_count() + down_.parameter_count();
}

ParameterSet SwiGlu::parameters() const {
  ParameterSet set;
  set.add_all("gate", gate_.parameters());
  set.add_all("up", up_.parameters());
  set.add_all("down", down_.parameters());
  return set;
}

}  // namespace llm
