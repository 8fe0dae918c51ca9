// Probe geometry, central differences, comparisons, the coordinate sampler and
// sampled tensor checks, including bit-exact restoration on every failure.
#include "llm/autograd/gradcheck.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::bits_of;
using testing::capture_error;

constexpr double nan_value = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_value = std::numeric_limits<double>::infinity();
constexpr double max_value = std::numeric_limits<double>::max();
constexpr std::size_t max_size = std::numeric_limits<std::size_t>::max();

double square(double x) {
  return x * x;
}

using Coordinates = std::vector<std::vector<std::size_t>>;

std::vector<std::size_t> flats_of(const std::vector<SampledCoordinate>& samples) {
  std::vector<std::size_t> flats;
  for (const SampledCoordinate& sample : samples) flats.push_back(sample.flat_index);
  return flats;
}

Coordinates coordinates_of(const std::vector<SampledCoordinate>& samples) {
  Coordinates coordinates;
  for (const SampledCoordinate& sample : samples) coordinates.push_back(sample.coordinate);
  return coordinates;
}

// ---- central difference and probe geometry ----------------------------------

TEST(CentralDifference, ReproducesTheChapterQuadraticProbes) {
  const CentralDifference d = central_difference(3.0, 0.1, square);
  EXPECT_EQ(d.minus_point, 3.0 - 0.1);
  EXPECT_EQ(d.plus_point, 3.0 + 0.1);
  EXPECT_EQ(d.minus_spacing, 1.00000000000000089e-1);
  EXPECT_EQ(d.plus_spacing, 1.00000000000000089e-1);
  EXPECT_EQ(d.stencil, Stencil::Symmetric);
  EXPECT_EQ(d.left_weight, 0.5);
  EXPECT_EQ(d.right_weight, 0.5);
  EXPECT_NEAR(d.minus_value, 8.41, 1e-12);
  EXPECT_EQ(d.center_value, 9.0);
  EXPECT_NEAR(d.plus_value, 9.61, 1e-12);
  EXPECT_NEAR(d.left_slope, 5.9, 1e-12);
  EXPECT_NEAR(d.right_slope, 6.1, 1e-12);
  EXPECT_NEAR(d.derivative, 6.0, 1e-12);
}

TEST(CentralDifference, EvaluatesMinusThenCenterThenPlusExactlyOnce) {
  std::vector<double> calls;
  const CentralDifference d = central_difference(2.0, 0.5, [&](double x) {
    calls.push_back(x);
    return x;
  });
  EXPECT_EQ(calls, (std::vector<double>{1.5, 2.0, 2.5}));
  EXPECT_EQ(d.derivative, 1.0);
}

TEST(CentralDifference, UsesActualUnequalSpacingsForTheRoundedIdentity) {
  const double step = 1.33226762955018780e-16;
  const CentralDifference d = central_difference(1.0, step, [](double x) { return x; });
  EXPECT_EQ(d.minus_spacing, 1.11022302462515654e-16);
  EXPECT_EQ(d.plus_spacing, 2.22044604925031308e-16);
  EXPECT_EQ(d.stencil, Stencil::Unequal);
  EXPECT_EQ(d.left_slope, 1.0);
  EXPECT_EQ(d.right_slope, 1.0);
  EXPECT_NEAR(d.left_weight, 2.0 / 3.0, 1e-16);
  EXPECT_NEAR(d.right_weight, 1.0 / 3.0, 1e-16);

  const GradientComparison weighted = compare_gradients(1.0, d.derivative, 1e-12);
  EXPECT_TRUE(weighted.passed);
  // The requested-2h denominator describes probes that do not exist: it gives 1.25.
  const double requested_two_step = (d.plus_value - d.minus_value) / (2.0 * step);
  EXPECT_EQ(requested_two_step, 1.25);
  EXPECT_FALSE(compare_gradients(1.0, requested_two_step, 1e-12).passed);
}

