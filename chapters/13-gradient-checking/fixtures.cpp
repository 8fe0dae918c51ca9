// Chapter 13's worked gradient checks, one function per prediction.
#include "fixtures.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <utility>

#include "llm/tensor/probability.hpp"

namespace ch13 {

// region: quadratic-gradient-prediction
double quadratic(double point) {
  return point * point;
}

// The same numerical route tests either candidate: 6 should pass, 5.5 should
// come back as a completed comparison with passed == false.
llm::ScalarGradientCheck quadratic_gradient_check(double analytic) {
  return llm::scalar_gradient_check(quadratic_point, analytic, quadratic_step, step_tolerance,
                                    quadratic);
}
// endregion: quadratic-gradient-prediction

// region: rounded-identity-check
// Both one-sided slopes of f(x) = x are exactly 1, so the weighted estimate
// is 1 however unequal the actual spacings are; dividing the probe difference
// by the requested 2h instead describes probes that do not exist.
RoundedIdentityExample rounded_identity_gradient_check() {
  const auto identity = [](double point) { return point; };
  const llm::ScalarGradientCheck check =
      llm::scalar_gradient_check(identity_point, 1.0, identity_step, identity_tolerance, identity);
  const double requested_two_step_estimate =
      (check.difference.plus_value - check.difference.minus_value) / (2.0 * identity_step);
  return {check, requested_two_step_estimate,
          llm::compare_gradients(1.0, requested_two_step_estimate, identity_tolerance)};
}
// endregion: rounded-identity-check

// region: absolute-kink-diagnostic
// |x| has no derivative at 0, yet the symmetric secant is 0 and candidate 0
// passes: a false pass outside the smoothness precondition. The one-sided
// slopes -1 and 1 expose the corner; their agreement would prove nothing.
KinkExample absolute_kink_diagnostic() {
  const auto absolute = [](double point) { return std::fabs(point); };
  const llm::ScalarGradientCheck check =
      llm::scalar_gradient_check(kink_point, 0.0, kink_step, kink_tolerance, absolute);
  return {check, llm::compare_one_sided_slopes(check.difference, kink_tolerance)};
}
// endregion: absolute-kink-diagnostic

// region: step-size-scan
double cubic(double point) {
  return point * point * point - 2.0 * point;
}

// One derivative, six requested steps: truncation error shrinks like h^2
// until rounding of the probes and of f's nearly equal values takes over.
std::vector<StepScanRecord> cubic_step_scan() {
  std::vector<StepScanRecord> records;
  for (std::size_t i = 0; i < step_scan.size(); ++i) {
    records.push_back(
        {step_phases[i], llm::scalar_gradient_check(cubic_point, cubic_analytic, step_scan[i],
                                                    step_tolerance, cubic)});
  }
  return records;
}
// endregion: step-size-scan

// region: unequal-parabola-check
double shifted_parabola(double point) {
  const double offset = point - parabola_point;  // exact: both are integers near 2^53
  return offset * offset;
}

// The parabola through the three probes is the function itself, so the
// weighted estimate is exactly 0; weights swapped, or the requested 2h,
// would not be.
UnequalParabolaExample unequal_parabola_check() {
  const llm::ScalarGradientCheck check = llm::scalar_gradient_check(
      parabola_point, 0.0, parabola_step, parabola_tolerance, shifted_parabola);
  const llm::CentralDifference& d = check.difference;
  return {check, d.right_weight * d.left_slope + d.left_weight * d.right_slope,
          (d.plus_value - d.minus_value) / (2.0 * parabola_step)};
}
// endregion: unequal-parabola-check

// region: exp-tanh-check
double exp_tanh(double point) {
  return std::exp(std::tanh(point));
}

double exp_tanh_derivative(double point) {
  const double inner = std::tanh(point);
  return std::exp(inner) * (1.0 - inner * inner);
}

double exp_tanh_missing_inner_factor(double point) {
  return std::exp(std::tanh(point));
}

// The correct chain rule at both steps, then the slip at the small step.
// exp(tanh x) has a non-zero third derivative, so h = 0.1 leaves a
// truncation error the quadratic never shows.
std::vector<SmoothCheck> exp_tanh_checks() {
  std::vector<SmoothCheck> checks;
  for (double step : smooth_steps) {
    checks.push_back(
        {"chain rule", llm::scalar_gradient_check(smooth_point, exp_tanh_derivative(smooth_point),
                                                  step, smooth_tolerance, exp_tanh)});
  }
  checks.push_back(
      {"missing inner factor",
       llm::scalar_gradient_check(smooth_point, exp_tanh_missing_inner_factor(smooth_point),
                                  smooth_steps[1], smooth_tolerance, exp_tanh)});
  return checks;
}
// endregion: exp-tanh-check

llm::Tensor logits() {
  return llm::Tensor({2, 3}, {0.0, 1.0, -1.0, 2.0, 0.0, -2.0});
}

// region: hand-derived-nll-gradient
// dL/dl[r, c] = (p[r, c] - 1[c == t_r]) / rows, with p the row softmax.
// A separate local path: its own row traversal, max shift, exponential sum,
// normalization, target subtraction and batch scaling, without calling the
// library's probability or indexed-NLL functions. Both paths still share the
// inputs and targets, IEEE double arithmetic and std::exp, Tensor storage and
// the row-major index convention.
llm::Tensor hand_derived_nll_gradient(const llm::Tensor& logits) {
  // region: local-nll-shape-check
  if (logits.shape() != llm::Shape{2, 3}) {
    throw std::invalid_argument("the local chapter 13 analytic path requires shape [2, 3], got " +
                                llm::shape_text(logits.shape()));
  }
  // endregion: local-nll-shape-check
  const std::size_t columns = logits.shape()[1];
  const std::span<const double> values = logits.values();
  std::vector<double> gradient(values.size());
  for (std::size_t row = 0; row < targets.size(); ++row) {
    const std::size_t start = row * columns;
    double maximum = -std::numeric_limits<double>::infinity();
    for (std::size_t column = 0; column < columns; ++column) {
      // region: local-nll-finite-check
      if (!std::isfinite(values[start + column])) {
        throw std::invalid_argument("local analytic path: logit at [" + std::to_string(row) + ", " +
                                    std::to_string(column) + "] is not finite");
      }
      // endregion: local-nll-finite-check
      maximum = std::fmax(maximum, values[start + column]);
    }
    double normalizer = 0.0;
    for (std::size_t column = 0; column < columns; ++column) {
      gradient[start + column] = std::exp(values[start + column] - maximum);
      normalizer += gradient[start + column];
    }
    for (std::size_t column = 0; column < columns; ++column) {
      gradient[start + column] /= normalizer;
    }
    gradient[start + targets[row]] -= 1.0;
  }
  for (double& value : gradient) value /= static_cast<double>(targets.size());
  return llm::Tensor(logits.shape(), std::move(gradient));
}
// endregion: hand-derived-nll-gradient

// region: sampled-nll-gradient-check
// Four deterministic logit coordinates: the hand-derived candidate against
// probes of the production indexed mean NLL, then a bit-for-bit comparison
// of the logits with their values before the check.
TinyNllGradientExample tiny_nll_gradient_example() {
  llm::Tensor parameters = logits();
  llm::Tensor analytic = hand_derived_nll_gradient(parameters);
  const double loss = llm::indexed_mean_nll(parameters.view(), class_axis, targets);
  std::vector<std::uint64_t> original_bits;
  for (double value : parameters.values())
    original_bits.push_back(std::bit_cast<std::uint64_t>(value));

  llm::TensorGradientCheck check = llm::sampled_tensor_gradient_check(
      parameters, analytic.view(), tensor_step, tensor_tolerance, tensor_samples,
      [](const llm::Tensor& candidate) {
        return llm::indexed_mean_nll(candidate.view(), class_axis, targets);
      });

  bool restored_exactly = true;
  for (std::size_t i = 0; i < original_bits.size(); ++i) {
    restored_exactly = restored_exactly &&
                       std::bit_cast<std::uint64_t>(parameters.values()[i]) == original_bits[i];
  }
  return {std::move(parameters), std::move(analytic), loss, std::move(check), restored_exactly};
}
// endregion: sampled-nll-gradient-check

// region: rejected-requests
namespace {

// Runs a request that must be refused and returns the refusal.
RejectedRequest expect_rejection(std::string label, const std::function<void()>& request) {
  try {
    request();
  } catch (const llm::GradCheckError& error) {
    return {std::move(label), error};
  }
  throw std::logic_error("the request '" + label + "' was accepted but must be rejected");
}

}  // namespace

// A zero step, a step that rounds away, a probe outside the function's
// domain, and a gradient of the wrong shape: each stops before any
// derivative is accepted.
std::vector<RejectedRequest> rejected_requests() {
  std::vector<RejectedRequest> rejected;
  rejected.push_back(
      expect_rejection("zero step", [] { llm::central_difference(1.0, 0.0, quadratic); }));
  rejected.push_back(expect_rejection("collapsed step", [] {
    llm::central_difference(1.0, 1.0e-20, [](double point) { return point * point; });
  }));
  rejected.push_back(expect_rejection("non-finite objective value", [] {
    // sqrt at 0: the minus probe -0.1 leaves the domain and returns NaN.
    llm::central_difference(0.0, 0.1, [](double point) { return std::sqrt(point); });
  }));
  rejected.push_back(expect_rejection("shape mismatch", [] {
    llm::Tensor parameters({2}, {1.0, 2.0});
    const llm::Tensor analytic({1, 2}, {0.0, 0.0});
    llm::sampled_tensor_gradient_check(parameters, analytic.view(), tensor_step, tensor_tolerance,
                                       tensor_samples, [](const llm::Tensor&) { return 0.0; });
  }));
  return rejected;
}
// endregion: rejected-requests

}  // namespace ch13
