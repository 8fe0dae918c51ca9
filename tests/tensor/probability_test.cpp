// Stable sigmoid, log-softmax with emitted probabilities, and indexed mean NLL.
#include "llm/tensor/probability.hpp"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "llm/format.hpp"
#include "llm/tensor/elementwise.hpp"
#include "llm/tensor/reduction.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;
using testing::values_of;

const Tensor chapter_logits({2, 3}, {0.0, 1.0, -1.0, 2.0, 0.0, -2.0});
const std::vector<std::size_t> chapter_targets = {0, 2};
constexpr double nan_value = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_value = std::numeric_limits<double>::infinity();

// -log softmax(row)[target] straight from the definition, for rows of moderate logits.
double reference_row_nll(const std::vector<double>& row, std::size_t target) {
  double sum = 0.0;
  for (double logit : row) sum += std::exp(logit);
  return std::log(sum) - row[target];
}

TEST(IndexedMeanNll, MatchesTheChapterLossOnTheClassAxis) {
  const double loss = indexed_mean_nll(chapter_logits.view(), 1, chapter_targets);
  EXPECT_NEAR(loss, 2.775268796472, 5e-13);
  const double reference =
      (reference_row_nll({0.0, 1.0, -1.0}, 0) + reference_row_nll({2.0, 0.0, -2.0}, 2)) / 2.0;
  EXPECT_NEAR(loss, reference, 1e-14);
}

TEST(IndexedMeanNll, GroupsAlongAxisZeroAreColumns) {
  // Along axis 0 the groups are the three columns [0, 2], [1, 0], [-1, -2].
  const std::vector<std::size_t> targets = {1, 0, 1};
  const double loss = indexed_mean_nll(chapter_logits.view(), 0, targets);
  const double reference = (reference_row_nll({0.0, 2.0}, 1) + reference_row_nll({1.0, 0.0}, 0) +
                            reference_row_nll({-1.0, -2.0}, 1)) /
                           3.0;
  EXPECT_NEAR(loss, reference, 1e-15);
}

TEST(IndexedMeanNll, GroupsOfAMiddleAxisFollowRowMajorOrder) {
  // Shape [2, 2, 2] along axis 1: groups (o, i) in order (0,0), (0,1), (1,0), (1,1).
  const Tensor logits({2, 2, 2}, {1.0, 5.0, 3.0, 2.0, -1.0, 0.0, 4.0, -3.0});
  const std::vector<std::size_t> targets = {1, 0, 0, 1};
  const double loss = indexed_mean_nll(logits.view(), 1, targets);
  const double reference = (reference_row_nll({1.0, 3.0}, 1) + reference_row_nll({5.0, 2.0}, 0) +
                            reference_row_nll({-1.0, 4.0}, 0) + reference_row_nll({0.0, -3.0}, 1)) /
                           4.0;
  EXPECT_NEAR(loss, reference, 1e-15);
}

TEST(IndexedMeanNll, StaysFiniteAndCorrectForLogitsOfMagnitudeOneThousand) {
  const Tensor logits({2, 2}, {1000.0, -1000.0, -1000.0, 1000.0});
  // Row 0 targets its winner (loss about exp(-2000) = 0), row 1 its loser (loss 2000).
  const std::vector<std::size_t> targets = {0, 0};
  const IndexedNllForward forward =
      indexed_mean_nll_forward(logits.view(), 1, targets, EmitProbabilities::Yes);
  EXPECT_TRUE(std::isfinite(forward.loss));
  EXPECT_DOUBLE_EQ(forward.loss, 1000.0);
  ASSERT_TRUE(forward.probabilities.has_value());
  EXPECT_EQ(values_of(*forward.probabilities), (std::vector<double>{1.0, 0.0, 0.0, 1.0}));
}