// The identity's slopes are both 1, so it cannot tell the weights apart. A
// parabola whose slopes differ can: at 2^53 the doubles are 1 apart below and
// 2 apart above, so h = 1.2 gives spacings 1 and 2, slopes -1 and 2, and the
// three-point weights 2/3 and 1/3 give the exact derivative 0. Swapped weights
// would give 1, the requested-2h quotient 1.25 (chapter 13).
TEST(CentralDifference, UnequalSpacingWeightsGiveTheExactDerivativeOfAParabola) {
  const double point = 9007199254740992.0;  // 2^53
  const CentralDifference d = central_difference(point, 1.2, [point](double x) {
    const double offset = x - point;
    return offset * offset;
  });
  EXPECT_EQ(d.minus_spacing, 1.0);
  EXPECT_EQ(d.plus_spacing, 2.0);
  EXPECT_EQ(d.left_slope, -1.0);
  EXPECT_EQ(d.right_slope, 2.0);
  EXPECT_EQ(d.left_weight, 2.0 / 3.0);
  EXPECT_EQ(d.right_weight, 1.0 / 3.0);
  EXPECT_EQ(d.derivative, 0.0);
  EXPECT_EQ(d.right_weight * d.left_slope + d.left_weight * d.right_slope, 1.0);
  EXPECT_EQ((d.plus_value - d.minus_value) / (2.0 * 1.2), 1.25);
}

TEST(CentralDifference, ReportsTheKinkOfAbsoluteValueThroughItsSlopes) {
  const CentralDifference d = central_difference(0.0, 1e-3, [](double x) { return std::fabs(x); });
  EXPECT_EQ(d.left_slope, -1.0);
  EXPECT_EQ(d.right_slope, 1.0);
  EXPECT_EQ(d.derivative, 0.0);
  // Candidate 0 passes: a false pass outside the smoothness precondition.
  EXPECT_TRUE(compare_gradients(0.0, d.derivative, 1e-12).passed);
  const OneSidedSlopeComparison slopes = compare_one_sided_slopes(d, 1e-12);
  EXPECT_FALSE(slopes.consistent);
  EXPECT_EQ(slopes.absolute_gap, 2.0);
  EXPECT_EQ(slopes.scaled_gap, 2.0);
}

TEST(ProbeGeometry, FormsWeightsWithoutOverflowForHugeSpacings) {
  // h- + h+ would overflow to infinity; the ratio form stays finite.
  const ProbeGeometry geometry = probe_geometry(0.0, max_value);
  EXPECT_EQ(geometry.minus_spacing, max_value);
  EXPECT_EQ(geometry.plus_spacing, max_value);
  EXPECT_EQ(geometry.left_weight, 0.5);
  EXPECT_EQ(geometry.right_weight, 0.5);
}

// ---- the scalar check ----------------------------------------------------------

TEST(ScalarGradientCheck, ReproducesTheChapterQuadraticCandidates) {
  const ScalarGradientCheck correct = scalar_gradient_check(3.0, 6.0, 0.1, 1e-6, square);
  EXPECT_TRUE(correct.comparison.passed);
  EXPECT_EQ(correct.comparison.scale, 6.0);
  EXPECT_LT(correct.comparison.scaled_error, 1e-14);

  const ScalarGradientCheck wrong = scalar_gradient_check(3.0, 5.5, 0.1, 1e-6, square);
  EXPECT_FALSE(wrong.comparison.passed);  // a completed comparison, not an error
  EXPECT_NEAR(wrong.comparison.scale, 6.0, 1e-12);
  EXPECT_NEAR(wrong.comparison.scaled_error, 1.0 / 12.0, 1e-12);
  EXPECT_NEAR(wrong.comparison.absolute_error, 0.5, 1e-12);
  EXPECT_EQ(wrong.comparison.tolerance, 1e-6);
}

