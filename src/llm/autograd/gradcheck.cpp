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

// region: gradcheck-error-messages
std::string GradCheckErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "side") {
    return evidence.side ? std::string(difference_side_name(*evidence.side)) : std::string();
  }
  if (field == "point") return format_shortest(evidence.point);
  if (field == "step") return format_shortest(evidence.step);
  if (field == "probe") return format_shortest(evidence.probe);
  if (field == "spacing") return format_shortest(evidence.spacing);
  if (field == "value") return format_shortest(evidence.value);
  if (field == "tolerance") return format_shortest(evidence.tolerance);
  if (field == "parameter_shape") return shape_text(evidence.parameter_shape);
  if (field == "analytic_shape") return shape_text(evidence.analytic_shape);
  if (field == "samples") return std::to_string(evidence.samples);
  if (field == "rank") return std::to_string(evidence.rank);
  if (field == "coordinate") return shape_text(evidence.coordinate);
  if (field == "cause") return evidence.cause ? evidence.cause->what() : std::string();
  if (field == "tensor_error_message") return evidence.tensor_error_message;
  error_detail::unknown_field(area, field);
}

GradCheckError GradCheckError::tensor_access(const TensorError& cause) {
  return GradCheckError(GradCheckErrorKind::TensorAccess,
                        {.tensor_error_kind = cause.kind(), .tensor_error_message = cause.what()});
}

GradCheckError GradCheckError::at_coordinate(std::vector<std::size_t> coordinate,
                                             const GradCheckError& cause) {
  return GradCheckError(GradCheckErrorKind::AtCoordinate,
                        {.coordinate = std::move(coordinate),
                         .cause = std::make_shared<const GradCheckError>(cause)});
}
// endregion: gradcheck-error-messages

namespace {

void validate_step(double step) {
  if (!(std::isfinite(step) && step > 0.0))
    throw GradCheckError(GradCheckErrorKind::InvalidStep, {.step = step});
}

void validate_tolerance(double tolerance) {
  if (!(std::isfinite(tolerance) && tolerance >= 0.0)) {
    throw GradCheckError(GradCheckErrorKind::InvalidTolerance, {.tolerance = tolerance});
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
  if (!std::isfinite(probe))
    throw GradCheckError(GradCheckErrorKind::PerturbationNotFinite,
                         {.side = side, .point = point, .step = step});
  if (probe == point)
    throw GradCheckError(GradCheckErrorKind::PerturbationUnchanged,
                         {.side = side, .point = point, .step = step});
  const double spacing = minus ? point - probe : probe - point;
  if (!(std::isfinite(spacing) && spacing > 0.0)) {
    throw GradCheckError(GradCheckErrorKind::InvalidActualSpacing,
                         {.side = side, .point = point, .probe = probe, .spacing = spacing});
  }
  return {probe, spacing};
}

}  // namespace

ProbeGeometry probe_geometry(double point, double step) {
  // region: probe-geometry-validation
  validate_step(step);
  if (!std::isfinite(point))
    throw GradCheckError(GradCheckErrorKind::NonFinitePoint, {.point = point});
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
    throw GradCheckError(GradCheckErrorKind::NonFiniteStencilWeight,
                         {.side = DifferenceSide::Minus, .value = left_weight});
  }
  if (!std::isfinite(right_weight)) {
    throw GradCheckError(GradCheckErrorKind::NonFiniteStencilWeight,
                         {.side = DifferenceSide::Plus, .value = right_weight});
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
    if (!std::isfinite(value))
      throw GradCheckError(GradCheckErrorKind::NonFiniteEvaluation, {.side = side, .value = value});
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
    throw GradCheckError(GradCheckErrorKind::NonFiniteOneSidedSlope,
                         {.side = DifferenceSide::Minus, .value = left_slope});
  }
  if (!std::isfinite(right_slope)) {
    throw GradCheckError(GradCheckErrorKind::NonFiniteOneSidedSlope,
                         {.side = DifferenceSide::Plus, .value = right_slope});
  }
  if (!std::isfinite(derivative))
    throw GradCheckError(GradCheckErrorKind::NonFiniteNumericalGradient, {.value = derivative});
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
  if (!std::isfinite(analytic))
    throw GradCheckError(GradCheckErrorKind::NonFiniteAnalyticGradient, {.value = analytic});
  if (!std::isfinite(numerical))
    throw GradCheckError(GradCheckErrorKind::NonFiniteNumericalGradient, {.value = numerical});

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
    throw GradCheckError(GradCheckErrorKind::NonFiniteOneSidedSlope,
                         {.side = DifferenceSide::Minus, .value = left});
  }
  const double right = difference.right_slope;
  if (!std::isfinite(right)) {
    throw GradCheckError(GradCheckErrorKind::NonFiniteOneSidedSlope,
                         {.side = DifferenceSide::Plus, .value = right});
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
  if (max_samples == 0) throw GradCheckError(GradCheckErrorKind::ZeroSamples);
  std::size_t elements = 0;
  try {
    elements = element_count(shape);
  } catch (const TensorError&) {
    throw GradCheckError(GradCheckErrorKind::ShapeOverflow, {.parameter_shape = shape});
  }
  if (elements == 0)
    throw GradCheckError(GradCheckErrorKind::EmptyTensor, {.parameter_shape = shape});
  const std::size_t samples = std::min(max_samples, elements);

  std::vector<SampledCoordinate> coordinates;
  try {
    coordinates.reserve(samples);
    for (std::size_t k = 0; k < samples; ++k) {
      const std::size_t flat_index = sampled_offset(k, samples, elements);
      coordinates.push_back({flat_index, coordinate_from_offset(shape, flat_index)});
    }
  } catch (const std::bad_alloc&) {
    throw GradCheckError(GradCheckErrorKind::SampleAllocationFailed,
                         {.samples = samples, .rank = shape.size()});
  } catch (const std::length_error&) {
    throw GradCheckError(GradCheckErrorKind::SampleAllocationFailed,
                         {.samples = samples, .rank = shape.size()});
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
    throw GradCheckError(
        GradCheckErrorKind::GradientShapeMismatch,
        {.parameter_shape = parameters.shape(), .analytic_shape = analytic.shape()});
  }
  std::vector<SampledCoordinate> samples =
      sample_tensor_coordinates(parameters.shape(), max_samples);

  // Validate every selected coordinate before the first objective call, so a
  // late bad coordinate cannot fail after earlier probes already ran.
  std::vector<CoordinateCandidate> candidates;
  try {
    candidates.reserve(samples.size());
  } catch (const std::bad_alloc&) {
    throw GradCheckError(GradCheckErrorKind::SampleAllocationFailed,
                         {.samples = samples.size(), .rank = parameters.rank()});
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
          sample.coordinate,
          GradCheckError(GradCheckErrorKind::NonFiniteAnalyticGradient, {.value = analytic_value}));
    }
    candidates.push_back({std::move(sample), point, analytic_value});
  }

  TensorGradientCheck result{parameters.shape(), max_samples, {}, true};
  try {
    result.checks.reserve(candidates.size());
  } catch (const std::bad_alloc&) {
    throw GradCheckError(GradCheckErrorKind::SampleAllocationFailed,
                         {.samples = candidates.size(), .rank = parameters.rank()});
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
