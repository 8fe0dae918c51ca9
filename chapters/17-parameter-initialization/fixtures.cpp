// Chapter 17 fixtures (see fixtures.hpp).
#include "fixtures.hpp"

#include <functional>
#include <stdexcept>

namespace ch17 {

using llm::ParameterSet;
using llm::SplitMix64;
using llm::Tensor;
using llm::TensorValue;

// region: fixed-seed-parameter
SeededProjection seeded_projection(std::uint64_t seed) {
  SplitMix64 generator(seed);
  ParameterSet parameters;
  TensorValue weight = llm::add_xavier_uniform(parameters, kProjectionName, 2, 2, generator);
  return {parameters, weight, generator};
}
// endregion: fixed-seed-parameter

// region: zero-symmetry-probe
SymmetryProbe symmetry_probe(const Tensor& first_layer) {
  const TensorValue input = TensorValue::constant(Tensor({1, 2}, {1.0, -1.0}));
  const TensorValue w1 = TensorValue::parameter(first_layer);
  const TensorValue w2 = TensorValue::constant(Tensor({2, 1}, {1.0, 1.0}));
  const TensorValue output = input.matmul(w1).silu().matmul(w2);  // [1, 1]
  output.backward_with_seed(Tensor({1, 1}, {1.0}), llm::Retention::Release);

  SymmetryProbe probe;
  probe.output = output.value().at(std::vector<std::size_t>{0, 0});
  probe.first_layer_gradient = *w1.gradient();
  const auto g = probe.first_layer_gradient.values();  // row-major [[g00, g01], [g10, g11]]
  probe.columns_equal = g[0] == g[1] && g[2] == g[3];
  return probe;
}
// endregion: zero-symmetry-probe

namespace {
template <class Call>
void expect_refusal(Refusals& refusals, Call&& call) {
  try {
    call();
  } catch (const llm::Error& error) {
    refusals.kinds.emplace_back(error.kind_name());
    refusals.messages.emplace_back(error.what());
    return;
  }
  throw std::logic_error("an initializer accepted a request it must refuse");
}
}  // namespace

// region: initialization-errors
Refusals refused_requests(ParameterSet& model, SplitMix64& generator) {
  Refusals refusals;
  const std::uint64_t before = generator.state();
  expect_refusal(refusals,  // an upper-case letter is outside the name grammar
                 [&] { llm::add_xavier_uniform(model, "Decoder.weight", 2, 2, generator); });
  expect_refusal(refusals,  // the name is already taken
                 [&] { llm::add_xavier_uniform(model, kProjectionName, 2, 2, generator); });
  expect_refusal(
      refusals,  // a matrix that reads no input has no scale
      [&] { llm::add_xavier_uniform(model, "decoder.invalid.weight", 0, 2, generator); });
  refusals.generator_unchanged = generator.state() == before;
  return refusals;
}
// endregion: initialization-errors

}  // namespace ch17