TEST(ScalarGradientCheck, ReproducesTheChapterCubicScanEndpoints) {
  const auto cubic = [](double x) { return x * x * x - 2.0 * x; };
  const ScalarGradientCheck trusted = scalar_gradient_check(1.5, 4.75, 1e-5, 1e-6, cubic);
  EXPECT_TRUE(trusted.comparison.passed);
  EXPECT_EQ(trusted.difference.minus_spacing, 1.00000000000655120e-5);
  EXPECT_NEAR(trusted.comparison.scaled_error, 2.103583973678e-11, 1e-22);

  const ScalarGradientCheck rounded = scalar_gradient_check(1.5, 4.75, 1e-15, 1e-6, cubic);
  EXPECT_FALSE(rounded.comparison.passed);
  EXPECT_EQ(rounded.difference.minus_spacing, 1.11022302462515654e-15);
  EXPECT_NEAR(rounded.difference.left_slope, 4.4, 1e-12);
  EXPECT_NEAR(rounded.difference.right_slope, 5.2, 1e-12);
  EXPECT_NEAR(rounded.comparison.scaled_error, 1.041666666667e-2, 1e-14);
}

TEST(CompareGradients, FloorsTheScaleAtOneForSmallGradients) {
  const GradientComparison c = compare_gradients(1e-9, 3e-9, 1e-8);
  EXPECT_EQ(c.scale, 1.0);
  EXPECT_EQ(c.scaled_error, c.absolute_error);
  EXPECT_TRUE(c.passed);
}

TEST(CompareGradients, PassesWhenTheScaledErrorEqualsTheTolerance) {
  const GradientComparison c = compare_gradients(0.0, 0.25, 0.25);
  EXPECT_EQ(c.scaled_error, 0.25);
  EXPECT_TRUE(c.passed);
}

TEST(CompareGradients, StaysFiniteForHugeGradientsOfOppositeSign) {
  // |a - n| overflows, yet the scaled error |a/s - n/s| is exactly 2.
  const GradientComparison c = compare_gradients(max_value, -max_value, 0.0);
  EXPECT_EQ(c.scaled_error, 2.0);
  EXPECT_FALSE(c.passed);
}

// ---- every error kind -----------------------------------------------------------

TEST(GradCheckErrors, RejectsAZeroNegativeOrNonFiniteStep) {
  for (double step : {0.0, -0.1, nan_value, inf_value}) {
    const auto error =
        capture_error<GradCheckError>([&] { central_difference(1.0, step, square); });
    ASSERT_TRUE(error);
    EXPECT_EQ(error->kind(), GradCheckErrorKind::InvalidStep);
  }
  const auto zero = capture_error<GradCheckError>([] { central_difference(1.0, 0.0, square); });
  EXPECT_EQ(zero->step(), 0.0);
  EXPECT_STREQ(zero->what(), "central-difference requested step 0.0 must be positive and finite");
}

TEST(GradCheckErrors, RejectsANonFinitePoint) {
  const auto error =
      capture_error<GradCheckError>([] { central_difference(nan_value, 0.1, square); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), GradCheckErrorKind::NonFinitePoint);
  EXPECT_STREQ(error->what(), "gradient-check point NaN must be finite");
}

TEST(GradCheckErrors, RejectsAProbeThatOverflows) {
  const auto plus =
      capture_error<GradCheckError>([] { central_difference(max_value, max_value, square); });
  ASSERT_TRUE(plus);
  EXPECT_EQ(plus->kind(), GradCheckErrorKind::PerturbationNotFinite);
  EXPECT_EQ(plus->side(), DifferenceSide::Plus);
  const auto minus =
      capture_error<GradCheckError>([] { central_difference(-max_value, max_value, square); });
  ASSERT_TRUE(minus);
  EXPECT_EQ(minus->kind(), GradCheckErrorKind::PerturbationNotFinite);
  EXPECT_EQ(minus->side(), DifferenceSide::Minus);
}

TEST(GradCheckErrors, RejectsACollapsedProbeInsteadOfReportingZero) {
  int calls = 0;
  const auto error = capture_error<GradCheckError>([&] {
    central_difference(1.0, 1e-20, [&](double x) {
      ++calls;
      return x * x;
    });
  });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), GradCheckErrorKind::PerturbationUnchanged);
  EXPECT_EQ(error->side(), DifferenceSide::Minus);
  EXPECT_EQ(error->point(), 1.0);
  EXPECT_EQ(error->step(), 1e-20);
  EXPECT_STREQ(error->what(),
               "minus perturbation from point 1.0 by step 1e-20 rounds back to the point");
  EXPECT_EQ(calls, 0);
}

