// The eight sampled VJP checks of chapter 16: see fixtures.hpp.
#include <cmath>
#include <functional>
#include <utility>

#include "fixtures.hpp"
#include "llm/tensor/elementwise.hpp"
#include "llm/tensor/matmul.hpp"
#include "llm/tensor/probability.hpp"

namespace ch16 {

using llm::Retention;
using llm::Tensor;
using llm::TensorValue;

namespace {

// sum(weights * output), element by element: the scalar objective of the
// numerical side.
double weighted_sum(const Tensor& weights, const Tensor& output) {
  double total = 0.0;
  for (std::size_t k = 0; k < weights.size(); ++k) {
    total += weights.values()[k] * output.values()[k];
  }
  return total;
}

// The plain elementwise kernel of `function`, as a numerical-side forward.
std::function<Tensor(const Tensor&)> plain_elementwise(double (*function)(double)) {
  return [function](const Tensor& p) { return llm::map_values(p.view(), function); };
}

}  // namespace

// region: model-vjp-gradchecks
namespace {

// Reverses sum(w * on_tape(p)) and compares p's gradient with sampled central
// differences of sum(w * forward(p)). The weights w are the upstream the
// operation's VJP receives; they differ from element to element, so a rule
// that ignored its upstream, or applied it to the wrong elements, cannot
// pass. `forward` calls the plain tensor kernels and never touches the tape.
NamedModelGradcheck sampled_model_check(
    std::string operation, std::string expression, Tensor input, Tensor weights,
    const std::function<TensorValue(const TensorValue&)>& on_tape,
    const std::function<Tensor(const Tensor&)>& forward) {
  const TensorValue p = TensorValue::parameter(input);
  const TensorValue objective = sum_to_scalar(on_tape(p).mul(TensorValue::constant(weights)));
  objective.backward_with_seed(Tensor::scalar(1.0), Retention::Release);
  Tensor analytic = *p.gradient();
  Tensor probed = input;
  llm::TensorGradientCheck report = llm::sampled_tensor_gradient_check(
      probed, analytic.view(), kGradcheckStep, kGradcheckTolerance, kGradcheckSamples,
      [&](const Tensor& candidate) { return weighted_sum(weights, forward(candidate)); });
  return {std::move(operation), std::move(expression), std::move(input),
          std::move(weights),   std::move(analytic),   std::move(report)};
}

}  // namespace

std::vector<NamedModelGradcheck> model_vjp_gradchecks() {
  const Tensor left({2, 2}, {0.4, -0.7, 1.2, 0.3});
  const Tensor right({2, 2}, {0.2, -0.4, 0.9, 0.5});
  const Tensor product_weights({2, 2}, {0.5, -1.25, 0.25, 1.5});
  std::vector<NamedModelGradcheck> checks;
  checks.push_back(sampled_model_check(
      "matmul-left", "sum(w * (p @ R))", left, product_weights,
      [&](const TensorValue& p) { return p.matmul(TensorValue::constant(right)); },
      [&](const Tensor& p) { return llm::matmul(p.view(), right.view()); }));
  checks.push_back(sampled_model_check(
      "matmul-right", "sum(w * (L @ p))", right, product_weights,
      [&](const TensorValue& p) { return TensorValue::constant(left).matmul(p); },
      [&](const Tensor& p) { return llm::matmul(left.view(), p.view()); }));

  const std::vector<std::size_t> ids = {2, 1, 2};  // row 2 twice: it adds up two rows of w
  checks.push_back(sampled_model_check(
      "gather_rows", "sum(w * gather_rows(p, [2, 1, 2]))",
      Tensor({3, 2}, {0.2, -0.4, 0.7, 1.1, -0.3, 0.6}),
      Tensor({3, 2}, {0.5, -0.25, 1.25, 0.75, -1.5, 2.0}),
      [&](const TensorValue& p) { return p.gather_rows(ids, {3}); },
      [&](const Tensor& p) {  // the selected rows, copied by hand
        std::vector<double> rows;
        for (std::size_t id : ids) {
          rows.insert(rows.end(), {p.values()[id * 2], p.values()[id * 2 + 1]});
        }
        return Tensor({ids.size(), 2}, std::move(rows));
      }));

  const Tensor elementwise_weights({3}, {0.75, -1.25, 0.5});
  checks.push_back(sampled_model_check(
      "exp", "sum(w * exp(p))", Tensor({3}, {-0.8, 0.2, 1.1}), elementwise_weights,
      [](const TensorValue& p) { return p.exp(); },
      plain_elementwise([](double x) { return std::exp(x); })));
  checks.push_back(sampled_model_check(
      "log", "sum(w * log(p))", Tensor({3}, {0.4, 1.1, 2.3}), elementwise_weights,
      [](const TensorValue& p) { return p.log(); },
      plain_elementwise([](double x) { return std::log(x); })));
  checks.push_back(sampled_model_check(
      "silu", "sum(w * silu(p))", Tensor({3}, {-0.8, 0.2, 1.1}), elementwise_weights,
      [](const TensorValue& p) { return p.silu(); },
      plain_elementwise([](double x) { return x * llm::stable_sigmoid(x); })));

  const Tensor logits({2, 3}, {0.7, -0.4, 1.1, -0.2, 0.3, 0.8});
  checks.push_back(sampled_model_check(
      "log_softmax", "sum(w * log_softmax(p, 1))", logits,
      Tensor({2, 3}, {0.2, -0.5, 0.7, 1.1, -0.4, 0.3}),
      [](const TensorValue& p) { return p.log_softmax(1); },
      [](const Tensor& p) { return llm::log_softmax(p.view(), 1); }));
  const std::vector<std::size_t> targets = {2, 0};
  checks.push_back(sampled_model_check(
      "indexed_mean_nll", "sum(w * indexed_mean_nll(p, 1, [2, 0]))", logits,
      Tensor::scalar(1.5),  // the loss is rank 0: one weight, not 1
      [&](const TensorValue& p) { return p.indexed_mean_nll(1, targets); },
      [&](const Tensor& p) {
        return Tensor::scalar(llm::indexed_mean_nll(p.view(), 1, targets));
      }));
  return checks;
}
// endregion: model-vjp-gradchecks

}  // namespace ch16
