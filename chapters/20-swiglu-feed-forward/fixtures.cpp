// The worked examples of chapter 20.
#include "fixtures.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace ch20 {

namespace {

llm::Tensor tensor(llm::Shape shape, std::span<const double> values) {
  return llm::Tensor(std::move(shape), std::vector<double>(values.begin(), values.end()));
}

llm::Linear projection(llm::Shape shape, std::span<const double> values) {
  return llm::Linear(llm::TensorValue::parameter(tensor(std::move(shape), values)), std::nullopt);
}

llm::Tensor value_of(const llm::TensorValue& node) {
  return node.value().materialize();
}

bool same_bits(const llm::Tensor& a, const llm::Tensor& b) {
  if (a.shape() != b.shape()) return false;
  return std::ranges::equal(a.values(), b.values(), [](double x, double y) {
    return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y);
  });
}

}  // namespace

// region: known-swiglu
llm::SwiGlu known_block() {
  return llm::SwiGlu(projection({2, 3}, kGateWeight), projection({2, 3}, kUpWeight),
                     projection({3, 2}, kDownWeight));
}
// endregion: known-swiglu

// region: worked-pass
WorkedPass worked_pass(const std::array<double, 4>& input_values,
                       const std::array<double, 4>& upstream_values) {
  const llm::SwiGlu block = known_block();  // fresh weights: gradients start at zero
  const llm::TensorValue input = llm::TensorValue::parameter(tensor({2, 2}, input_values));
  const llm::SwiGluPass pass = block.forward_with_intermediates(input);
  const llm::Tensor upstream = tensor({2, 2}, upstream_values);
  pass.output.backward_with_seed(upstream, llm::Retention::Retain);
  return {value_of(input),
          value_of(pass.gate_preactivation),
          value_of(pass.gate),
          value_of(pass.up),
          value_of(pass.product),
          value_of(pass.output),
          upstream,
          *input.gradient(),
          *block.gate().weight().gradient(),
          *block.up().weight().gradient(),
          *block.down().weight().gradient()};
}
// endregion: worked-pass

// region: activation-contrast
ActivationContrast activation_contrast(const std::vector<double>& inputs) {
  ActivationContrast contrast{inputs, {}, {}, {}};
  for (double x : inputs) {
    contrast.tanh.push_back(std::tanh(x));      // Bengio et al.'s hidden layer
    contrast.relu.push_back(std::max(x, 0.0));  // the original Transformer's FFN
  }
  const llm::TensorValue values = llm::TensorValue::constant(llm::Tensor({inputs.size()}, inputs));
  const llm::Tensor silu = value_of(values.silu());  // the gate of this chapter
  contrast.silu.assign(silu.values().begin(), silu.values().end());
  return contrast;
}
// endregion: activation-contrast

// region: block-checks
BlockChecks block_checks() {
  const llm::SwiGlu block = known_block();
  BlockChecks checks;
  llm::ParameterSet model;
  model.add_all("ffn", block.parameters());
  for (const llm::NamedParameter& entry : model) checks.parameter_names.push_back(entry.name);
  checks.parameter_count = block.parameter_count();
  checks.has_bias = block.gate().bias() || block.up().bias() || block.down().bias();
  const auto shape_for = [&](llm::Shape shape, std::vector<double> values) {
    return block
        .forward(llm::TensorValue::constant(llm::Tensor(std::move(shape), std::move(values))))
        .shape();
  };
  checks.vector_shape = shape_for({2}, {1, 0});
  checks.sequence_shape = shape_for({2, 2}, {1, 0, 0, 1});
  checks.batch_shape = shape_for({1, 2, 2}, {1, 0, 0, 1});
  const llm::Tensor empty =
      value_of(block.forward(llm::TensorValue::constant(llm::Tensor({0, 2}, {}))));
  checks.empty_shape = empty.shape();
  checks.empty_value_count = empty.size();

  llm::SplitMix64 first(20);
  llm::SplitMix64 second(20);
  const llm::SwiGlu a = llm::SwiGlu::initialized(2, 3, 2, first);
  const llm::SwiGlu b = llm::SwiGlu::initialized(2, 3, 2, second);
  const llm::SwiGlu copy = a;
  checks.initialized_reproducible = true;
  checks.copy_shares_parameters = true;
  // Each set is kept in a variable: parameters() returns it by value, and a
  // reference into a temporary set would dangle (ParameterSet's operator[]
  // is deleted on a temporary for that reason).
  const llm::ParameterSet of_a = a.parameters();
  const llm::ParameterSet of_b = b.parameters();
  const llm::ParameterSet of_copy = copy.parameters();
  for (std::size_t i = 0; i < 3; ++i) {
    const llm::TensorValue& left = of_a[i].parameter;
    checks.initialized_reproducible =
        checks.initialized_reproducible && same_bits(value_of(left), value_of(of_b[i].parameter));
    checks.copy_shares_parameters =
        checks.copy_shares_parameters && left.is_same_node(of_copy[i].parameter);
  }

  // Change position 0 of the input; position 1's output must keep its bits.
  const llm::Tensor before =
      value_of(block.forward(llm::TensorValue::constant(tensor({2, 2}, kInput))));
  const llm::Tensor after =
      value_of(block.forward(llm::TensorValue::constant(tensor({2, 2}, kPerturbedInput))));
  checks.unchanged_before = {before.values()[2], before.values()[3]};
  checks.unchanged_after = {after.values()[2], after.values()[3]};
  checks.position_independent = same_bits(llm::Tensor({2}, checks.unchanged_before),
                                          llm::Tensor({2}, checks.unchanged_after));

  const auto rejected_by_gate = [&](llm::Tensor input, llm::LayerErrorKind kind) {
    try {
      block.forward(llm::TensorValue::constant(std::move(input)));
    } catch (const llm::LayerError& error) {
      return error.kind() == kind;
    }
    return false;
  };
  checks.scalar_rejected =
      rejected_by_gate(llm::Tensor::scalar(1.0), llm::LayerErrorKind::InputRank);
  checks.width_rejected =
      rejected_by_gate(llm::Tensor({1, 3}, {0, 0, 0}), llm::LayerErrorKind::InputWidthMismatch);
  try {
    llm::SwiGlu(projection({2, 3}, std::vector<double>(6)),
                projection({2, 4}, std::vector<double>(8)),
                projection({3, 2}, std::vector<double>(6)));
  } catch (const llm::SwiGluError& error) {
    checks.hidden_rejected = error.kind() == llm::SwiGluErrorKind::HiddenWidthMismatch;
  }
  return checks;
}
// endregion: block-checks

}  // namespace ch20