TEST(GradCheckErrors, DefensiveSpacingAndWeightKindsNameTheirValues) {
  // Rounding to nearest keeps both actual spacings positive and finite and the
  // ratio weights finite once the probes are valid, so these two kinds guard
  // invariants; their messages still name the evidence.
  const GradCheckError spacing = GradCheckError(
      GradCheckErrorKind::InvalidActualSpacing,
      {.side = DifferenceSide::Plus, .point = 1.0, .probe = 2.0, .spacing = inf_value});
  EXPECT_EQ(spacing.kind(), GradCheckErrorKind::InvalidActualSpacing);
  EXPECT_EQ(spacing.probe(), 2.0);
  EXPECT_STREQ(
      spacing.what(),
      "plus actual spacing from point 1.0 to probe 2.0 must be positive and finite, got inf");
  const GradCheckError weight = GradCheckError(GradCheckErrorKind::NonFiniteStencilWeight,
                                               {.side = DifferenceSide::Minus, .value = nan_value});
  EXPECT_EQ(weight.kind(), GradCheckErrorKind::NonFiniteStencilWeight);
  EXPECT_STREQ(weight.what(), "minus stencil weight is not finite: NaN");
}

TEST(GradCheckErrors, NamesTheSideOfANonFiniteEvaluation) {
  // sqrt at 0: the minus probe -0.1 leaves the domain.
  const auto minus = capture_error<GradCheckError>(
      [] { central_difference(0.0, 0.1, [](double x) { return std::sqrt(x); }); });
  ASSERT_TRUE(minus);
  EXPECT_EQ(minus->kind(), GradCheckErrorKind::NonFiniteEvaluation);
  EXPECT_EQ(minus->side(), DifferenceSide::Minus);
  EXPECT_STREQ(minus->what(), "minus function evaluation returned NaN");

  const auto center = capture_error<GradCheckError>(
      [] { central_difference(2.0, 0.5, [](double x) { return x == 2.0 ? inf_value : x; }); });
  ASSERT_TRUE(center);
  EXPECT_EQ(center->side(), DifferenceSide::Center);
  EXPECT_EQ(center->value(), inf_value);

  const auto plus = capture_error<GradCheckError>(
      [] { central_difference(2.0, 0.5, [](double x) { return x > 2.0 ? -inf_value : x; }); });
  ASSERT_TRUE(plus);
  EXPECT_EQ(plus->side(), DifferenceSide::Plus);
  EXPECT_STREQ(plus->what(), "plus function evaluation returned -inf");
}

TEST(GradCheckErrors, RejectsAOneSidedSlopeThatOverflows) {
  // Finite values a huge distance apart over the smallest subnormal spacing.
  const double tiny = std::numeric_limits<double>::denorm_min();
  const auto left = capture_error<GradCheckError>(
      [&] { central_difference(0.0, tiny, [](double x) { return x < 0.0 ? -1e300 : 1e300; }); });
  ASSERT_TRUE(left);
  EXPECT_EQ(left->kind(), GradCheckErrorKind::NonFiniteOneSidedSlope);
  EXPECT_EQ(left->side(), DifferenceSide::Minus);
  const auto right = capture_error<GradCheckError>(
      [&] { central_difference(0.0, tiny, [](double x) { return x > 0.0 ? 1e300 : 0.0; }); });
  ASSERT_TRUE(right);
  EXPECT_EQ(right->side(), DifferenceSide::Plus);
  EXPECT_EQ(right->value(), inf_value);
}

TEST(GradCheckErrors, RejectsANonFiniteNumericalGradient) {
  // A numerical value handed to the comparison is checked like the estimate.
  const auto error = capture_error<GradCheckError>([] { compare_gradients(1.0, nan_value, 1e-6); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), GradCheckErrorKind::NonFiniteNumericalGradient);
  EXPECT_STREQ(error->what(), "central difference produced non-finite gradient NaN");
}