TEST(IndexedMeanNll, EmitsProbabilitiesOnlyWhenRequested) {
  const IndexedNllForward without =
      indexed_mean_nll_forward(chapter_logits.view(), 1, chapter_targets, EmitProbabilities::No);
  EXPECT_FALSE(without.probabilities.has_value());
  const IndexedNllForward with =
      indexed_mean_nll_forward(chapter_logits.view(), 1, chapter_targets, EmitProbabilities::Yes);
  ASSERT_TRUE(with.probabilities.has_value());
  EXPECT_EQ(with.probabilities->shape(), (Shape{2, 3}));
  // Both calls compute the same loss bits from the same statistics.
  EXPECT_EQ(with.loss, without.loss);
  // The saved probabilities are the ones log_softmax_forward emits for the same logits.
  const LogSoftmaxForward softmax =
      log_softmax_forward(chapter_logits.view(), 1, EmitProbabilities::Yes);
  EXPECT_EQ(values_of(*with.probabilities), values_of(*softmax.probabilities));
}

TEST(LogSoftmax, EmittedProbabilitiesSumToOneAndEqualExpOfLogSoftmax) {
  const Tensor logits({2, 3, 2}, {0.5, -1.0, 2.0, 0.0, -0.5, 3.0, 1.0, 1.0, -2.0, 4.0, 0.25, -3.0});
  for (std::size_t axis = 0; axis < 3; ++axis) {
    const LogSoftmaxForward forward =
        log_softmax_forward(logits.view(), axis, EmitProbabilities::Yes);
    ASSERT_TRUE(forward.probabilities.has_value());
    const TensorView values = forward.value.view();
    const TensorView probabilities = forward.probabilities->view();
    for (std::size_t offset = 0; offset < logits.size(); ++offset) {
      EXPECT_NEAR(probabilities.contiguous_values()[offset],
                  std::exp(values.contiguous_values()[offset]), 1e-15);
    }
    // Every group (a line along `axis`) sums to one.
    Shape group_shape = logits.shape();
    group_shape[axis] = 1;
    for (std::size_t group = 0; group < element_count(group_shape); ++group) {
      std::vector<std::size_t> coordinate = coordinate_from_offset(group_shape, group);
      double sum = 0.0;
      for (std::size_t c = 0; c < logits.shape()[axis]; ++c) {
        coordinate[axis] = c;
        sum += probabilities.at(coordinate);
      }
      EXPECT_NEAR(sum, 1.0, 1e-15) << "axis " << axis << " group " << group;
    }
  }
}

TEST(LogSoftmax, MatchesTheDefinitionOnTheChapterLogits) {
  const Tensor value = log_softmax(chapter_logits.view(), 1);
  const double row0 = std::log(std::exp(0.0) + std::exp(1.0) + std::exp(-1.0));
  const double row1 = std::log(std::exp(2.0) + std::exp(0.0) + std::exp(-2.0));
  const std::vector<double> expected = {0.0 - row0, 1.0 - row0, -1.0 - row0,
                                        2.0 - row1, 0.0 - row1, -2.0 - row1};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(value.values()[i], expected[i], 1e-15);
  }
}

TEST(LogSoftmax, StaysFiniteForLogitsOfMagnitudeOneThousand) {
  const Tensor logits({1, 3}, {1000.0, -1000.0, 1000.0});
  const LogSoftmaxForward forward = log_softmax_forward(logits.view(), 1, EmitProbabilities::Yes);
  const double log_half = -std::log(2.0);
  EXPECT_DOUBLE_EQ(forward.value.values()[0], log_half);
  EXPECT_DOUBLE_EQ(forward.value.values()[1], -2000.0 + log_half);
  EXPECT_DOUBLE_EQ(forward.value.values()[2], log_half);
  EXPECT_EQ(values_of(*forward.probabilities), (std::vector<double>{0.5, 0.0, 0.5}));
}

