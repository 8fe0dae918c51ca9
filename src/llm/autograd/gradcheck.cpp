// Three-point differences from the actual probes, scale-aware comparison,
// and sampled tensor checks that restore every probed value.
#include "llm/autograd/gradcheck.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <stdexcept>
#include <utility>

#include "llm/format.hpp"

namespace llm {

std::string_view difference_side_name(DifferenceSide side) {
  switch (side) {
    case DifferenceSide::Minus:
      return "minus";
    case DifferenceSide::Center:
      return "center";
    case DifferenceSide::Plus:
      return "plus";
  }
  return "unknown";
}

std::string_view stencil_name(Stencil stencil) {
  switch (stencil) {
    case Stencil::Symmetric:
      return "symmetric";
    case Stencil::Unequal:
      return "unequal";
  }
  return "unknown";
}

std::string_view grad_check_error_kind_name(GradCheckErrorKind kind) {
  switch (kind) {
    case GradCheckErrorKind::InvalidStep:
      return "invalid-step";
    case GradCheckErrorKind::NonFinitePoint:
      return "non-finite-point";
    case GradCheckErrorKind::PerturbationNotFinite:
      return "perturbation-not-finite";
    case GradCheckErrorKind::PerturbationUnchanged:
      return "perturbation-unchanged";
    case GradCheckErrorKind::InvalidActualSpacing:
      return "invalid-actual-spacing";
    case GradCheckErrorKind::NonFiniteStencilWeight:
      return "non-finite-stencil-weight";
    case GradCheckErrorKind::NonFiniteEvaluation:
      return "non-finite-evaluation";
    case GradCheckErrorKind::NonFiniteOneSidedSlope:
      return "non-finite-one-sided-slope";
    case GradCheckErrorKind::NonFiniteNumericalGradient:
      return "non-finite-numerical-gradient";
    case GradCheckErrorKind::InvalidTolerance:
      return "invalid-tolerance";
    case GradCheckErrorKind::NonFiniteAnalyticGradient:
      return "non-finite-analytic-gradient";
    case GradCheckErrorKind::GradientShapeMismatch:
      return "gradient-shape-mismatch";
    case GradCheckErrorKind::ShapeOverflow:
      return "shape-overflow";
    case GradCheckErrorKind::EmptyTensor:
      return "empty-tensor";
    case GradCheckErrorKind::ZeroSamples:
      return "zero-samples";
    case GradCheckErrorKind::SampleAllocationFailed:
      return "sample-allocation-failed";
    case GradCheckErrorKind::TensorAccess:
      return "tensor-access";
    case GradCheckErrorKind::AtCoordinate:
      return "at-coordinate";
  }
  return "unknown";
}

// region: gradcheck-error-messages
GradCheckError::GradCheckError(GradCheckErrorKind kind, const std::string& message)
    : Error("gradient-check", grad_check_error_kind_name(kind), message), kind_(kind) {}

namespace {

std::string number(double value) {
  return format_shortest(value);
}

std::string side_text(DifferenceSide side) {
  return std::string(difference_side_name(side));
}

}  // namespace

GradCheckError GradCheckError::invalid_step(double step) {
  GradCheckError error(
      GradCheckErrorKind::InvalidStep,
      "central-difference requested step " + number(step) + " must be positive and finite");
  error.step_ = step;
  return error;
}

GradCheckError GradCheckError::non_finite_point(double point) {
  GradCheckError error(GradCheckErrorKind::NonFinitePoint,
                       "gradient-check point " + number(point) + " must be finite");
  error.point_ = point;
  return error;
}

GradCheckError GradCheckError::perturbation_not_finite(DifferenceSide side, double point,
                                                       double step) {
  GradCheckError error(GradCheckErrorKind::PerturbationNotFinite,
                       side_text(side) + " perturbation from point " + number(point) + " by step " +
                           number(step) + " is not finite");
  error.side_ = side;
  error.point_ = point;
  error.step_ = step;
  return error;
}

GradCheckError GradCheckError::perturbation_unchanged(DifferenceSide side, double point,
                                                      double step) {
  GradCheckError error(GradCheckErrorKind::PerturbationUnchanged,
                       side_text(side) + " perturbation from point " + number(point) + " by step " +
                           number(step) + " rounds back to the point");
  error.side_ = side;
  error.point_ = point;
  error.step_ = step;
  return error;
}

GradCheckError GradCheckError::invalid_actual_spacing(DifferenceSide side, double point,
                                                      double probe, double spacing) {
  GradCheckError error(GradCheckErrorKind::InvalidActualSpacing,
                       side_text(side) + " actual spacing from point " + number(point) +
                           " to probe " + number(probe) + " must be positive and finite, got " +
                           number(spacing));
  error.side_ = side;
  error.point_ = point;
  error.probe_ = probe;
  error.spacing_ = spacing;
  return error;
}

GradCheckError GradCheckError::non_finite_stencil_weight(DifferenceSide side, double value) {
  GradCheckError error(GradCheckErrorKind::NonFiniteStencilWeight,
                       side_text(side) + " stencil weight is not finite: " + number(value));
  error.side_ = side;
  error.value_ = value;
  return error;
}

GradCheckError GradCheckError::non_finite_evaluation(DifferenceSide side, double value) {
  GradCheckError error(GradCheckErrorKind::NonFiniteEvaluation,
                       side_text(side) + " function evaluation returned " + number(value));
  error.side_ = side;
  error.value_ = value;
  return error;
}

GradCheckError GradCheckError::non_finite_one_sided_slope(DifferenceSide side, double value) {
  GradCheckError error(GradCheckErrorKind::NonFiniteOneSidedSlope,
                       side_text(side) + " one-sided slope is not finite: " + number(value));
  error.side_ = side;
  error.value_ = value;
  return error;
}

GradCheckError GradCheckError::non_finite_numerical_gradient(double value) {
  GradCheckError error(GradCheckErrorKind::NonFiniteNumericalGradient,
                       "central difference produced non-finite gradient " + number(value));
  error.value_ = value;
  return error;
}

GradCheckError GradCheckError::invalid_tolerance(double tolerance) {
  GradCheckError error(
      GradCheckErrorKind::InvalidTolerance,
      "gradient-check tolerance " + number(tolerance) + " must be finite and nonnegative");
  error.tolerance_ = tolerance;
  return error;
}

GradCheckError GradCheckError::non_finite_analytic_gradient(double value) {
  GradCheckError error(GradCheckErrorKind::NonFiniteAnalyticGradient,
                       "analytic gradient " + number(value) + " must be finite");
  error.value_ = value;
  return error;
}

GradCheckError GradCheckError::gradient_shape_mismatch(Shape parameters, Shape analytic) {
  GradCheckError error(GradCheckErrorKind::GradientShapeMismatch,
                       "parameter shape " + shape_text(parameters) +
                           " does not match analytic-gradient shape " + shape_text(analytic));
  error.parameter_shape_ = std::move(parameters);
  error.analytic_shape_ = std::move(analytic);
  return error;
}

GradCheckError GradCheckError::shape_overflow(Shape shape) {
  GradCheckError error(GradCheckErrorKind::ShapeOverflow,
                       "sampled tensor shape " + shape_text(shape) + " overflows size_t");
  error.parameter_shape_ = std::move(shape);
  return error;
}

GradCheckError GradCheckError::empty_tensor(Shape shape) {
  GradCheckError error(GradCheckErrorKind::EmptyTensor,
                       "sampled tensor gradient check needs at least one value, but shape " +
                           shape_text(shape) + " has none");
  error.parameter_shape_ = std::move(shape);
  return error;
}

GradCheckError GradCheckError::zero_samples() {
  return GradCheckError(GradCheckErrorKind::ZeroSamples,
                        "sampled tensor gradient check needs at least one sample");
}

GradCheckError GradCheckError::sample_allocation_failed(std::size_t samples, std::size_t rank) {
  GradCheckError error(GradCheckErrorKind::SampleAllocationFailed,
                       "cannot allocate " + std::to_string(samples) +
                           " sampled coordinates of rank " + std::to_string(rank));
  error.samples_ = samples;
  error.rank_ = rank;
  return error;
}

GradCheckError GradCheckError::tensor_access(const TensorError& cause) {
  GradCheckError error(GradCheckErrorKind::TensorAccess, cause.what());
  error.tensor_error_kind_ = cause.kind();
  return error;
}

GradCheckError GradCheckError::at_coordinate(std::vector<std::size_t> coordinate,
                                             const GradCheckError& cause) {
  GradCheckError error(
      GradCheckErrorKind::AtCoordinate,
      "gradient check at coordinate " + shape_text(coordinate) + " failed: " + cause.what());
  error.coordinate_ = std::move(coordinate);
  error.cause_ = std::make_shared<const GradCheckError>(cause);
  return error;
}
// endregion: gradcheck-error-messages

namespace {

void validate_step(double step) {
  if (!(std::isfinite(step) && step > 0.0)) throw GradCheckError::invalid_step(step);
}

void validate_tolerance(double tolerance) {
  if (!(std::isfinite(tolerance) && tolerance >= 0.0)) {
    throw GradCheckError::invalid_tolerance(tolerance);
  }
}

}  // namespace

// region: probe-geometry
namespace {

// One probe and its actual distance from the point.
struct Probe {
  double point;
  double spacing;
};

// fl(point -/+ step), rejected when it overflows, collapses onto the point,
// or leaves a distance that is not a positive finite number.
Probe representable_probe(DifferenceSide side, double point, double step) {
  const bool minus = side == DifferenceSide::Minus;
  const double probe = minus ? point - step : point + step;
  if (!std::isfinite(probe)) throw GradCheckError::perturbation_not_finite(side, point, step);
  if (probe == point) throw GradCheckError::perturbation_unchanged(side, point, step);
  const double spacing = minus ? point - probe : probe - point;
  if (!(std::isfinite(spacing) && spacing > 0.0)) {
    throw GradCheckError::invalid_actual_spacing(side, point, probe, spacing);
  }
  return {probe, spacing};
}

}  // namespace

ProbeGeometry probe_geometry(double point, double step) {
  // region: probe-geometry-validation
  validate_step(step);
  if (!std::isfinite(point)) throw GradCheckError::non_finite_point(point);
  // endregion: probe-geometry-validation
  const Probe minus = representable_probe(DifferenceSide::Minus, point, step);
  const Probe plus = representable_probe(DifferenceSide::Plus, point, step);

  // Weights h+ / (h- + h+) and h- / (h- + h+) from ratios in (0, 1]: the
  // common factor max(h-, h+) cancels, and h- + h+ (which may overflow) is never formed.
  const double largest = std::max(minus.spacing, plus.spacing);
  const double minus_ratio = minus.spacing / largest;
  const double plus_ratio = plus.spacing / largest;
  const double left_weight = plus_ratio / (minus_ratio + plus_ratio);
  const double right_weight = minus_ratio / (minus_ratio + plus_ratio);
  // region: stencil-weight-checks
  if (!std::isfinite(left_weight)) {
    throw GradCheckError::non_finite_stencil_weight(DifferenceSide::Minus, left_weight);
  }
  if (!std::isfinite(right_weight)) {
    throw GradCheckError::non_finite_stencil_weight(DifferenceSide::Plus, right_weight);
  }
  // endregion: stencil-weight-checks
  return {.minus_point = minus.point,
          .plus_point = plus.point,
          .minus_spacing = minus.spacing,
          .plus_spacing = plus.spacing,
          .left_weight = left_weight,
          .right_weight = right_weight,
          .stencil = minus.spacing == plus.spacing ? Stencil::Symmetric : Stencil::Unequal};
}
// endregion: probe-geometry

// region: central-difference
CentralDifference central_difference(double point, double step,
                                     const std::function<double(double)>& evaluate) {
  const ProbeGeometry geometry = probe_geometry(point, step);

  // Minus, center, plus: each value is inspected before the next call.
  const auto evaluate_finite = [&evaluate](DifferenceSide side, double at) {
    const double value = evaluate(at);
    // region: evaluation-check
    if (!std::isfinite(value)) throw GradCheckError::non_finite_evaluation(side, value);
    // endregion: evaluation-check
    return value;
  };
  const double minus_value = evaluate_finite(DifferenceSide::Minus, geometry.minus_point);
  const double center_value = evaluate_finite(DifferenceSide::Center, point);
  const double plus_value = evaluate_finite(DifferenceSide::Plus, geometry.plus_point);

  // Each secant divides by its own actual distance, never by the requested h.
  const double left_slope = (center_value - minus_value) / geometry.minus_spacing;
  const double right_slope = (plus_value - center_value) / geometry.plus_spacing;
  const double derivative = geometry.left_weight * left_slope + geometry.right_weight * right_slope;
  // region: slope-checks
  if (!std::isfinite(left_slope)) {
    throw GradCheckError::non_finite_one_sided_slope(DifferenceSide::Minus, left_slope);
  }
  if (!std::isfinite(right_slope)) {
    throw GradCheckError::non_finite_one_sided_slope(DifferenceSide::Plus, right_slope);
  }
  if (!std::isfinite(derivative)) throw GradCheckError::non_finite_numerical_gradient(derivative);
  // endregion: slope-checks

  return {.point = point,
          .requested_step = step,
          .minus_point = geometry.minus_point,
          .plus_point = geometry.plus_point,
          .minus_spacing = geometry.minus_spacing,
          .plus_spacing = geometry.plus_spacing,
          .minus_value = minus_value,
          .center_value = center_value,
          .plus_value = plus_value,
          .left_slope = left_slope,
          .right_slope = right_slope,
          .left_weight = geometry.left_weight,
          .right_weight = geometry.right_weight,
          .stencil = geometry.stencil,
          .derivative = derivative};
}
// endregion: central-difference

// region: scale-aware-comparison
GradientComparison compare_gradients(double analytic, double numerical, double tolerance) {
  validate_tolerance(tolerance);
  if (!std::isfinite(analytic)) throw GradCheckError::non_finite_analytic_gradient(analytic);
  if (!std::isfinite(numerical)) throw GradCheckError::non_finite_numerical_gradient(numerical);

  // The floor at one turns the comparison into an absolute one for small gradients.
  const double scale = std::max({1.0, std::fabs(analytic), std::fabs(numerical)});
  const double scaled_error = std::fabs(analytic / scale - numerical / scale);
  return {.analytic = analytic,
          .numerical = numerical,
          .absolute_error = std::fabs(analytic - numerical),
          .scale = scale,
          .scaled_error = scaled_error,
          .tolerance = tolerance,
          .passed = scaled_error <= tolerance};
}
// endregion: scale-aware-comparison

// region: one-sided-slope-diagnostic
OneSidedSlopeComparison compare_one_sided_slopes(const CentralDifference& difference,
                                                 double tolerance) {
  validate_tolerance(tolerance);
  const double left = difference.left_slope;
  if (!std::isfinite(left)) {
    throw GradCheckError::non_finite_one_sided_slope(DifferenceSide::Minus, left);
  }
  const double right = difference.right_slope;
  if (!std::isfinite(right)) {
    throw GradCheckError::non_finite_one_sided_slope(DifferenceSide::Plus, right);
  }
  const double scale = std::max({1.0, std::fabs(left), std::fabs(right)});
  const double scaled_gap = std::fabs(left / scale - right / scale);
  return {.left = left,
          .right = right,
          .absolute_gap = std::fabs(left - right),
          .scale = scale,
          .scaled_gap = scaled_gap,
          .tolerance = tolerance,
          .consistent = scaled_gap <= tolerance};
}
// endregion: one-sided-slope-diagnostic

// region: scalar-gradient-check
ScalarGradientCheck scalar_gradient_check(double point, double analytic, double step,
                                          double tolerance,
                                          const std::function<double(double)>& evaluate) {
  validate_tolerance(tolerance);  // before the first evaluation
  const CentralDifference difference = central_difference(point, step, evaluate);
  return {difference, compare_gradients(analytic, difference.derivative, tolerance)};
}
// endregion: scalar-gradient-check

// region: coordinate-sampler
namespace {

// 128-bit unsigned arithmetic (a GCC/Clang extension).
__extension__ using WideCount = unsigned __int128;

// floor(k (N - 1) / (S - 1)) for S > 1 samples of N elements, floor(N / 2)
// for S == 1. The product k (N - 1) can exceed size_t; in 128 bits it cannot
// (both factors are below 2^64), and the quotient is at most N - 1.
std::size_t sampled_offset(std::size_t k, std::size_t samples, std::size_t elements) {
  if (samples == 1) return elements / 2;
  const WideCount numerator = static_cast<WideCount>(k) * (elements - 1);
  return static_cast<std::size_t>(numerator / (samples - 1));
}

}  // namespace

std::vector<SampledCoordinate> sample_tensor_coordinates(const Shape& shape,
                                                         std::size_t max_samples) {
  if (max_samples == 0) throw GradCheckError::zero_samples();
  std::size_t elements = 0;
  try {
    elements = element_count(shape);
  } catch (const TensorError&) {
    throw GradCheckError::shape_overflow(shape);
  }
  if (elements == 0) throw GradCheckError::empty_tensor(shape);
  const std::size_t samples = std::min(max_samples, elements);

  std::vector<SampledCoordinate> coordinates;
  try {
    coordinates.reserve(samples);
    for (std::size_t k = 0; k < samples; ++k) {
      const std::size_t flat_index = sampled_offset(k, samples, elements);
      coordinates.push_back({flat_index, coordinate_from_offset(shape, flat_index)});
    }
  } catch (const std::bad_alloc&) {
    throw GradCheckError::sample_allocation_failed(samples, shape.size());
  } catch (const std::length_error&) {
    throw GradCheckError::sample_allocation_failed(samples, shape.size());
  } catch (const TensorError& error) {
    throw GradCheckError::tensor_access(error);
  }
  return coordinates;
}
// endregion: coordinate-sampler

// region: probe-restorer
namespace {

// Writes the original value back when a probe evaluation ends, however it
// ends: a returned value, a NaN, or an exception thrown by the objective.
class ProbeRestorer {
 public:
  ProbeRestorer(double& slot, double original) noexcept : slot_(slot), original_(original) {}
  ~ProbeRestorer() { slot_ = original_; }
  ProbeRestorer(const ProbeRestorer&) = delete;
  ProbeRestorer& operator=(const ProbeRestorer&) = delete;