TEST(GradCheckErrors, RejectsANegativeOrNonFiniteToleranceBeforeEvaluating) {
  for (double tolerance : {-1e-9, nan_value, inf_value}) {
    int calls = 0;
    const auto error = capture_error<GradCheckError>([&] {
      scalar_gradient_check(3.0, 6.0, 0.1, tolerance, [&](double x) {
        ++calls;
        return x * x;
      });
    });
    ASSERT_TRUE(error);
    EXPECT_EQ(error->kind(), GradCheckErrorKind::InvalidTolerance);
    EXPECT_EQ(calls, 0);
  }
  const auto slopes = capture_error<GradCheckError>(
      [] { compare_one_sided_slopes(central_difference(3.0, 0.1, square), -1.0); });
  ASSERT_TRUE(slopes);
  EXPECT_EQ(slopes->kind(), GradCheckErrorKind::InvalidTolerance);
  EXPECT_STREQ(slopes->what(), "gradient-check tolerance -1.0 must be finite and nonnegative");
}

TEST(GradCheckErrors, RejectsANonFiniteAnalyticCandidate) {
  const auto error = capture_error<GradCheckError>(
      [] { scalar_gradient_check(3.0, inf_value, 0.1, 1e-6, square); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), GradCheckErrorKind::NonFiniteAnalyticGradient);
  EXPECT_STREQ(error->what(), "analytic gradient inf must be finite");
}

TEST(GradCheckErrors, RejectsNonFiniteRecordedSlopes) {
  CentralDifference difference = central_difference(3.0, 0.1, square);
  difference.right_slope = nan_value;
  const auto error =
      capture_error<GradCheckError>([&] { compare_one_sided_slopes(difference, 1e-6); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), GradCheckErrorKind::NonFiniteOneSidedSlope);
  EXPECT_EQ(error->side(), DifferenceSide::Plus);
}

TEST(GradCheckErrors, SamplerRejectsZeroSamplesOverflowEmptyAndUnallocatableRequests) {
  const auto zero = capture_error<GradCheckError>([] { sample_tensor_coordinates({2, 3}, 0); });
  ASSERT_TRUE(zero);
  EXPECT_EQ(zero->kind(), GradCheckErrorKind::ZeroSamples);

  const auto overflow = capture_error<GradCheckError>([] {
    sample_tensor_coordinates({max_size, 2}, 1);
  });
  ASSERT_TRUE(overflow);
  EXPECT_EQ(overflow->kind(), GradCheckErrorKind::ShapeOverflow);
  EXPECT_EQ(overflow->parameter_shape(), (Shape{max_size, 2}));

  const auto empty = capture_error<GradCheckError>([] { sample_tensor_coordinates({2, 0}, 4); });
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->kind(), GradCheckErrorKind::EmptyTensor);
  EXPECT_EQ(empty->parameter_shape(), (Shape{2, 0}));
  EXPECT_STREQ(empty->what(),
               "sampled tensor gradient check needs at least one value, but shape [2, 0] has none");

  const std::size_t huge = max_size / 2;
  const auto allocation =
      capture_error<GradCheckError>([&] { sample_tensor_coordinates({huge}, huge); });
  ASSERT_TRUE(allocation);
  EXPECT_EQ(allocation->kind(), GradCheckErrorKind::SampleAllocationFailed);
  EXPECT_EQ(allocation->samples(), huge);
  EXPECT_EQ(allocation->rank(), 1u);
  EXPECT_EQ(std::string(allocation->what()),
            "cannot allocate " + std::to_string(huge) + " sampled coordinates of rank 1");
}

TEST(GradCheckErrors, TensorAccessWrapsTheTensorErrorMessage) {
  const TensorError cause(TensorErrorKind::OffsetOutOfBounds,
                          {.shape = {2, 3}, .index = 6, .expected = 6});
  const GradCheckError error = GradCheckError::tensor_access(cause);
  EXPECT_EQ(error.kind(), GradCheckErrorKind::TensorAccess);
  EXPECT_EQ(error.tensor_error_kind(), TensorErrorKind::OffsetOutOfBounds);
  EXPECT_STREQ(error.what(), cause.what());
}

