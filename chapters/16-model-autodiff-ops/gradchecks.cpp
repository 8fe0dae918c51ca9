// The eight sampled VJP checks of chapter 16: see fixtures.hpp.
#include <cmath>
#include <functional>
#include <utility>

#include "fixtures.hpp"
#include "llm/tensor/matmul.hpp"
#include "llm/tensor/probability.hpp"

namespace ch16 {

using llm::Retention;
using llm::Tensor;
using llm::TensorValue;

namespace {

// The sum of every element, as one rank-zero tape node.
TensorValue sum_to_scalar(const TensorValue& value) {
  return value.reshape({value.value().size()}).sum_axis(0);
}

double sum_of(const Tensor& tensor) {
  double total = 0.0;
  for (double value : tensor.values()) total += value;
  return total;
}

// Reverses `on_tape(p)` (a rank-zero objective) and compares p's gradient
// with sampled central differences of `objective`, which computes the same
// scalar with the plain tensor kernels and never touches the tape.
NamedModelGradcheck sampled_model_check(
    std::string operation, std::string expression, Tensor input,
    const std::function<TensorValue(const TensorValue&)>& on_tape,
    const std::function<double(const Tensor&)>& objective) {
  const TensorValue p = TensorValue::parameter(input);
  on_tape(p).backward_with_seed(Tensor::scalar(1.0), Retention::Release);
  Tensor analytic = *p.gradient();
  Tensor probed = input;
  llm::TensorGradientCheck report = llm::sampled_tensor_gradient_check(
      probed, analytic.view(), kGradcheckStep, kGradcheckTolerance, kGradcheckSamples, objective);
  return {std::move(operation), std::move(expression), std::move(input), std::move(analytic),
          std::move(report)};
}

}  // namespace

// region: model-vjp-gradchecks
std::vector<NamedModelGradcheck> model_vjp_gradchecks() {
  const Tensor left({2, 2}, {0.4, -0.7, 1.2, 0.3});
  const Tensor right({2, 2}, {0.2, -0.4, 0.9, 0.5});
  std::vector<NamedModelGradcheck> checks;
  checks.push_back(sampled_model_check(
      "matmul-left", "sum(p @ R)", left,
      [&](const TensorValue& p) { return sum_to_scalar(p.matmul(TensorValue::constant(right))); },
      [&](const Tensor& p) { return sum_of(llm::matmul(p.view(), right.view())); }));
  checks.push_back(sampled_model_check(
      "matmul-right", "sum(L @ p)", right,
      [&](const TensorValue& p) { return sum_to_scalar(TensorValue::constant(left).matmul(p)); },
      [&](const Tensor& p) { return sum_of(llm::matmul(left.view(), p.view())); }));

  const std::vector<std::size_t> ids = {2, 1, 2};  // row 2 twice: its gradient is 2
  checks.push_back(sampled_model_check(
      "gather_rows", "sum(gather_rows(p, [2, 1, 2]))",
      Tensor({3, 2}, {0.2, -0.4, 0.7, 1.1, -0.3, 0.6}),
      [&](const TensorValue& p) { return sum_to_scalar(p.gather_rows(ids, {3})); },
      [&](const Tensor& p) {
        double total = 0.0;
        for (std::size_t id : ids) total += p.values()[id * 2] + p.values()[id * 2 + 1];
        return total;
      }));

  const auto elementwise_sum = [](const Tensor& p, double (*function)(double)) {
    double total = 0.0;
    for (double value : p.values()) total += function(value);
    return total;
  };
  checks.push_back(sampled_model_check(
      "exp", "sum(exp(p))", Tensor({3}, {-0.8, 0.2, 1.1}),
      [](const TensorValue& p) { return sum_to_scalar(p.exp()); },
      [&](const Tensor& p) { return elementwise_sum(p, [](double x) { return std::exp(x); }); }));
  checks.push_back(sampled_model_check(
      "log", "sum(log(p))", Tensor({3}, {0.4, 1.1, 2.3}),
      [](const TensorValue& p) { return sum_to_scalar(p.log()); },
      [&](const Tensor& p) { return elementwise_sum(p, [](double x) { return std::log(x); }); }));
  checks.push_back(sampled_model_check(
      "silu", "sum(silu(p))", Tensor({3}, {-0.8, 0.2, 1.1}),
      [](const TensorValue& p) { return sum_to_scalar(p.silu()); },
      [&](const Tensor& p) {
        return elementwise_sum(p, [](double x) { return x * llm::stable_sigmoid(x); });
      }));

  const Tensor logits({2, 3}, {0.7, -0.4, 1.1, -0.2, 0.3, 0.8});
  const Tensor weights({2, 3}, {0.2, -0.5, 0.7, 1.1, -0.4, 0.3});  // so every class matters
  checks.push_back(sampled_model_check(
      "log_softmax", "sum(log_softmax(p, 1) * W)", logits,
      [&](const TensorValue& p) {
        return sum_to_scalar(p.log_softmax(1).mul(TensorValue::constant(weights)));
      },
      [&](const Tensor& p) {
        const Tensor output = llm::log_softmax(p.view(), 1);
        double total = 0.0;
        for (std::size_t k = 0; k < output.size(); ++k) {
          total += output.values()[k] * weights.values()[k];
        }
        return total;
      }));
  const std::vector<std::size_t> targets = {2, 0};
  checks.push_back(sampled_model_check(
      "indexed_mean_nll", "indexed_mean_nll(p, 1, [2, 0])", logits,
      [&](const TensorValue& p) { return p.indexed_mean_nll(1, targets); },
      [&](const Tensor& p) { return llm::indexed_mean_nll(p.view(), 1, targets); }));
  return checks;
}
// endregion: model-vjp-gradchecks

}  // namespace ch16
