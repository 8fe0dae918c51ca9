// The worked graphs of chapter 14: the reused square run twice, zeroed and
// run again; detach; a nonlinear chain; a central-difference cross-check;
// and three rejected requests. Each example returns plain data that the demo
// prints and writes into its trace.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "llm/autograd/gradcheck.hpp"
#include "llm/autograd/scalar.hpp"

namespace ch14 {

/// The input of the reused-square, detach and gradient-check graphs.
inline constexpr double kReusedInput = 2.0;
/// Requested central-difference step, in units of x. A power of two keeps
/// both probes and every slope of 2x^2 at x = 2 exact, so the estimate is 8.
inline constexpr double kGradcheckStep = 0x1p-20;
/// Bound on the scaled error between the analytic and numerical derivative.
inline constexpr double kGradcheckTolerance = 1e-9;

/// Names of the reused-square nodes in their result-last topological order.
inline constexpr std::array<const char*, 3> kReusedNodeNames = {"x", "square", "loss"};

/// The two inputs of the asymmetric example; they differ, so a product rule
/// that swapped its two local derivatives would change both gradients.
inline constexpr double kAsymmetricX = 2.0;
inline constexpr double kAsymmetricY = 5.0;
/// Names of the asymmetric example's nodes in their result-last topological order.
inline constexpr std::array<const char*, 4> kAsymmetricNodeNames = {"x", "y", "product", "loss"};

/// Stored gradients of the reused-square nodes at one moment.
struct StoredGradients {
  double x;
  double square;
  double loss;
};

struct ReusedSquareExample {
  double x_value;
  double square_value;
  double loss_value;
  llm::BackwardPass first_pass;  ///< the record of the first reverse pass
  StoredGradients first;         ///< after one backward call
  StoredGradients repeated;      ///< after a second backward call
  StoredGradients zeroed;        ///< after zero_grad
  StoredGradients after_zero;    ///< after one more backward call
};

/// x = 2, square = x * x, loss = square + square: three nodes, four operand
/// edges. Runs backward twice, zeroes, and runs one fresh pass.
ReusedSquareExample reused_square_example();

struct DetachExample {
  double input;
  double value;
  double x_gradient;
  std::optional<double> detached_gradient;  ///< empty: the copy is untracked
};

/// loss = x * x + detach(x) * 3 at x = 2.
DetachExample detach_example();

struct NonlinearExample {
  double input;
  double value;
  double gradient;
};

/// exp(tanh(x)) at x = 0.5 and its derivative.
NonlinearExample nonlinear_example();

/// The asymmetric companion of the reused square, computed for the trace only
/// (the printed output stays that of the reference edition).
struct AsymmetricProductExample {
  double x_value;
  double y_value;
  double loss_value;
  llm::BackwardPass pass;            ///< the record of its one reverse pass
  double x_gradient;                 ///< stored gradient of x: y + 1
  double y_gradient;                 ///< stored gradient of y: x
  llm::ScalarGradientCheck x_check;  ///< central difference of x*y + x in x, y held fixed
  llm::ScalarGradientCheck y_check;  ///< central difference of x*y + x in y, x held fixed
};

/// x = 2, y = 5, product = x * y, loss = product + x: four nodes, four edges,
/// and x reached along two paths with different contributions. Each gradient
/// is checked against chapter 13's central difference of the plain function.
AsymmetricProductExample asymmetric_product_example();

/// The reverse-mode derivative of 2x^2 at x = 2 against chapter 13's central
/// difference of the plain function 2x^2.
llm::ScalarGradientCheck gradcheck_example();

/// One request that the scalar tape must reject.
struct TypedErrorCase {
  std::string label;         ///< what was asked, e.g. `constant-output`
  llm::ScalarError error;    ///< the rejection, with its evidence
  bool gradients_unchanged;  ///< every watched gradient kept its bits
};

/// Backward from a constant, an infinite seed, and a stored gradient that
/// would overflow, each checked for unchanged gradient bits.
std::vector<TypedErrorCase> typed_error_example();

}  // namespace ch14
