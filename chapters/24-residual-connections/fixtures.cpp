// The worked examples of chapter 24.
#include "fixtures.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>

#include "llm/autograd/gradcheck.hpp"
#include "llm/autograd/tensor_value.hpp"
#include "llm/nn/linear.hpp"
#include "llm/nn/parameter_set.hpp"
#include "llm/nn/residual.hpp"

namespace ch24 {

namespace {

llm::Tensor vector2(const std::array<double, 2>& values) {
  return llm::Tensor(llm::Shape{2}, {values[0], values[1]});
}

llm::Tensor matrix2(const std::array<double, 4>& values) {
  return llm::Tensor(llm::Shape{2, 2}, {values.begin(), values.end()});
}

llm::Tensor value_of(const llm::TensorValue& value) {
  return value.value().materialize();
}

// A bias-free square branch F(x) = x W, its weight listed under `prefix`.
llm::Linear named_branch(llm::ParameterSet& set, const std::string& prefix,
                         const std::array<double, 4>& weight) {
  llm::Linear branch(llm::TensorValue::parameter(matrix2(weight)), std::nullopt);
  set.add_all(prefix, branch.parameters());
  return branch;
}

bool all_finite_some_nonzero(const llm::Tensor& tensor) {
  bool finite = true, nonzero = false;
  for (double value : tensor.values()) {
    finite = finite && std::isfinite(value);
    nonzero = nonzero || value != 0.0;
  }
  return finite && nonzero;
}

}  // namespace

// region: residual-fixture
MergeEvidence merge_evidence(const std::array<double, 4>& weight,
                             const std::array<double, 2>& upstream) {
  llm::ParameterSet parameters;
  const llm::Linear branch = named_branch(parameters, "residual.branch", weight);
  const llm::TensorValue x = llm::TensorValue::parameter(vector2(kInput));
  const llm::TensorValue f = branch.forward(x);  // F(x) = x W, [2]
  const llm::TensorValue y = llm::residual_add(x, f);
  y.backward_with_seed(vector2(upstream), llm::Retention::Retain);

  // The branch alone, reversed from the same upstream: its share of x's gradient.
  llm::ParameterSet probe_parameters;
  const llm::Linear probe = named_branch(probe_parameters, "residual.branch_probe", weight);
  const llm::TensorValue probe_x = llm::TensorValue::parameter(vector2(kInput));
  probe.forward(probe_x).backward_with_seed(vector2(upstream), llm::Retention::Retain);

  return {parameters[0].name,  value_of(x),   value_of(branch.weight()),
          value_of(f),         value_of(y),   vector2(upstream),
          vector2(upstream),  // the identity path's VJP is the upstream itself
          *probe_x.gradient(), *x.gradient(), *branch.weight().gradient()};
}
// endregion: residual-fixture

// region: residual-shape-fixture
ShapeEvidence shape_evidence() {
  const llm::TensorValue stream =
      llm::TensorValue::constant(llm::Tensor(llm::Shape{2, 2}, {1.0, 2.0, 3.0, 4.0}));
  const llm::TensorValue short_branch =
      llm::TensorValue::constant(llm::Tensor(llm::Shape{2}, {10.0, 20.0}));
  ShapeEvidence evidence{stream.shape(), short_branch.shape(), false, false, ""};
  // The plain add repeats the [2] row for both rows of the stream.
  evidence.generic_add_broadcasts = stream.add(short_branch).shape() == llm::Shape{2, 2};
  try {
    llm::residual_add(stream, short_branch);
  } catch (const llm::ResidualError& error) {
    evidence.residual_rejected = error.kind() == llm::ResidualErrorKind::ShapeMismatch;
    evidence.identity = error.evidence().identity;
    evidence.branch = error.evidence().branch;
    evidence.message = error.what();
  }
  return evidence;
}
// endregion: residual-shape-fixture

// region: residual-stack
StackEvidence stack_evidence(bool residual) {
  const std::string prefix = residual ? "residual" : "plain";
  const llm::TensorValue input = llm::TensorValue::parameter(vector2(kInput));
  llm::ParameterSet parameters;
  StackEvidence evidence;
  llm::TensorValue current = input;
  evidence.values.push_back(value_of(current));
  for (std::size_t depth = 0; depth < kStackDepth; ++depth) {
    const llm::Linear layer = named_branch(
        parameters, prefix + ".stack." + std::to_string(depth) + ".branch", kStackWeight);
    const llm::TensorValue update = layer.forward(current);
    // Plain: the layer's output replaces the stream. Residual: it is added to it.
    current = residual ? llm::residual_add(current, update) : update;
    evidence.values.push_back(value_of(current));
  }
  current.backward_with_seed(vector2(kUpstream), llm::Retention::Retain);
  evidence.input_gradient = *input.gradient();
  evidence.parameter_gradients_nonzero = true;
  for (const llm::NamedParameter& entry : parameters) {
    evidence.parameter_names.push_back(entry.name);
    evidence.parameter_gradients_nonzero = evidence.parameter_gradients_nonzero &&
                                           all_finite_some_nonzero(*entry.parameter.gradient());
  }
  return evidence;
}
// endregion: residual-stack

// region: residual-gradcheck
namespace {

// sum_i (x + x W)_i^2 with plain arithmetic, independent of the tape.
double squared_residual(const llm::Tensor& x, const llm::Tensor& w) {
  const std::span<const double> a = x.values();
  const std::span<const double> b = w.values();
  const double y0 = a[0] + (a[0] * b[0] + a[1] * b[2]);
  const double y1 = a[1] + (a[0] * b[1] + a[1] * b[3]);
  return y0 * y0 + y1 * y1;
}

}  // namespace

GradientCheckEvidence gradient_check_evidence() {
  llm::ParameterSet parameters;
  const llm::Linear branch = named_branch(parameters, "residual.gradcheck", kWeight);
  const llm::TensorValue x = llm::TensorValue::parameter(vector2(kInput));
  const llm::TensorValue y = llm::residual_add(x, branch.forward(x));
  y.mul(y).sum_axis(0).backward();

  const llm::Tensor frozen_weight = matrix2(kWeight);
  llm::Tensor input_probe = vector2(kInput);
  const llm::TensorGradientCheck input_check = llm::sampled_tensor_gradient_check(
      input_probe, x.gradient()->view(), kGradcheckStep, kGradcheckTolerance, 2,
      [&](const llm::Tensor& probe) { return squared_residual(probe, frozen_weight); });

  const llm::Tensor frozen_input = vector2(kInput);
  llm::Tensor weight_probe = matrix2(kWeight);
  const llm::TensorGradientCheck weight_check = llm::sampled_tensor_gradient_check(
      weight_probe, branch.weight().gradient()->view(), kGradcheckStep, kGradcheckTolerance, 4,
      [&](const llm::Tensor& probe) { return squared_residual(frozen_input, probe); });

  return {input_check.checks.size(), weight_check.checks.size(),
          input_check.passed && weight_check.passed};
}
// endregion: residual-gradcheck

bool merge_replays_bitwise() {
  const auto bits = [](const MergeEvidence& e) {
    std::vector<std::uint64_t> all;
    for (const llm::Tensor* t :
         {&e.input, &e.branch_weight, &e.branch_output, &e.residual_output, &e.upstream,
          &e.identity_gradient, &e.branch_input_gradient, &e.input_gradient, &e.weight_gradient}) {
      for (double value : t->values()) all.push_back(std::bit_cast<std::uint64_t>(value));
    }
    return all;
  };
  return bits(merge_evidence(kWeight, kUpstream)) == bits(merge_evidence(kWeight, kUpstream));
}

}  // namespace ch24