 private:
  double& slot_;
  double original_;
};

// A validated coordinate waiting for its probes.
struct CoordinateCandidate {
  SampledCoordinate sample;
  double point;
  double analytic;
};

}  // namespace
// endregion: probe-restorer

// region: sampled-tensor-check
TensorGradientCheck sampled_tensor_gradient_check(
    Tensor& parameters, const TensorView& analytic, double step, double tolerance,
    std::size_t max_samples, const std::function<double(const Tensor&)>& objective) {
  validate_step(step);
  validate_tolerance(tolerance);
  if (parameters.shape() != analytic.shape()) {
    throw GradCheckError::gradient_shape_mismatch(parameters.shape(), analytic.shape());
  }
  std::vector<SampledCoordinate> samples =
      sample_tensor_coordinates(parameters.shape(), max_samples);

  // Validate every selected coordinate before the first objective call, so a
  // late bad coordinate cannot fail after earlier probes already ran.
  std::vector<CoordinateCandidate> candidates;
  try {
    candidates.reserve(samples.size());
  } catch (const std::bad_alloc&) {
    throw GradCheckError::sample_allocation_failed(samples.size(), parameters.rank());
  }
  for (SampledCoordinate& sample : samples) {
    const double point = parameters.values()[sample.flat_index];
    double analytic_value = 0.0;
    try {
      probe_geometry(point, step);
      analytic_value = analytic.at(sample.coordinate);
    } catch (const GradCheckError& error) {
      throw GradCheckError::at_coordinate(sample.coordinate, error);
    } catch (const TensorError& error) {
      throw GradCheckError::at_coordinate(sample.coordinate, GradCheckError::tensor_access(error));
    }
    if (!std::isfinite(analytic_value)) {
      throw GradCheckError::at_coordinate(
          sample.coordinate, GradCheckError::non_finite_analytic_gradient(analytic_value));
    }
    candidates.push_back({std::move(sample), point, analytic_value});
  }

  TensorGradientCheck result{parameters.shape(), max_samples, {}, true};
  try {
    result.checks.reserve(candidates.size());
  } catch (const std::bad_alloc&) {
    throw GradCheckError::sample_allocation_failed(candidates.size(), parameters.rank());
  }
  for (CoordinateCandidate& candidate : candidates) {
    double& slot = parameters.mutable_values()[candidate.sample.flat_index];
    bool objective_threw = false;
    const auto probe_objective = [&](double probe) {
      const ProbeRestorer restore(slot, candidate.point);  // exact original bits, every exit
      slot = probe;
      try {
        return objective(parameters);
      } catch (...) {
        objective_threw = true;
        throw;
      }
    };
    try {
      const CentralDifference difference =
          central_difference(candidate.point, step, probe_objective);
      const GradientComparison comparison =
          compare_gradients(candidate.analytic, difference.derivative, tolerance);
      result.passed = result.passed && comparison.passed;
      result.checks.push_back({candidate.sample.flat_index, std::move(candidate.sample.coordinate),
                               difference, comparison});
    } catch (const GradCheckError& error) {
      if (objective_threw) throw;  // the objective's own exception passes through unchanged
      throw GradCheckError::at_coordinate(candidate.sample.coordinate, error);
    }
  }
  return result;
}
// endregion: sampled-tensor-check

}  // namespace llm