TEST(LogSoftmax, LeavesProbabilitiesEmptyWhenNotRequested) {
  const LogSoftmaxForward forward =
      log_softmax_forward(chapter_logits.view(), 1, EmitProbabilities::No);
  EXPECT_FALSE(forward.probabilities.has_value());
  EXPECT_EQ(values_of(forward.value), values_of(log_softmax(chapter_logits.view(), 1)));
}

TEST(LogSoftmaxValidation, RejectsAnAxisOutOfRange) {
  const auto error = capture_error<TensorError>([] { log_softmax(chapter_logits.view(), 2); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::InvalidAxis);
  EXPECT_EQ(error->axis(), 2u);
}

TEST(LogSoftmaxValidation, RejectsAnEmptyClassAxisBeforeNonFiniteValues) {
  const Tensor empty({2, 0}, {});
  const auto error = capture_error<TensorError>([&] { log_softmax(empty.view(), 1); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::EmptyAxis);
}

TEST(LogSoftmaxValidation, NamesTheFirstNonFiniteLogitInRowMajorOrder) {
  const Tensor logits({2, 2}, {0.0, inf_value, nan_value, 1.0});
  const auto error = capture_error<TensorError>(
      [&] { log_softmax_forward(logits.view(), 0, EmitProbabilities::Yes); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::NonFiniteValue);
  EXPECT_EQ(error->coordinate(), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(error->value(), inf_value);
}

TEST(IndexedMeanNllValidation, ChecksTheAxisFirst) {
  const std::vector<std::size_t> bad_targets = {7};
  const auto error =
      capture_error<TensorError>([&] { indexed_mean_nll(chapter_logits.view(), 3, bad_targets); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::InvalidAxis);
}

TEST(IndexedMeanNllValidation, ChecksTheClassExtentBeforeTheTargets) {
  const Tensor empty({2, 0}, {});
  const std::vector<std::size_t> bad_targets = {0, 0, 0};
  const auto error =
      capture_error<TensorError>([&] { indexed_mean_nll(empty.view(), 1, bad_targets); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::EmptyAxis);
}

TEST(IndexedMeanNllValidation, TargetCountWinsOverAnOutOfRangeTarget) {
  const std::vector<std::size_t> wrong_count_and_class = {9, 0, 0};
  const auto error = capture_error<TensorError>(
      [&] { indexed_mean_nll(chapter_logits.view(), 1, wrong_count_and_class); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::TargetCountMismatch);
  EXPECT_EQ(error->expected(), 2u);
  EXPECT_EQ(error->actual(), 3u);
}

TEST(IndexedMeanNllValidation, RejectsZeroGroupsAsEmptyTargets) {
  const Tensor no_rows({0, 3}, {});
  const std::vector<std::size_t> none;
  const auto error = capture_error<TensorError>([&] { indexed_mean_nll(no_rows.view(), 1, none); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::EmptyTargets);
}

TEST(IndexedMeanNllValidation, NamesTheFirstOutOfRangeTargetBeforeNonFiniteLogits) {
  const Tensor logits({2, 3}, {0.0, nan_value, 0.0, 0.0, 0.0, 0.0});
  const std::vector<std::size_t> targets = {3, 5};
  const auto error =
      capture_error<TensorError>([&] { indexed_mean_nll(logits.view(), 1, targets); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::TargetOutOfRange);
  EXPECT_EQ(error->index(), 0u);
  EXPECT_EQ(error->actual(), 3u);
  EXPECT_EQ(error->expected(), 3u);
}

TEST(IndexedMeanNllValidation, RejectsANonFiniteLogitAfterValidTargets) {
  const Tensor logits({2, 3}, {0.0, 1.0, -1.0, 2.0, -inf_value, -2.0});
  const auto error = capture_error<TensorError>(
      [&] { indexed_mean_nll_forward(logits.view(), 1, chapter_targets, EmitProbabilities::Yes); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::NonFiniteValue);
  EXPECT_EQ(error->coordinate(), (std::vector<std::size_t>{1, 1}));
  EXPECT_EQ(error->value(), -inf_value);
}

TEST(StableSigmoid, StaysFiniteAndSaturatesAtMagnitudeOneThousand) {
  EXPECT_EQ(stable_sigmoid(1000.0), 1.0);
  EXPECT_EQ(stable_sigmoid(-1000.0), 0.0);
  EXPECT_FALSE(std::isnan(stable_sigmoid(-1000.0)));
  EXPECT_EQ(stable_sigmoid(0.0), 0.5);
}

TEST(StableSigmoid, MatchesTheDefinitionAndItsSymmetry) {
  for (double x : {-30.0, -2.5, -0.1, 0.1, 2.5, 30.0}) {
    EXPECT_NEAR(stable_sigmoid(x), 1.0 / (1.0 + std::exp(-x)), 1e-16);
    EXPECT_NEAR(stable_sigmoid(x) + stable_sigmoid(-x), 1.0, 1e-16);
  }
  // Far in the negative tail the value is exp(x)-sized, not rounded to zero.
  EXPECT_NEAR(stable_sigmoid(-700.0) / std::exp(-700.0), 1.0, 1e-15);
}

TEST(Softmax, IsTheSameForShiftedRowsAndItsLogSumExpKeepsTheShift) {
  // Chapter 12's logits: the same two-class row shifted by 0, +1000 and -1001.
  const Tensor logits({3, 2}, {0, 1, 1000, 1001, -1001, -1000});
  const Tensor probabilities = softmax(logits.view(), 1);
  EXPECT_EQ(probabilities.shape(), (Shape{3, 2}));
  for (std::size_t row = 0; row < 3; ++row) {
    EXPECT_EQ(format_fixed(probabilities.values()[2 * row]), "0.268941421370");
    EXPECT_EQ(format_fixed(probabilities.values()[2 * row + 1]), "0.731058578630");
  }
  const Tensor totals = log_sum_exp(logits.view(), 1);
  EXPECT_EQ(totals.shape(), (Shape{3}));
  EXPECT_EQ(format_fixed(totals.values()[0]), "1.313261687518");
  EXPECT_EQ(format_fixed(totals.values()[1]), "1001.313261687518");
  EXPECT_EQ(format_fixed(totals.values()[2]), "-999.686738312482");
  const auto empty = capture_error<TensorError>([] {
    log_sum_exp(Tensor::zeros({3, 0}).view(), 1);
  });
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->kind(), TensorErrorKind::EmptyAxis);
}

TEST(LogSoftmax, ReadsAStridedViewAsItsOwnRowMajorTensor) {
  // The transpose of [[0, 1000], [1, 1001], [2, -5]] has rows [0, 1, 2] and [1000, 1001, -5].
  const Tensor stored({3, 2}, {0, 1000, 1, 1001, 2, -5});
  const TensorView transposed = stored.view().transpose(0, 1);
  const Tensor strided = log_softmax(transposed, 1);
  const Tensor copied = log_softmax(transposed.materialize(), 1);
  EXPECT_EQ(testing::bits_of(strided), testing::bits_of(copied));
  const std::array<std::size_t, 2> targets = {2, 1};
  EXPECT_EQ(indexed_mean_nll(transposed, 1, targets),
            indexed_mean_nll(transposed.materialize(), 1, targets));
}

// Chapter 12's worked rows: [0, 1], [1000, 1001] and [-1001, -1000] shift to one row.
const Tensor shifted_rows({3, 2}, {0, 1, 1000, 1001, -1001, -1000});

TEST(LogSoftmax, GivesTheChapterRowsOneLogRowAndTheirTargetsTheChapterLoss) {
  const Tensor value = log_softmax(shifted_rows.view(), 1);
  EXPECT_EQ(value.shape(), (Shape{3, 2}));
  const Tensor probabilities = softmax(shifted_rows.view(), 1);
  for (std::size_t row = 0; row < 3; ++row) {
    EXPECT_EQ(format_fixed(value.values()[2 * row]), "-1.313261687518");
    EXPECT_EQ(format_fixed(value.values()[2 * row + 1]), "-0.313261687518");
    // Shift invariance holds bit for bit: every row has the same shifted logits [-1, 0].
    EXPECT_EQ(std::bit_cast<std::uint64_t>(probabilities.values()[2 * row]),
              std::bit_cast<std::uint64_t>(probabilities.values()[0]));
    EXPECT_EQ(std::bit_cast<std::uint64_t>(probabilities.values()[2 * row + 1]),
              std::bit_cast<std::uint64_t>(probabilities.values()[1]));
  }
  const Tensor sums = sum_axis(probabilities.view(), 1, KeepDim::No);
  for (double sum : sums.values()) EXPECT_EQ(format_fixed(sum), "1.000000000000");
  const std::array<std::size_t, 3> targets = {1, 0, 1};
  EXPECT_EQ(format_fixed(indexed_mean_nll(shifted_rows.view(), 1, targets)), "0.646595020852");
}

TEST(Softmax, EqualsChapterTenKernelsComposedBitForBit) {
  // Max kept as [2, 1], shift by broadcasting, exp, sum kept as [2, 1], divide:
  // the library's softmax performs the same roundings in the same order.
  const Tensor logits({2, 3}, {2.0, 0.0, -1.0, 1000.0, 1003.0, 998.0});
  const Tensor maxima = max_axis(logits.view(), 1, KeepDim::Yes);
  const Tensor shifted =
      broadcast_map(logits.view(), maxima.view(), [](double x, double m) { return x - m; });
  const Tensor exponentials = map_values(shifted.view(), [](double s) { return std::exp(s); });
  const Tensor normalizers = sum_axis(exponentials.view(), 1, KeepDim::Yes);
  const Tensor composed = broadcast_map(exponentials.view(), normalizers.view(),
                                        [](double e, double z) { return e / z; });
  EXPECT_EQ(testing::bits_of(softmax(logits.view(), 1)), testing::bits_of(composed));
}

TEST(ProbabilityValidation, RejectsEachOfTheChapterRequestsNamingItsEvidence) {
  const auto axis = capture_error<TensorError>([] { softmax(shifted_rows.view(), 2); });
  ASSERT_TRUE(axis);
  EXPECT_EQ(axis->kind(), TensorErrorKind::InvalidAxis);
  EXPECT_EQ(axis->axis(), 2u);
  EXPECT_EQ(axis->shape(), (Shape{3, 2}));

  const auto empty = capture_error<TensorError>([] { softmax(Tensor({2, 0}, {}).view(), 1); });
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->kind(), TensorErrorKind::EmptyAxis);
  EXPECT_EQ(empty->axis(), 1u);

  const auto infinite = capture_error<TensorError>([] {
    softmax(Tensor({1, 2}, {0.0, inf_value}).view(), 1);
  });
  ASSERT_TRUE(infinite);
  EXPECT_EQ(infinite->kind(), TensorErrorKind::NonFiniteValue);
  EXPECT_EQ(infinite->coordinate(), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(infinite->value(), inf_value);

  const std::array<std::size_t, 3> targets = {1, 2, 1};
  const auto target =
      capture_error<TensorError>([&] { indexed_mean_nll(shifted_rows.view(), 1, targets); });
  ASSERT_TRUE(target);
  EXPECT_EQ(target->kind(), TensorErrorKind::TargetOutOfRange);
  EXPECT_EQ(target->index(), 1u);     // the group
  EXPECT_EQ(target->actual(), 2u);    // the target class
  EXPECT_EQ(target->expected(), 2u);  // the number of classes
  EXPECT_EQ(values_of(shifted_rows), (std::vector<double>{0, 1, 1000, 1001, -1001, -1000}));
}

}  // namespace
}  // namespace llm
