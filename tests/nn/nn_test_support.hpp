// Helpers for the layer suites: a smooth scalar loss of any tensor, and the
// gradient check of a parameter through chapter 13's checker.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "llm/autograd/tensor_value.hpp"
#include "llm/nn/parameter_gradcheck.hpp"
#include "llm/nn/parameter_set.hpp"
#include "llm/tensor/layout.hpp"

namespace llm::testing {

// Distinct mixed-sign weights 0.35, -0.6, 0.85, ... for a weighted sum.
inline Tensor loss_weights(const Shape& shape) {
  Tensor weights = Tensor::zeros(shape);
  std::span<double> values = weights.mutable_values();
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double magnitude = 0.35 + 0.25 * static_cast<double>(i % 7);
    values[i] = (i % 2 == 0) ? magnitude : -magnitude;
  }
  return weights;
}

// The sum of every element of x as a rank-zero node (sum_axis(0) until rank 0):
// the loss sum(y * upstream) of a chapter's fixture is total(y.mul(upstream)).
inline TensorValue total(const TensorValue& x) {
  TensorValue sum = x;
  while (sum.rank() > 0) sum = sum.sum_axis(0);
  return sum;
}

// sum(w * y * y) + sum(w * y): a rank-zero loss whose gradient depends on y,
// so a wrong upstream routing cannot hide behind a constant gradient.
inline TensorValue smooth_loss(const TensorValue& y) {
  const Shape shape = y.shape();
  const TensorValue w = TensorValue::constant(loss_weights(shape));
  const TensorValue terms = w.mul(y.mul(y)).add(w.mul(y));
  return terms.reshape(Shape{element_count(shape)}).sum_axis(0);
}

// Checks every coordinate of each named parameter of `set` against central
// differences of `loss` (chapter 13's sampled check).
inline void expect_parameters_gradchecked(const std::string& label, const ParameterSet& set,
                                          const std::vector<std::string>& names,
                                          const std::function<TensorValue()>& loss) {
  SCOPED_TRACE(label);
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    const std::size_t count = set.at(name).value().size();
    const TensorGradientCheck check = check_parameter_gradient(set, name, loss, 1e-5, 1e-7, count);
    EXPECT_EQ(check.checks.size(), count);
    for (const CoordinateGradientCheck& coordinate : check.checks) {
      EXPECT_TRUE(coordinate.comparison.passed)
          << "flat " << coordinate.flat_index << ": analytic " << coordinate.comparison.analytic
          << " numerical " << coordinate.comparison.numerical;
    }
    EXPECT_TRUE(check.passed);
  }
}

}  // namespace llm::testing
