// Numerical gradient checking: three-point differences from the actual
// representable probes, scale-aware comparison, and sampled tensor checks.
//
// A gradient check is a slow, materially separate cross-check of an analytic
// derivative at a locally smooth point. A passing comparison is evidence for
// the chosen point, probes, step and tolerance, never a proof of the whole
// gradient or of differentiability. Taught in chapter 13; chapters 14-16 use
// it to check their reverse-mode derivatives.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llm/error.hpp"
#include "llm/tensor/tensor.hpp"

namespace llm {

/// Which of the three evaluations of a difference an error or value belongs to.
enum class DifferenceSide {
  Minus,   ///< the probe fl(theta - h)
  Center,  ///< the unperturbed point theta
  Plus,    ///< the probe fl(theta + h)
};

/// `minus`, `center` or `plus`.
std::string_view difference_side_name(DifferenceSide side);

/// Whether the two actual probe spacings came out equal.
enum class Stencil {
  Symmetric,  ///< h- == h+: the estimate equals (f+ - f-) / (2 h-)
  Unequal,    ///< rounding left h- != h+: only the weighted formula is right
};

/// `symmetric` or `unequal`.
std::string_view stencil_name(Stencil stencil);

// region: gradcheck-error-kinds
/// What a gradient check rejected. Each kind is thrown only while validating
/// or while an evaluation is inspected, never after a result is committed.
enum class GradCheckErrorKind {
  InvalidStep,                 ///< the requested step is not positive and finite
  NonFinitePoint,              ///< the checked point is NaN or infinite
  PerturbationNotFinite,       ///< fl(theta - h) or fl(theta + h) overflowed
  PerturbationUnchanged,       ///< a probe rounded back to the point (collapsed step)
  InvalidActualSpacing,        ///< an actual spacing is not positive and finite
  NonFiniteStencilWeight,      ///< a stencil weight is not finite
  NonFiniteEvaluation,         ///< the function returned NaN or infinity at a probe
  NonFiniteOneSidedSlope,      ///< a one-sided secant slope overflowed
  NonFiniteNumericalGradient,  ///< the weighted estimate (or a given numerical value) is not finite
  InvalidTolerance,            ///< the tolerance is negative, NaN or infinite
  NonFiniteAnalyticGradient,   ///< the analytic candidate is NaN or infinite
  GradientShapeMismatch,       ///< parameter and analytic-gradient shapes differ
  ShapeOverflow,               ///< the sampled shape's element count overflows size_t
  EmptyTensor,                 ///< the sampled tensor has no elements
  ZeroSamples,                 ///< zero samples were requested
  SampleAllocationFailed,      ///< the sampled coordinate list could not be allocated
  TensorAccess,                ///< a tensor view or coordinate read failed (wraps a TensorError)
  AtCoordinate,                ///< an error at one sampled tensor coordinate (wraps the cause)
};

// endregion: gradcheck-error-kinds

// region: gradcheck-error-type
class GradCheckError;

/// The offending values of a GradCheckError; a kind leaves the fields it does
/// not use zero or empty.
struct GradCheckErrorEvidence {
  std::optional<DifferenceSide> side{};  ///< the rejected side, for the kinds that name one
  double point = 0.0;                    ///< the checked point theta
  double step = 0.0;                     ///< the requested step h
  double probe = 0.0;      ///< the actual probe whose spacing was rejected (InvalidActualSpacing)
  double spacing = 0.0;    ///< the rejected actual spacing (InvalidActualSpacing)
  double value = 0.0;      ///< the rejected weight, evaluation, slope or gradient value
  double tolerance = 0.0;  ///< the rejected tolerance (InvalidTolerance)
  /// The parameter (or sampled) shape: GradientShapeMismatch, ShapeOverflow, EmptyTensor.
  Shape parameter_shape{};
  Shape analytic_shape{};   ///< the analytic-gradient shape (GradientShapeMismatch)
  std::size_t samples = 0;  ///< coordinates that could not be allocated (SampleAllocationFailed)
  std::size_t rank = 0;     ///< the rank of each of them (SampleAllocationFailed)
  /// The tensor coordinate the wrapped cause happened at (AtCoordinate).
  std::vector<std::size_t> coordinate{};
  /// The wrapped error of an AtCoordinate error; shared, as exceptions must be copyable.
  std::shared_ptr<const GradCheckError> cause{};
  /// The kind of the wrapped TensorError (TensorAccess).
  std::optional<TensorErrorKind> tensor_error_kind{};
  std::string tensor_error_message{};  ///< what() of the wrapped TensorError (TensorAccess)
};

/// The `gradient-check` area: each kind's stable name and message, in enum
/// order. Numbers print as the shortest round-trip text (`1e-20`, `NaN`).
struct GradCheckErrorTraits {
  using Kind = GradCheckErrorKind;                            ///< the area's kinds
  using Evidence = GradCheckErrorEvidence;                    ///< the offending values
  static constexpr std::string_view area = "gradient-check";  ///< Error::area()
  /// Each kind's stable name and message, in enum order.
  static constexpr std::array<ErrorKindSpec<Kind>, 18> kinds{{
      {Kind::InvalidStep, "invalid-step",
       "central-difference requested step {step} must be positive and finite"},
      {Kind::NonFinitePoint, "non-finite-point", "gradient-check point {point} must be finite"},
      {Kind::PerturbationNotFinite, "perturbation-not-finite",
       "{side} perturbation from point {point} by step {step} is not finite"},
      {Kind::PerturbationUnchanged, "perturbation-unchanged",
       "{side} perturbation from point {point} by step {step} rounds back to the point"},
      {Kind::InvalidActualSpacing, "invalid-actual-spacing",
       "{side} actual spacing from point {point} to probe {probe} must be positive and finite, "
       "got {spacing}"},
      {Kind::NonFiniteStencilWeight, "non-finite-stencil-weight",
       "{side} stencil weight is not finite: {value}"},
      {Kind::NonFiniteEvaluation, "non-finite-evaluation",
       "{side} function evaluation returned {value}"},
      {Kind::NonFiniteOneSidedSlope, "non-finite-one-sided-slope",
       "{side} one-sided slope is not finite: {value}"},
      {Kind::NonFiniteNumericalGradient, "non-finite-numerical-gradient",
       "central difference produced non-finite gradient {value}"},
      {Kind::InvalidTolerance, "invalid-tolerance",
       "gradient-check tolerance {tolerance} must be finite and nonnegative"},
      {Kind::NonFiniteAnalyticGradient, "non-finite-analytic-gradient",
       "analytic gradient {value} must be finite"},
      {Kind::GradientShapeMismatch, "gradient-shape-mismatch",
       "parameter shape {parameter_shape} does not match analytic-gradient shape "
       "{analytic_shape}"},
      {Kind::ShapeOverflow, "shape-overflow",
       "sampled tensor shape {parameter_shape} overflows size_t"},
      {Kind::EmptyTensor, "empty-tensor",
       "sampled tensor gradient check needs at least one value, but shape {parameter_shape} has "
       "none"},
      {Kind::ZeroSamples, "zero-samples",
       "sampled tensor gradient check needs at least one sample"},
      {Kind::SampleAllocationFailed, "sample-allocation-failed",
       "cannot allocate {samples} sampled coordinates of rank {rank}"},
      {Kind::TensorAccess, "tensor-access", "{tensor_error_message}"},
      {Kind::AtCoordinate, "at-coordinate",
       "gradient check at coordinate {coordinate} failed: {cause}"},
  }};
  /// A field as the message prints it; `cause` is the wrapped error's what().
  static std::string field_text(const Evidence& evidence, std::string_view field);
};

/// A rejected numerical derivative, comparison, sample request or tensor read.
///
/// Carries the offending values as evidence; fields a kind does not use are
/// zero or empty. what() reads like a sentence naming the values, with
/// numbers spelled as the shortest round-trip text (`1e-20`, `NaN`).
class GradCheckError : public KindedError<GradCheckErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw GradCheckError(GradCheckErrorKind::..., {.field = value});`
  explicit GradCheckError(GradCheckErrorKind kind, GradCheckErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}

  /// The rejected side, for the kinds that name one.
  std::optional<DifferenceSide> side() const noexcept { return evidence().side; }
  /// The checked point theta.
  double point() const noexcept { return evidence().point; }
  /// The requested step h.
  double step() const noexcept { return evidence().step; }
  /// The actual probe whose spacing was rejected (InvalidActualSpacing).
  double probe() const noexcept { return evidence().probe; }
  /// The rejected actual spacing (InvalidActualSpacing).
  double spacing() const noexcept { return evidence().spacing; }
  /// The rejected weight, evaluation, slope or gradient value.
  double value() const noexcept { return evidence().value; }
  /// The rejected tolerance (InvalidTolerance).
  double tolerance() const noexcept { return evidence().tolerance; }
  /// The parameter (or sampled) shape: GradientShapeMismatch, ShapeOverflow, EmptyTensor.
  const Shape& parameter_shape() const noexcept { return evidence().parameter_shape; }
  /// The analytic-gradient shape (GradientShapeMismatch).
  const Shape& analytic_shape() const noexcept { return evidence().analytic_shape; }
  /// The number of coordinates that could not be allocated (SampleAllocationFailed).
  std::size_t samples() const noexcept { return evidence().samples; }
  /// The rank of each coordinate that could not be allocated (SampleAllocationFailed).
  std::size_t rank() const noexcept { return evidence().rank; }
  /// The tensor coordinate the wrapped cause happened at (AtCoordinate).
  const std::vector<std::size_t>& coordinate() const noexcept { return evidence().coordinate; }
  /// The wrapped error of an AtCoordinate error; null for every other kind.
  const GradCheckError* cause() const noexcept { return evidence().cause.get(); }
  /// The kind of the wrapped TensorError (TensorAccess).
  std::optional<TensorErrorKind> tensor_error_kind() const noexcept {
    return evidence().tensor_error_kind;
  }

  /// TensorAccess: `cause`'s kind, with its message as this error's message.
  static GradCheckError tensor_access(const TensorError& cause);
  /// AtCoordinate: `cause` happened at tensor coordinate `coordinate`.
  static GradCheckError at_coordinate(std::vector<std::size_t> coordinate,
                                      const GradCheckError& cause);
};
// endregion: gradcheck-error-type

// region: probe-geometry-contract
/// Where the two probes actually landed and how the estimate weighs them.
struct ProbeGeometry {
  double minus_point = 0.0;              ///< theta- = fl(theta - h)
  double plus_point = 0.0;               ///< theta+ = fl(theta + h)
  double minus_spacing = 0.0;            ///< h- = theta - theta-, in units of theta
  double plus_spacing = 0.0;             ///< h+ = theta+ - theta, in units of theta
  double left_weight = 0.0;              ///< h+ / (h- + h+), the weight of the left slope
  double right_weight = 0.0;             ///< h- / (h- + h+), the weight of the right slope
  Stencil stencil = Stencil::Symmetric;  ///< whether h- and h+ came out equal
};

/// The actual representable probes around `point` for requested `step`.
///
/// Checks, in this order: step positive and finite; point finite; then for
/// the minus side and then the plus side: the probe is finite, differs from
/// the point, and its actual spacing is positive and finite; finally both
/// weights are finite. Weights come from the spacing ratios u = h / max(h-, h+),
/// so h- + h+ is never formed and cannot overflow.
/// @throws GradCheckError InvalidStep, NonFinitePoint, PerturbationNotFinite,
///         PerturbationUnchanged (a collapsed probe), InvalidActualSpacing,
///         NonFiniteStencilWeight in that order.
/// Taught in chapter 13.
ProbeGeometry probe_geometry(double point, double step);
// endregion: probe-geometry-contract

// region: central-difference-contract
/// Every quantity of one three-point difference.
struct CentralDifference {
  double point = 0.0;                    ///< theta
  double requested_step = 0.0;           ///< h as the caller asked for it
  double minus_point = 0.0;              ///< theta- = fl(theta - h)
  double plus_point = 0.0;               ///< theta+ = fl(theta + h)
  double minus_spacing = 0.0;            ///< h- = theta - theta-
  double plus_spacing = 0.0;             ///< h+ = theta+ - theta
  double minus_value = 0.0;              ///< f(theta-)
  double center_value = 0.0;             ///< f(theta)
  double plus_value = 0.0;               ///< f(theta+)
  double left_slope = 0.0;               ///< (f(theta) - f(theta-)) / h-
  double right_slope = 0.0;              ///< (f(theta+) - f(theta)) / h+
  double left_weight = 0.0;              ///< h+ / (h- + h+)
  double right_weight = 0.0;             ///< h- / (h- + h+)
  Stencil stencil = Stencil::Symmetric;  ///< whether h- and h+ came out equal
  double derivative = 0.0;               ///< left_weight * left_slope + right_weight * right_slope
};

/// Approximates f'(point) from the actual representable probes:
/// left_weight * (f(theta) - f(theta-)) / h- + right_weight * (f(theta+) - f(theta)) / h+.
///
/// `evaluate` is called exactly three times, in minus, center, plus order;
/// it must be deterministic, free of side effects, and smooth (a continuous
/// third derivative) across [theta-, theta+]; the truncation error is then
/// O(max(h-, h+)^2). Kinks are outside the contract: examine them with
/// compare_one_sided_slopes. A collapsed probe is an error, never a zero
/// derivative. Exceptions thrown by `evaluate` propagate unchanged.
/// @throws GradCheckError any kind of probe_geometry (before any evaluation),
///         then NonFiniteEvaluation (minus, center, plus side),
///         NonFiniteOneSidedSlope (minus, plus side), NonFiniteNumericalGradient.
/// Taught in chapter 13.
CentralDifference central_difference(double point, double step,
                                     const std::function<double(double)>& evaluate);
// endregion: central-difference-contract

// region: comparison-contract
/// The outcome of comparing one analytic candidate with one numerical value.
struct GradientComparison {
  double analytic = 0.0;        ///< the candidate a being checked
  double numerical = 0.0;       ///< the finite-difference value n
  double absolute_error = 0.0;  ///< |a - n| (may overflow to inf; the verdict does not use it)
  double scale = 0.0;           ///< s = max(1, |a|, |n|)
  double scaled_error = 0.0;    ///< e = |a / s - n / s|
  double tolerance = 0.0;       ///< the declared bound on e
  bool passed = false;          ///< e <= tolerance
};

/// Compares `analytic` with `numerical` after scaling both by
/// s = max(1, |a|, |n|): passes exactly when |a/s - n/s| <= tolerance. The
/// floor at one makes small gradients compare by absolute error, larger ones
/// by relative error. A finite mismatch is a completed comparison with
/// passed == false, not an error.
/// @throws GradCheckError InvalidTolerance, NonFiniteAnalyticGradient,
///         NonFiniteNumericalGradient in that order.
/// Taught in chapter 13.
GradientComparison compare_gradients(double analytic, double numerical, double tolerance);

/// A central difference together with its comparison.
struct ScalarGradientCheck {
  CentralDifference difference;   ///< the numerical estimate and its probes
  GradientComparison comparison;  ///< the estimate against the analytic value
};

/// Runs central_difference(point, step, evaluate) and compares its estimate
/// with the analytic candidate by compare_gradients.
///
/// The tolerance is validated before `evaluate` is first called.
/// @throws GradCheckError InvalidTolerance, any kind of central_difference,
///         then NonFiniteAnalyticGradient.
/// Taught in chapter 13; used by chapters 14-16.
ScalarGradientCheck scalar_gradient_check(double point, double analytic, double step,
                                          double tolerance,
                                          const std::function<double(double)>& evaluate);
// endregion: comparison-contract

// region: one-sided-slope-contract
/// The gap between the two one-sided slopes of one difference.
struct OneSidedSlopeComparison {
  double left = 0.0;          ///< the left slope
  double right = 0.0;         ///< the right slope
  double absolute_gap = 0.0;  ///< |left - right|
  double scale = 0.0;         ///< max(1, |left|, |right|)
  double scaled_gap = 0.0;    ///< |left / scale - right / scale|
  double tolerance = 0.0;     ///< the declared bound on scaled_gap
  bool consistent = false;    ///< scaled_gap <= tolerance
};

/// Compares the recorded left and right slopes with the same scale-aware gap.
///
/// Disagreement can mean a kink, a step too large for the curvature, or
/// rounding; agreement cannot prove differentiability.
/// @throws GradCheckError InvalidTolerance, then NonFiniteOneSidedSlope (minus, plus side).
/// Taught in chapter 13.
OneSidedSlopeComparison compare_one_sided_slopes(const CentralDifference& difference,
                                                 double tolerance);
// endregion: one-sided-slope-contract

// region: sampler-contract
/// One selected coordinate of a tensor and its row-major flat offset.
struct SampledCoordinate {
  std::size_t flat_index = 0;           ///< row-major offset of the element
  std::vector<std::size_t> coordinate;  ///< its coordinate, one index per axis
};

/// Selects S = min(max_samples, N) unique, ascending coordinates of `shape`
/// (N elements) without randomness: flat offset floor(k (N - 1) / (S - 1))
/// for k = 0..S-1, or floor(N / 2) when S == 1. Shape [2, 3] with
/// max_samples 4 gives flats [0, 1, 3, 5], coordinates [[0, 0], [0, 1], [1, 0], [1, 2]].
/// @throws GradCheckError ZeroSamples, ShapeOverflow, EmptyTensor,
///         SampleAllocationFailed in that order; TensorAccess only if a sampled
///         offset had no coordinate, which the formula rules out (a guard).
/// Taught in chapter 13.
std::vector<SampledCoordinate> sample_tensor_coordinates(const Shape& shape,
                                                         std::size_t max_samples);
// endregion: sampler-contract

// region: sampled-tensor-check-contract
/// The check of one selected tensor coordinate.
struct CoordinateGradientCheck {
  std::size_t flat_index = 0;           ///< row-major offset of the element
  std::vector<std::size_t> coordinate;  ///< its coordinate, one index per axis
  CentralDifference difference;         ///< the numerical estimate at that element
  GradientComparison comparison;        ///< against the analytic gradient there
};

/// The checks of every selected coordinate, in ascending flat order.
struct TensorGradientCheck {
  Shape shape;                                  ///< the parameter shape
  std::size_t requested_samples = 0;            ///< R, the caller's max_samples
  std::vector<CoordinateGradientCheck> checks;  ///< one per selected coordinate
  bool passed = false;                          ///< every comparison passed
};

/// Checks the analytic gradient of `objective` at the coordinates chosen by
/// sample_tensor_coordinates(parameters.shape(), max_samples).
///
/// `parameters` and `analytic` have the same shape (any shape, e.g. [B, T, V]
/// logits). Before the first objective call, every selected coordinate is
/// validated (probe geometry and a finite analytic value). Then each
/// coordinate is probed in minus, center, plus order by writing the probe
/// into `parameters`, calling `objective(parameters)`, and writing the exact
/// original value back immediately. The objective must be deterministic,
/// side-effect free and smooth across every probe interval.
/// Postcondition: `parameters` holds its original bits on return and on every
/// error path, also when `objective` throws (the exception is then rethrown
/// unchanged).
/// @throws GradCheckError InvalidStep, InvalidTolerance, GradientShapeMismatch,
///         the sampler's kinds, then AtCoordinate wrapping the first failing
///         coordinate's cause (probe geometry, NonFiniteAnalyticGradient,
///         NonFiniteEvaluation, NonFiniteOneSidedSlope, NonFiniteNumericalGradient).
/// Taught in chapter 13; used by chapters 15-16.
TensorGradientCheck sampled_tensor_gradient_check(
    Tensor& parameters, const TensorView& analytic, double step, double tolerance,
    std::size_t max_samples, const std::function<double(const Tensor&)>& objective);
// endregion: sampled-tensor-check-contract

}  // namespace llm
