// Test support for the VJP suites: deterministic inputs and seeds, and the
// check that compares a tape VJP with central differences of the plain kernels.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <span>
#include <string>

#include "llm/autograd/gradcheck.hpp"
#include "llm/autograd/tensor_value.hpp"
#include "llm/tensor/tensor.hpp"

namespace llm::testing {

inline constexpr double kStep = 1e-5;
inline constexpr double kTolerance = 1e-7;

// Deterministic, distinct, mixed-sign values: 0.35, -0.6, 0.85, ... times scale.
inline Tensor filled(const Shape& shape, double scale = 1.0) {
  Tensor result = Tensor::zeros(shape);
  std::span<double> values = result.mutable_values();
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double magnitude = 0.35 + 0.25 * static_cast<double>(i % 7);
    values[i] = scale * ((i % 2 == 0) ? magnitude : -magnitude);
  }
  return result;
}

// Deterministic positive values for log, rsqrt and divisors: 0.4, 0.75, 1.1, ...
inline Tensor positive(const Shape& shape) {
  Tensor result = Tensor::zeros(shape);
  std::span<double> values = result.mutable_values();
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.4 + 0.35 * static_cast<double>(i);
  return result;
}

// A seed that is not all ones: 1.5, -0.5, 3.5, 0.25, ...
inline Tensor seed_for(const Shape& shape) {
  if (shape.empty()) return Tensor::scalar(1.75);
  Tensor seed = Tensor::zeros(shape);
  std::span<double> values = seed.mutable_values();
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] = (i % 2 == 0) ? 1.5 + static_cast<double>(i) : -0.5 + 0.25 * static_cast<double>(i);
  }
  return seed;
}

inline double dot(const Tensor& a, const Tensor& b) {
  double total = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) total += a.values()[i] * b.values()[i];
  return total;
}

// Reverses `on_tape(p)` with a non-trivial seed and compares p's gradient
// with central differences of seed · forward(p) at every coordinate of p;
// `forward` computes the same function with the plain tensor kernels.
inline void expect_vjp_matches(const std::string& label, const Tensor& input,
                               const std::function<TensorValue(const TensorValue&)>& on_tape,
                               const std::function<Tensor(const Tensor&)>& forward) {
  SCOPED_TRACE(label);
  const TensorValue parameter = TensorValue::parameter(input);
  const TensorValue output = on_tape(parameter);
  const Tensor seed = seed_for(output.shape());
  output.backward_with_seed(seed, Retention::Release);
  const Tensor analytic = *parameter.gradient();
  Tensor probe = input;
  const TensorGradientCheck check = sampled_tensor_gradient_check(
      probe, analytic.view(), kStep, kTolerance, input.size(),
      [&](const Tensor& candidate) { return dot(seed, forward(candidate)); });
  EXPECT_EQ(check.checks.size(), input.size());
  for (const CoordinateGradientCheck& coordinate : check.checks) {
    EXPECT_TRUE(coordinate.comparison.passed)
        << "flat " << coordinate.flat_index << ": analytic " << coordinate.comparison.analytic
        << " numerical " << coordinate.comparison.numerical;
  }
  EXPECT_TRUE(check.passed);
}

}  // namespace llm::testing
