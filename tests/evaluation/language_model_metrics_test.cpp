// The chapter 7 metrics: the worked [1/2, 1/4] chain, the perfect and uniform
// anchors, impossible targets (+inf, never clamped), empty and invalid input
// with their evidence, whole-span validation before accumulation, target (not
// document) weighting, log-space totals that survive 2000 halves, and the
// accumulator's strong guarantee.
#include "llm/evaluation/language_model_metrics.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;

constexpr double kTolerance = 1e-12;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

std::uint64_t bits(double value) {
  return std::bit_cast<std::uint64_t>(value);
}

TEST(AssignedProbabilityMetrics, ScoresTheTinyChain) {
  const LanguageModelMetrics metrics = score_assigned_probabilities(std::vector<double>{0.5, 0.25});
  EXPECT_NEAR(metrics.total_nll(), 2.079441541680, kTolerance);
  EXPECT_EQ(metrics.total_nll(), -std::log(0.5) + -std::log(0.25));
  EXPECT_EQ(metrics.target_count(), 2u);
  EXPECT_NEAR(metrics.mean_nll(), 1.039720770840, kTolerance);
  EXPECT_EQ(metrics.mean_nll(), metrics.total_nll() / 2.0);
  EXPECT_NEAR(metrics.perplexity(), 2.828427124746, kTolerance);
  EXPECT_EQ(metrics.perplexity(), std::exp(metrics.mean_nll()));
}

TEST(AssignedProbabilityMetrics, PerfectAndUniformAnchors) {
  const LanguageModelMetrics perfect = score_assigned_probabilities(std::vector<double>{1.0, 1.0});
  EXPECT_EQ(bits(perfect.total_nll()), bits(0.0)) << "a certain target adds +0, never -0";
  EXPECT_EQ(bits(perfect.mean_nll()), bits(0.0));
  EXPECT_EQ(perfect.perplexity(), 1.0);
  const LanguageModelMetrics uniform = score_assigned_probabilities(std::vector<double>(5, 0.2));
  EXPECT_NEAR(uniform.mean_nll(), std::log(5.0), kTolerance);
  EXPECT_NEAR(uniform.mean_nll(), 1.609437912434, kTolerance);
  EXPECT_NEAR(uniform.perplexity(), 5.0, kTolerance);
}

TEST(AssignedProbabilityMetrics, ZeroProbabilityGivesInfinityWithoutAClamp) {
  for (double zero : {0.0, -0.0}) {
    const LanguageModelMetrics metrics =
        score_assigned_probabilities(std::vector<double>{0.8, zero});
    EXPECT_EQ(metrics.total_nll(), kInfinity);
    EXPECT_EQ(metrics.mean_nll(), kInfinity);
    EXPECT_EQ(metrics.perplexity(), kInfinity);
    EXPECT_EQ(metrics.target_count(), 2u);
  }
  // Once infinite, later finite terms keep the total infinite.
  const LanguageModelMetrics later =
      score_assigned_probabilities(std::vector<double>{0.0, 0.5, 1.0});
  EXPECT_EQ(later.total_nll(), kInfinity);
}

TEST(AssignedProbabilityMetrics, EmptyInputIsATypedError) {
  const auto error = capture_error<MetricError>([] { score_assigned_probabilities({}); });
  EXPECT_EQ(error->kind(), MetricErrorKind::EmptyTargets);
  EXPECT_EQ(error->kind_name(), "empty-targets");
  EXPECT_STREQ(error->what(), "assigned probabilities must not be empty");
}

TEST(AssignedProbabilityMetrics, NamesEveryInvalidProbabilityAndItsIndex) {
  for (double value : {kInfinity, -kInfinity, -0.1, 1.1, std::nextafter(1.0, 2.0)}) {
    const auto error = capture_error<MetricError>([&] {
      score_assigned_probabilities(std::vector<double>{0.2, value});
    });
    EXPECT_EQ(error->kind(), MetricErrorKind::InvalidProbability);
    EXPECT_EQ(error->kind_name(), "invalid-probability");
    EXPECT_EQ(error->index(), 1u);
    EXPECT_EQ(error->probability(), value);
  }
  const auto nan = capture_error<MetricError>(
      [] { score_assigned_probabilities(std::vector<double>{std::nan("")}); });
  EXPECT_EQ(nan->index(), 0u);
  EXPECT_TRUE(std::isnan(nan->probability()));
  EXPECT_STREQ(nan->what(),
               "assigned probability at index 0 must be finite and within [0, 1], got NaN");
}

