// Chapter 20 demo: the SwiGLU block with fixed weights on a two-position
// input, every intermediate, the gradients for an identity upstream, the
// activation contrast, shapes, identity, position independence and errors.
// With --trace PATH it also writes the same pass on an asymmetric input and
// upstream, and SiLU, tanh and ReLU on a grid for the figures.
#include <exception>
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "demo_text.hpp"
#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"

namespace {

using demo::Json;
using demo::tensor_json;
using demo::tensor_text;

std::string list_text(const std::vector<double>& values) {
  std::string text;
  for (double value : values) text += (text.empty() ? "" : ",") + llm::format_fixed(value);
  return text;
}

std::string shape_csv(const llm::Shape& shape) {
  std::string text;
  for (std::size_t extent : shape) text += (text.empty() ? "" : ",") + std::to_string(extent);
  return text;
}

const char* bool_text(bool value) {
  return value ? "true" : "false";
}

Json pass_json(const ch20::WorkedPass& pass) {
  return {{"input", tensor_json(pass.input)},
          {"gate_preactivation", tensor_json(pass.gate_preactivation)},
          {"gate", tensor_json(pass.gate)},
          {"up", tensor_json(pass.up)},
          {"product", tensor_json(pass.product)},
          {"output", tensor_json(pass.output)},
          {"upstream", tensor_json(pass.upstream)},
          {"input_gradient", tensor_json(pass.input_gradient)},
          {"gate_weight_gradient", tensor_json(pass.gate_weight_gradient)},
          {"up_weight_gradient", tensor_json(pass.up_weight_gradient)},
          {"down_weight_gradient", tensor_json(pass.down_weight_gradient)}};
}

}  // namespace

// region: learner-swiglu-output
int main(int argc, char** argv) try {
  const auto trace_path = demo::trace_path(argc, argv);
  const ch20::WorkedPass pass = ch20::worked_pass(ch20::kInput, ch20::kUpstream);
  const ch20::ActivationContrast contrast = ch20::activation_contrast({-1.0, 0.0, 1.0});
  const ch20::BlockChecks checks = ch20::block_checks();

  std::cout << "layer: ffn model=2 hidden=3 bias=" << bool_text(checks.has_bias)
            << " parameters=" << checks.parameter_count << '\n';
  std::cout << "input: " << tensor_text(pass.input) << '\n';
  std::cout << "gate pre-activation: " << tensor_text(pass.gate_preactivation) << '\n';
  std::cout << "gate SiLU: " << tensor_text(pass.gate) << '\n';
  std::cout << "up branch: " << tensor_text(pass.up) << '\n';
  std::cout << "elementwise product: " << tensor_text(pass.product) << '\n';
  std::cout << "output: " << tensor_text(pass.output) << '\n';
  std::cout << "activation contrast: input=" << list_text(contrast.inputs)
            << " tanh=" << list_text(contrast.tanh) << " ReLU=" << list_text(contrast.relu)
            << " SiLU=" << list_text(contrast.silu) << '\n';
  std::cout << "upstream: " << tensor_text(pass.upstream) << '\n';
  std::cout << "input gradient: " << tensor_text(pass.input_gradient) << '\n';
  std::cout << "gate weight gradient: " << tensor_text(pass.gate_weight_gradient) << '\n';
  std::cout << "up weight gradient: " << tensor_text(pass.up_weight_gradient) << '\n';
  std::cout << "down weight gradient: " << tensor_text(pass.down_weight_gradient) << '\n';
  std::string names;
  for (const std::string& name : checks.parameter_names) names += (names.empty() ? "" : ",") + name;
  std::cout << "parameter order: " << names << '\n';
  std::cout << "rank variants: [2]->[" << shape_csv(checks.vector_shape) << "] [2,2]->["
            << shape_csv(checks.sequence_shape) << "] [1,2,2]->[" << shape_csv(checks.batch_shape)
            << "]\n";
  std::cout << "initialized: seed=20 weights-reproducible="
            << bool_text(checks.initialized_reproducible) << '\n';
  std::cout << "identity: clone-shares-all-parameters=" << bool_text(checks.copy_shares_parameters)
            << '\n';
  std::cout << "position independence: changed=0 observed=1 before="
            << list_text(checks.unchanged_before) << " after=" << list_text(checks.unchanged_after)
            << " unchanged=" << bool_text(checks.position_independent) << '\n';
  std::cout << "empty leading axis: shape=0x2 -> " << demo::shape_label(checks.empty_shape)
            << " value-count=" << checks.empty_value_count << '\n';
  std::cout << "errors: scalar=" << bool_text(checks.scalar_rejected)
            << " width=" << bool_text(checks.width_rejected)
            << " hidden=" << bool_text(checks.hidden_rejected) << '\n';
  std::cout << "chapter 21 handoff: combine position-wise token losses in deterministic batches\n";

  std::vector<double> grid;
  for (int k = -16; k <= 16; ++k) grid.push_back(k / 4.0);
  const ch20::ActivationContrast curves = ch20::activation_contrast(grid);
  demo::write_trace(
      trace_path,
      {{"weights",
        {{"gate",
          tensor_json(llm::Tensor({2, 3}, {ch20::kGateWeight.begin(), ch20::kGateWeight.end()}))},
         {"up", tensor_json(llm::Tensor({2, 3}, {ch20::kUpWeight.begin(), ch20::kUpWeight.end()}))},
         {"down",
          tensor_json(llm::Tensor({3, 2}, {ch20::kDownWeight.begin(), ch20::kDownWeight.end()}))}}},
       {"worked", pass_json(pass)},
       {"asymmetric",
        pass_json(ch20::worked_pass(ch20::kAsymmetricInput, ch20::kAsymmetricUpstream))},
       {"curves",
        {{"x", curves.inputs},
         {"tanh", curves.tanh},
         {"relu", curves.relu},
         {"silu", curves.silu}}},
       {"unchanged", {{"before", checks.unchanged_before}, {"after", checks.unchanged_after}}}});
  return 0;
} catch (const std::exception& error) {
  std::cerr << "chapter 20 demo failed: " << error.what() << '\n';
  return 1;
}
// endregion: learner-swiglu-output