TEST(GradCheckErrors, EveryKindHasADistinctName) {
  std::vector<std::string> names;
  for (int k = 0; k <= static_cast<int>(GradCheckErrorKind::AtCoordinate); ++k) {
    const std::string name(GradCheckError::kind_name_of(static_cast<GradCheckErrorKind>(k)));
    EXPECT_NE(name, "unknown");
    for (const std::string& earlier : names) EXPECT_NE(name, earlier);
    names.push_back(name);
  }
  EXPECT_EQ(names.size(), 18u);
}

// ---- the deterministic sampler ------------------------------------------------------

TEST(SampleTensorCoordinates, SpreadsFourSamplesOverTheChapterShape) {
  const std::vector<SampledCoordinate> samples = sample_tensor_coordinates({2, 3}, 4);
  EXPECT_EQ(flats_of(samples), (std::vector<std::size_t>{0, 1, 3, 5}));
  EXPECT_EQ(coordinates_of(samples), (Coordinates{{0, 0}, {0, 1}, {1, 0}, {1, 2}}));
}

TEST(SampleTensorCoordinates, PicksTheUpperMiddleForOneSample) {
  EXPECT_EQ(flats_of(sample_tensor_coordinates({2, 3}, 1)), (std::vector<std::size_t>{3}));
  EXPECT_EQ(flats_of(sample_tensor_coordinates({5}, 1)), (std::vector<std::size_t>{2}));
  EXPECT_EQ(coordinates_of(sample_tensor_coordinates({}, 1)), (Coordinates{{}}));
}

