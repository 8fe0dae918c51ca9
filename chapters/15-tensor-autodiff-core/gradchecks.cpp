// The seven sampled VJP checks of chapter 15: see fixtures.hpp.
#include <functional>
#include <string>
#include <utility>

#include "fixtures.hpp"
#include "llm/tensor/broadcast.hpp"
#include "llm/tensor/elementwise.hpp"
#include "llm/tensor/reduction.hpp"

namespace ch15 {

using llm::Retention;
using llm::Shape;
using llm::Tensor;
using llm::TensorValue;

namespace {

// Deterministic checked values with mixed signs: -1.0, 0.4, -0.4, 1.0, 0.2, ...
Tensor checked_input(const Shape& shape) {
  Tensor input = Tensor::zeros(shape);
  std::span<double> values = input.mutable_values();
  for (std::size_t k = 0; k < values.size(); ++k) {
    values[k] = static_cast<double>(static_cast<int>((k * 7) % 11) - 5) * 0.2;
  }
  return input;
}

// A seed that is not all ones: 0.5, -0.75, 1.0, -1.25, ... A VJP that ignored
// its upstream (or summed it with the wrong weights) cannot match it.
Tensor nontrivial_seed(const Shape& shape) {
  Tensor seed = Tensor::zeros(shape);
  std::span<double> values = seed.mutable_values();
  for (std::size_t k = 0; k < values.size(); ++k) {
    const double magnitude = 0.5 + 0.25 * static_cast<double>(k);
    values[k] = (k % 2 == 0) ? magnitude : -magnitude;
  }
  return seed;
}

// The other operand of add and multiply: 0.5, 0.75, 1.0, ...
Tensor other_operand(const Shape& shape) {
  Tensor other = Tensor::zeros(shape);
  std::span<double> values = other.mutable_values();
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = 0.5 + 0.25 * static_cast<double>(k);
  return other;
}

// seed · output: the scalar whose gradient with respect to p is the VJP of seed.
double weighted_sum(const Tensor& seed, const Tensor& output) {
  double total = 0.0;
  for (std::size_t k = 0; k < seed.size(); ++k) total += seed.values()[k] * output.values()[k];
  return total;
}

}  // namespace

// region: tensor-vjp-gradchecks
// Reverses `on_tape(p)` with a non-trivial seed and compares p's gradient
// with sampled central differences of seed · forward(p). The numerical side
// never touches the tape: `forward` calls the plain tensor kernels.
VjpCheck check_vjp(std::string operation, std::string expression, const Shape& input_shape,
                   const std::function<TensorValue(const TensorValue&)>& on_tape,
                   const std::function<Tensor(const Tensor&)>& forward) {
  Tensor input = checked_input(input_shape);
  const TensorValue p = TensorValue::parameter(input);
  const TensorValue output = on_tape(p);
  Tensor seed = nontrivial_seed(output.shape());
  output.backward_with_seed(seed, Retention::Release);
  Tensor analytic = *p.gradient();
  Tensor probed = input;
  llm::TensorGradientCheck report = llm::sampled_tensor_gradient_check(
      probed, analytic.view(), kGradcheckStep, kGradcheckTolerance, kGradcheckSamples,
      [&](const Tensor& candidate) { return weighted_sum(seed, forward(candidate)); });
  return {std::move(operation), std::move(expression), std::move(input),
          std::move(seed),      std::move(analytic),   std::move(report)};
}

std::vector<VjpCheck> vjp_gradchecks() {
  const Tensor add_other = other_operand({2, 4});
  const Tensor mul_other = other_operand({1, 3});
  std::vector<VjpCheck> checks;
  checks.push_back(check_vjp(
      "add", "c[2,4] + p[4]", {4},
      [&](const TensorValue& p) { return TensorValue::constant(add_other).add(p); },
      [&](const Tensor& p) { return llm::add(add_other.view(), p.view()); }));
  checks.push_back(check_vjp(
      "multiply", "p[4,1] * c[1,3]", {4, 1},
      [&](const TensorValue& p) { return p.mul(TensorValue::constant(mul_other)); },
      [&](const Tensor& p) { return llm::mul(p.view(), mul_other.view()); }));
  checks.push_back(check_vjp(
      "reshape", "reshape(p[2,3], [3,2])", {2, 3},
      [](const TensorValue& p) {
        return p.reshape({3, 2});
      },
      [](const Tensor& p) {
        return p.view().reshape({3, 2}).materialize();
      }));
  checks.push_back(check_vjp(
      "transpose", "transpose(p[2,3,2], 0, 2)", {2, 3, 2},
      [](const TensorValue& p) { return p.transpose(0, 2); },
      [](const Tensor& p) { return p.view().transpose(0, 2).materialize(); }));
  checks.push_back(check_vjp(
      "broadcast", "broadcast_to(p[2,1,2], [2,3,2])", {2, 1, 2},
      [](const TensorValue& p) {
        return p.broadcast_to({2, 3, 2});
      },
      [](const Tensor& p) {
        return p.view().broadcast_to({2, 3, 2}).materialize();
      }));
  checks.push_back(check_vjp(
      "sum", "sum_axis(p[2,3], 0, keep_dim=false)", {2, 3},
      [](const TensorValue& p) { return p.sum_axis(0, llm::KeepDim::No); },
      [](const Tensor& p) { return llm::sum_axis(p.view(), 0, llm::KeepDim::No); }));
  checks.push_back(check_vjp(
      "mean", "mean_axis(p[2,3], 1, keep_dim=true)", {2, 3},
      [](const TensorValue& p) { return p.mean_axis(1, llm::KeepDim::Yes); },
      [](const Tensor& p) { return llm::mean_axis(p.view(), 1, llm::KeepDim::Yes); }));
  return checks;
}
// endregion: tensor-vjp-gradchecks

}  // namespace ch15
