// Chapter 13's worked examples: each function runs one gradient check the
// chapter predicts by hand, so demo.cpp only prints and traces the results.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "llm/autograd/gradcheck.hpp"
#include "llm/tensor/tensor.hpp"

namespace ch13 {

/// Scaled-error tolerance of the quadratic checks and the step scan.
inline constexpr double step_tolerance = 1.0e-6;

/// q(theta) = theta^2, checked at theta = 3 with requested step 0.1.
inline constexpr double quadratic_point = 3.0;
inline constexpr double quadratic_step = 0.1;

/// f(x) = x at x = 1 with requested step h = 0.6 * 2^-52: fl(1 - h) lands
/// 2^-53 below 1 (the spacing of doubles just under 1), fl(1 + h) lands
/// 2^-52 above it (the spacing just over 1), so the actual spacings differ.
inline constexpr double identity_point = 1.0;
inline constexpr double identity_step = 1.33226762955018780e-16;
inline constexpr double identity_tolerance = 1.0e-12;

/// f(x) = |x| at its corner x = 0; the slope diagnostic uses the same tolerance.
inline constexpr double kink_point = 0.0;
inline constexpr double kink_step = 1.0e-1;
inline constexpr double kink_tolerance = 1.0e-12;

/// g(theta) = theta^3 - 2 theta at theta = 1.5, where g'(theta) = 3 theta^2 - 2 = 4.75.
inline constexpr double cubic_point = 1.5;
inline constexpr double cubic_analytic = 4.75;
inline constexpr std::array<double, 6> step_scan = {1.0, 1.0e-1, 1.0e-3, 1.0e-5, 1.0e-13, 1.0e-15};
inline constexpr std::array<const char*, 6> step_phases = {"truncation", "truncation", "converging",
                                                           "trusted",    "rounding",   "rounding"};

/// The indexed-NLL fixture: logits [B, V] = [2, 3], one target class per row.
inline constexpr std::size_t class_axis = 1;
inline constexpr std::array<std::size_t, 2> targets = {0, 2};
inline constexpr double tensor_step = 1.0e-5;
inline constexpr double tensor_tolerance = 1.0e-7;
inline constexpr std::size_t tensor_samples = 4;

/// Labels of the two NLL paths and of what they still share.
inline constexpr const char* analytic_path = "local-row-max-exp-sum-normalize-target-gradient";
inline constexpr const char* objective_path = "indexed-mean-nll";
inline constexpr const char* shared_primitives = "f64-exp-and-frozen-inputs";
/// Whether the analytic path calls the course's probability or NLL code; it
/// does not (hand_derived_nll_gradient uses std::exp and its own loops), and
/// tests/tools/test_chapters_13_15.py fails if that region calls llm:: code.
inline constexpr bool material_course_path_shared = false;

double quadratic(double point);

/// Checks candidate `analytic` for q'(3) (6 is right, 5.5 is wrong).
llm::ScalarGradientCheck quadratic_gradient_check(double analytic);

/// The identity check on unequal probes, and the estimate a requested-2h
/// denominator would give instead.
struct RoundedIdentityExample {
  llm::ScalarGradientCheck check;
  double requested_two_step_estimate = 0.0;               ///< (f(x+) - f(x-)) / (2 h)
  llm::GradientComparison requested_two_step_comparison;  ///< that estimate against 1
};
RoundedIdentityExample rounded_identity_gradient_check();

/// |x| at 0: candidate 0 passes (a false pass), the one-sided slopes disagree.
struct KinkExample {
  llm::ScalarGradientCheck check;
  llm::OneSidedSlopeComparison slopes;
};
KinkExample absolute_kink_diagnostic();

double cubic(double point);

/// One step of the scan with its error-regime label.
struct StepScanRecord {
  std::string phase;
  llm::ScalarGradientCheck check;
};
std::vector<StepScanRecord> cubic_step_scan();

/// The frozen logits [2, 3] = [0, 1, -1, 2, 0, -2].
llm::Tensor logits();

/// (softmax(row) - one_hot(target)) / rows, computed locally from raw logits.
llm::Tensor hand_derived_nll_gradient(const llm::Tensor& logits);

/// The sampled check of the hand-derived gradient against indexed mean NLL.
struct TinyNllGradientExample {
  llm::Tensor logits;
  llm::Tensor analytic;
  double loss = 0.0;
  llm::TensorGradientCheck check;
  bool restored_exactly = false;
};
TinyNllGradientExample tiny_nll_gradient_example();

/// (x - 2^53)^2 at x = 2^53 with requested step 1.2: doubles are 1 apart
/// just below 2^53 and 2 apart just above it, so the actual spacings are 1
/// and 2 and the one-sided slopes -1 and 2 differ. Unlike the identity, this
/// example tells the correct weights (2/3, 1/3) from swapped ones.
inline constexpr double parabola_point = 9007199254740992.0;
inline constexpr double parabola_step = 1.2;
inline constexpr double parabola_tolerance = 1.0e-12;

double shifted_parabola(double point);

/// The check of candidate 0, and the estimates two classic slips would give.
struct UnequalParabolaExample {
  llm::ScalarGradientCheck check;
  double swapped_weights_estimate = 0.0;     ///< w+ d- + w- d+
  double requested_two_step_estimate = 0.0;  ///< (f(x+) - f(x-)) / (2 h)
};
UnequalParabolaExample unequal_parabola_check();

/// exp(tanh x) at x = 0.5: a function with no finite Taylor series, so the
/// central difference has truncation error at every step (the quadratic's is
/// zero at any step), and a chain-rule candidate that can be wrong in a way
/// the quadratic's two candidates cannot show.
inline constexpr double smooth_point = 0.5;
inline constexpr double smooth_tolerance = 1.0e-6;
inline constexpr std::array<double, 2> smooth_steps = {1.0e-1, 1.0e-5};

double exp_tanh(double point);

/// d/dx exp(tanh x) = exp(tanh x) (1 - tanh^2 x).
double exp_tanh_derivative(double point);

/// The chain-rule slip: the outer derivative exp(tanh x) without the inner 1 - tanh^2 x.
double exp_tanh_missing_inner_factor(double point);

/// One check of exp(tanh x): which candidate, at which requested step.
struct SmoothCheck {
  std::string candidate;
  llm::ScalarGradientCheck check;
};
std::vector<SmoothCheck> exp_tanh_checks();

/// A request the checker refuses, with the error it raised.
struct RejectedRequest {
  std::string label;
  llm::GradCheckError error;
};
std::vector<RejectedRequest> rejected_requests();

}  // namespace ch13