TEST(SampleTensorCoordinates, TakesEveryElementWhenMoreAreRequested) {
  const std::vector<SampledCoordinate> samples = sample_tensor_coordinates({2, 2}, 10);
  EXPECT_EQ(flats_of(samples), (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_EQ(coordinates_of(samples), (Coordinates{{0, 0}, {0, 1}, {1, 0}, {1, 1}}));
}

TEST(SampleTensorCoordinates, IncludesBothEndsForOtherShapes) {
  EXPECT_EQ(flats_of(sample_tensor_coordinates({10}, 2)), (std::vector<std::size_t>{0, 9}));
  EXPECT_EQ(flats_of(sample_tensor_coordinates({2, 3, 4}, 5)),
            (std::vector<std::size_t>{0, 5, 11, 17, 23}));
  EXPECT_EQ(coordinates_of(sample_tensor_coordinates({2, 3, 4}, 3)),
            (Coordinates{{0, 0, 0}, {0, 2, 3}, {1, 2, 3}}));
}

TEST(SampleTensorCoordinates, AvoidsOverflowInTheProductForHugeShapes) {
  // k (N - 1) exceeds size_t for k = 2 here; the quotient is exact anyway.
  const std::size_t elements = max_size;
  const std::vector<SampledCoordinate> samples = sample_tensor_coordinates({elements}, 3);
  EXPECT_EQ(flats_of(samples), (std::vector<std::size_t>{0, (elements - 1) / 2, elements - 1}));
}

// ---- the sampled tensor check ----------------------------------------------------------

// f(p) = sum_i w_i p_i^2 with gradient 2 w_i p_i.
double weighted_squares(const Tensor& parameters) {
  double sum = 0.0;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    sum += static_cast<double>(i + 1) * parameters.values()[i] * parameters.values()[i];
  }
  return sum;
}

TEST(SampledTensorGradientCheck, PassesACorrectGradientAndRestoresTheParameters) {
  Tensor parameters({2, 3}, {0.5, -1.25, 2.0, 0.1, -0.3, 0.75});
  std::vector<double> gradient;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    gradient.push_back(2.0 * static_cast<double>(i + 1) * parameters.values()[i]);
  }
  const Tensor analytic({2, 3}, gradient);
  const std::vector<std::uint64_t> before = bits_of(parameters);

  const TensorGradientCheck check =
      sampled_tensor_gradient_check(parameters, analytic.view(), 1e-5, 1e-7, 4, weighted_squares);
  EXPECT_TRUE(check.passed);
  EXPECT_EQ(check.shape, (Shape{2, 3}));
  EXPECT_EQ(check.requested_samples, 4u);
  ASSERT_EQ(check.checks.size(), 4u);
  EXPECT_EQ(check.checks[2].flat_index, 3u);
  EXPECT_EQ(check.checks[2].coordinate, (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(check.checks[2].comparison.analytic, gradient[3]);
  EXPECT_EQ(bits_of(parameters), before);
}

TEST(SampledTensorGradientCheck, ReturnsAFailedComparisonForAWrongCandidate) {
  Tensor parameters({3}, {1.0, 2.0, 3.0});
  const Tensor wrong({3}, {2.0, 8.0, 0.0});  // the last entry should be 18
  const TensorGradientCheck check =
      sampled_tensor_gradient_check(parameters, wrong.view(), 1e-5, 1e-7, 3, weighted_squares);
  EXPECT_FALSE(check.passed);
  EXPECT_TRUE(check.checks[0].comparison.passed);
  EXPECT_TRUE(check.checks[1].comparison.passed);
  EXPECT_FALSE(check.checks[2].comparison.passed);
}

TEST(SampledTensorGradientCheck, RestoresExactBitsAndNamesTheLaterCoordinateWhoseObjectiveFails) {
  Tensor parameters({2, 3}, {0.1, -0.0, 0.3, 1e-300, 0.5, 0.6});
  const Tensor analytic({2, 3}, {0.0, 0.0, 0.0, 0.0, 0.0, 0.0});
  const std::vector<std::uint64_t> before = bits_of(parameters);
  int calls = 0;
  // The objective is NaN whenever the last value is probed: coordinate [1, 2]
  // is the fourth sample, after three coordinates have already been probed.
  const auto error = capture_error<GradCheckError>([&] {
    sampled_tensor_gradient_check(parameters, analytic.view(), 1e-3, 1e-6, 4, [&](const Tensor& p) {
      ++calls;
      return p.values()[5] != 0.6 ? nan_value : 1.0;
    });
  });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), GradCheckErrorKind::AtCoordinate);
  EXPECT_EQ(error->coordinate(), (std::vector<std::size_t>{1, 2}));
  ASSERT_NE(error->cause(), nullptr);
  EXPECT_EQ(error->cause()->kind(), GradCheckErrorKind::NonFiniteEvaluation);
  EXPECT_EQ(error->cause()->side(), DifferenceSide::Minus);
  EXPECT_STREQ(
      error->what(),
      "gradient check at coordinate [1, 2] failed: minus function evaluation returned NaN");
  EXPECT_EQ(calls, 3 * 3 + 1);
  EXPECT_EQ(bits_of(parameters), before);
}

TEST(SampledTensorGradientCheck, RestoresTheParametersAndRethrowsWhenTheObjectiveThrows) {
  Tensor parameters({2, 2}, {1.5, -2.5, 3.5, -4.5});
  const Tensor analytic({2, 2}, {1.0, 1.0, 1.0, 1.0});
  const std::vector<std::uint64_t> before = bits_of(parameters);
  int calls = 0;
  EXPECT_THROW(sampled_tensor_gradient_check(parameters, analytic.view(), 1e-4, 1e-6, 4,
                                             [&](const Tensor& p) {
                                               if (++calls == 4) {
                                                 throw std::runtime_error("objective failed");
                                               }
                                               return p.values()[0];
                                             }),
               std::runtime_error);
  EXPECT_EQ(calls, 4);  // thrown while the second coordinate holds its minus probe
  EXPECT_EQ(bits_of(parameters), before);
}