TEST(AssignedProbabilityMetrics, ValidatesTheWholeSpanBeforeAddingAnything) {
  // The zero alone would give +inf; the NaN after it must be reported instead.
  const auto error = capture_error<MetricError>([] {
    score_assigned_probabilities(std::vector<double>{0.0, std::nan("")});
  });
  EXPECT_EQ(error->kind(), MetricErrorKind::InvalidProbability);
  EXPECT_EQ(error->index(), 1u);
  EXPECT_TRUE(std::isnan(error->probability()));
}

TEST(AssignedProbabilityMetrics, WeightsTargetsNotDocuments) {
  const LanguageModelMetrics short_document =
      score_assigned_probabilities(std::vector<double>{1.0});
  const LanguageModelMetrics long_document =
      score_assigned_probabilities(std::vector<double>{0.25, 0.25, 0.25});
  const LanguageModelMetrics pooled =
      score_assigned_probabilities(std::vector<double>{1.0, 0.25, 0.25, 0.25});
  EXPECT_EQ(pooled.target_count(), 4u);
  // The same mean as the tiny chain (1.5 ln 2) by coincidence of the chosen
  // numbers; the totals and counts tell the two cases apart.
  EXPECT_NEAR(pooled.total_nll(), 3.0 * std::log(4.0), kTolerance);
  EXPECT_NE(pooled.total_nll(),
            score_assigned_probabilities(std::vector<double>{0.5, 0.25}).total_nll());
  EXPECT_NEAR(pooled.mean_nll(), 1.039720770840, kTolerance);
  EXPECT_NEAR(pooled.perplexity(), 2.828427124746, kTolerance);
  const double equal_document_mean = (short_document.mean_nll() + long_document.mean_nll()) / 2.0;
  EXPECT_NEAR(equal_document_mean, 0.693147180560, kTolerance);
  EXPECT_GT(std::abs(pooled.mean_nll() - equal_document_mean), 0.3);
}

TEST(AssignedProbabilityMetrics, TwoThousandHalvesUnderflowAsAProductButNotAsASum) {
  const std::vector<double> halves(2000, 0.5);
  double product = 1.0;
  for (double half : halves) product *= half;
  EXPECT_EQ(product, 0.0);
  const LanguageModelMetrics metrics = score_assigned_probabilities(halves);
  EXPECT_TRUE(std::isfinite(metrics.total_nll()));
  EXPECT_NEAR(metrics.total_nll(), 2000.0 * std::log(2.0), 1e-9);
  EXPECT_NEAR(metrics.perplexity(), 2.0, kTolerance);
}

TEST(NllAccumulator, AddsAcrossDocumentsWithEqualWeightPerTarget) {
  NllAccumulator accumulator;
  for (double probability : {1.0, 0.25, 0.25, 0.25}) accumulator.add(probability);
  const LanguageModelMetrics metrics = accumulator.finish();
  const LanguageModelMetrics direct =
      score_assigned_probabilities(std::vector<double>{1.0, 0.25, 0.25, 0.25});
  EXPECT_EQ(bits(metrics.total_nll()), bits(direct.total_nll()));
  EXPECT_EQ(bits(metrics.perplexity()), bits(direct.perplexity()));
  EXPECT_EQ(accumulator.target_count(), 4u) << "finish() leaves the accumulator as it was";
}

TEST(NllAccumulator, RejectedProbabilityLeavesTotalAndCountBitForBit) {
  NllAccumulator accumulator;
  accumulator.add(0.3);
  accumulator.add(0.7);
  const std::uint64_t total = bits(accumulator.total_nll());
  for (double bad : {std::nan(""), -kInfinity, 2.0, -1e-300}) {
    const auto error = capture_error<MetricError>([&] { accumulator.add(bad); });
    EXPECT_EQ(error->kind(), MetricErrorKind::InvalidProbability);
    EXPECT_EQ(error->index(), 2u) << "the index is the position the target would have taken";
    EXPECT_EQ(bits(accumulator.total_nll()), total);
    EXPECT_EQ(accumulator.target_count(), 2u);
  }
}

TEST(NllAccumulator, FinishWithoutTargetsIsEmptyTargets) {
  const NllAccumulator accumulator;
  EXPECT_EQ(capture_error<MetricError>([&] { (void)accumulator.finish(); })->kind(),
            MetricErrorKind::EmptyTargets);
}

}  // namespace
}  // namespace llm