TEST(SampledTensorGradientCheck, PassesTheObjectivesOwnGradCheckErrorThroughUnwrapped) {
  Tensor parameters({3}, {1.0, 2.0, 3.0});
  const Tensor analytic({3}, {0.0, 0.0, 0.0});
  const std::vector<std::uint64_t> before = bits_of(parameters);
  const auto error = capture_error<GradCheckError>([&] {
    sampled_tensor_gradient_check(parameters, analytic.view(), 1e-4, 1e-6, 3,
                                  [](const Tensor& p) -> double {
                                    if (p.values()[2] != 3.0)
                                      throw GradCheckError(GradCheckErrorKind::EmptyTensor);
                                    return 0.0;
                                  });
  });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), GradCheckErrorKind::EmptyTensor);  // not wrapped AtCoordinate
  EXPECT_EQ(bits_of(parameters), before);
}

TEST(SampledTensorGradientCheck, ValidatesEveryCoordinateBeforeTheFirstObjectiveCall) {
  Tensor parameters({2, 3}, {0.0, 1.0, 2.0, 3.0, 4.0, 5.0});
  const Tensor analytic({2, 3}, {0.0, 0.0, 0.0, 0.0, 0.0, nan_value});
  int calls = 0;
  const auto error = capture_error<GradCheckError>([&] {
    sampled_tensor_gradient_check(parameters, analytic.view(), 1e-5, 1e-6, 4,
                                  [&](const Tensor&) { return static_cast<double>(++calls); });
  });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), GradCheckErrorKind::AtCoordinate);
  EXPECT_EQ(error->coordinate(), (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(error->cause()->kind(), GradCheckErrorKind::NonFiniteAnalyticGradient);
  EXPECT_EQ(calls, 0);
}

TEST(SampledTensorGradientCheck, RejectsACollapsedProbeAtALateCoordinateBeforeProbing) {
  Tensor parameters({4}, {0.0, 1.0, 2.0, 1e30});  // 1e30 + 1e-5 == 1e30
  const Tensor analytic({4}, {0.0, 0.0, 0.0, 0.0});
  const std::vector<std::uint64_t> before = bits_of(parameters);
  int calls = 0;
  const auto error = capture_error<GradCheckError>([&] {
    sampled_tensor_gradient_check(parameters, analytic.view(), 1e-5, 1e-6, 4,
                                  [&](const Tensor&) { return static_cast<double>(++calls); });
  });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->coordinate(), (std::vector<std::size_t>{3}));
  EXPECT_EQ(error->cause()->kind(), GradCheckErrorKind::PerturbationUnchanged);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(bits_of(parameters), before);
}

TEST(SampledTensorGradientCheck, ChecksStepToleranceAndShapeInThatOrder) {
  Tensor parameters({2}, {1.0, 2.0});
  const Tensor mismatched({1, 2}, {0.0, 0.0});
  const auto objective = [](const Tensor&) { return 0.0; };

  const auto step = capture_error<GradCheckError>([&] {
    sampled_tensor_gradient_check(parameters, mismatched.view(), 0.0, -1.0, 0, objective);
  });
  EXPECT_EQ(step->kind(), GradCheckErrorKind::InvalidStep);
  const auto tolerance = capture_error<GradCheckError>([&] {
    sampled_tensor_gradient_check(parameters, mismatched.view(), 1e-5, -1.0, 0, objective);
  });
  EXPECT_EQ(tolerance->kind(), GradCheckErrorKind::InvalidTolerance);
  const auto shape = capture_error<GradCheckError>([&] {
    sampled_tensor_gradient_check(parameters, mismatched.view(), 1e-5, 1e-6, 0, objective);
  });
  ASSERT_TRUE(shape);
  EXPECT_EQ(shape->kind(), GradCheckErrorKind::GradientShapeMismatch);
  EXPECT_EQ(shape->parameter_shape(), (Shape{2}));
  EXPECT_EQ(shape->analytic_shape(), (Shape{1, 2}));
  EXPECT_STREQ(shape->what(), "parameter shape [2] does not match analytic-gradient shape [1, 2]");

  const Tensor analytic({2}, {0.0, 0.0});
  const auto samples = capture_error<GradCheckError>([&] {
    sampled_tensor_gradient_check(parameters, analytic.view(), 1e-5, 1e-6, 0, objective);
  });
  EXPECT_EQ(samples->kind(), GradCheckErrorKind::ZeroSamples);
}

}  // namespace
}  // namespace llm
