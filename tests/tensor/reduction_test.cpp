// Sums and means along one axis, with and without keeping the axis.
#include "llm/tensor/reduction.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <utility>
#include <vector>

#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;
using testing::values_of;

const Tensor matrix({2, 3}, {1, 2, 3, 4, 5, 6});

TEST(SumAxis, SumsColumnsAndRowsWithAndWithoutTheAxis) {
  const Tensor columns = sum_axis(matrix.view(), 0, KeepDim::No);
  EXPECT_EQ(columns.shape(), (Shape{3}));
  EXPECT_EQ(values_of(columns), (std::vector<double>{5, 7, 9}));

  const Tensor kept_columns = sum_axis(matrix.view(), 0, KeepDim::Yes);
  EXPECT_EQ(kept_columns.shape(), (Shape{1, 3}));
  EXPECT_EQ(values_of(kept_columns), (std::vector<double>{5, 7, 9}));

  const Tensor rows = sum_axis(matrix.view(), 1, KeepDim::No);
  EXPECT_EQ(rows.shape(), (Shape{2}));
  EXPECT_EQ(values_of(rows), (std::vector<double>{6, 15}));

  const Tensor kept_rows = sum_axis(matrix.view(), 1, KeepDim::Yes);
  EXPECT_EQ(kept_rows.shape(), (Shape{2, 1}));
  EXPECT_EQ(values_of(kept_rows), (std::vector<double>{6, 15}));
}

TEST(SumAxis, SumsAMiddleAxis) {
  std::vector<double> values(24);
  std::iota(values.begin(), values.end(), 0.0);  // source[i, j, k] = 12 i + 4 j + k
  const Tensor source({2, 3, 4}, std::move(values));
  const Tensor result = sum_axis(source.view(), 1, KeepDim::No);
  EXPECT_EQ(result.shape(), (Shape{2, 4}));
  // sum_j (12 i + 4 j + k) = 36 i + 12 + 3 k
  EXPECT_EQ(values_of(result), (std::vector<double>{12, 15, 18, 21, 48, 51, 54, 57}));
}

TEST(SumAxis, SumsAStridedSourceAlongItsOwnAxes) {
  // The transpose of matrix is [[1, 4], [2, 5], [3, 6]].
  const TensorView transposed = matrix.view().transpose(0, 1);
  EXPECT_EQ(values_of(sum_axis(transposed, 0, KeepDim::No)), (std::vector<double>{6, 15}));
  EXPECT_EQ(values_of(sum_axis(transposed, 1, KeepDim::No)), (std::vector<double>{5, 7, 9}));
  // A broadcast view repeats its element along the summed axis.
  const Tensor row({3}, {1, 2, 3});
  EXPECT_EQ(values_of(sum_axis(row.view().broadcast_to({4, 3}), 0, KeepDim::No)),
            (std::vector<double>{4, 8, 12}));
}

TEST(SumAxis, TreatsAZeroExtentTheSameWhereverItSits) {
  // One rule: a zero extent empties the tensor, whatever its position; the
  // summed axis being empty gives zeros, another axis being empty gives no values.
  EXPECT_EQ(values_of(sum_axis(Tensor::zeros({0, 3}).view(), 0, KeepDim::No)),
            (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(sum_axis(Tensor::zeros({0, 3}).view(), 1, KeepDim::No).shape(), (Shape{0}));
  EXPECT_EQ(sum_axis(Tensor::zeros({3, 0, 2}).view(), 0, KeepDim::Yes).shape(), (Shape{1, 0, 2}));
  EXPECT_EQ(values_of(sum_axis(Tensor::zeros({2, 0, 3}).view(), 1, KeepDim::No)),
            (std::vector<double>(6, 0.0)));
}

TEST(SumAxis, SumsAnEmptyAxisToZero) {
  const Tensor empty = Tensor::zeros({2, 0});
  const Tensor result = sum_axis(empty.view(), 1, KeepDim::Yes);
  EXPECT_EQ(result.shape(), (Shape{2, 1}));
  EXPECT_EQ(values_of(result), (std::vector<double>{0, 0}));
}

TEST(SumAxis, RejectsAnAxisNotBelowTheRank) {
  const auto error = capture_error<TensorError>([] { sum_axis(matrix.view(), 2, KeepDim::No); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::InvalidAxis);
  EXPECT_EQ(error->axis(), 2u);
  EXPECT_EQ(error->shape(), (Shape{2, 3}));

  const auto scalar =
      capture_error<TensorError>([] { sum_axis(Tensor::scalar(1.0).view(), 0, KeepDim::Yes); });
  ASSERT_TRUE(scalar);
  EXPECT_EQ(scalar->kind(), TensorErrorKind::InvalidAxis);
}

TEST(MeanAxis, DividesEachSumByTheAxisExtent) {
  const Tensor rows = mean_axis(matrix.view(), 1, KeepDim::No);
  EXPECT_EQ(rows.shape(), (Shape{2}));
  EXPECT_EQ(values_of(rows), (std::vector<double>{2, 5}));

  const Tensor kept_rows = mean_axis(matrix.view(), 1, KeepDim::Yes);
  EXPECT_EQ(kept_rows.shape(), (Shape{2, 1}));
  EXPECT_EQ(values_of(kept_rows), (std::vector<double>{2, 5}));

  const Tensor columns = mean_axis(matrix.view(), 0, KeepDim::No);
  EXPECT_EQ(columns.shape(), (Shape{3}));
  EXPECT_EQ(values_of(columns), (std::vector<double>{2.5, 3.5, 4.5}));

  const Tensor thirds = mean_axis(Tensor({3}, {1, 1, 2}).view(), 0, KeepDim::No);
  EXPECT_EQ(thirds.shape(), (Shape{}));
  EXPECT_EQ(values_of(thirds), (std::vector<double>{4.0 / 3.0}));
}

TEST(MeanAxis, RejectsAnEmptyAxis) {
  const Tensor empty = Tensor::zeros({2, 0});
  const auto error = capture_error<TensorError>([&] { mean_axis(empty.view(), 1, KeepDim::No); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::EmptyAxis);
  EXPECT_EQ(error->axis(), 1u);
  EXPECT_EQ(error->shape(), (Shape{2, 0}));
}

TEST(MeanAxis, RejectsAnAxisNotBelowTheRankBeforeCheckingExtents) {
  const Tensor empty = Tensor::zeros({2, 0});
  const auto error = capture_error<TensorError>([&] { mean_axis(empty.view(), 5, KeepDim::Yes); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::InvalidAxis);
  EXPECT_EQ(error->axis(), 5u);
}

TEST(MaxAxis, TakesTheLargestValueAlongAnAxis) {
  const Tensor sums({2, 3}, {11, 22, 33, 14, 25, 36});
  EXPECT_EQ(values_of(max_axis(sums.view(), 1, KeepDim::No)), (std::vector<double>{33, 36}));
  const Tensor columns = max_axis(sums.view(), 0, KeepDim::Yes);
  EXPECT_EQ(columns.shape(), (Shape{1, 3}));
  EXPECT_EQ(values_of(columns), (std::vector<double>{14, 25, 36}));
  // Through strides: the transpose's rows are the columns.
  EXPECT_EQ(values_of(max_axis(sums.view().transpose(0, 1), 1, KeepDim::No)),
            (std::vector<double>{14, 25, 36}));
  const Tensor with_nan({3}, {1.0, std::nan(""), 5.0});
  EXPECT_TRUE(std::isnan(max_axis(with_nan.view(), 0, KeepDim::No).values()[0]));
}

TEST(MaxAxis, RejectsAnEmptyAxisAndAnAxisNotBelowTheRank) {
  const Tensor empty = Tensor::zeros({2, 0});
  const auto error = capture_error<TensorError>([&] { max_axis(empty.view(), 1, KeepDim::No); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::EmptyAxis);
  EXPECT_EQ(error->axis(), 1u);
  const auto axis =
      capture_error<TensorError>([&] { max_axis(Tensor::scalar(1.0).view(), 0, KeepDim::No); });
  ASSERT_TRUE(axis);
  EXPECT_EQ(axis->kind(), TensorErrorKind::InvalidAxis);
}

// Chapter 10's worked reductions of the biased token rows [[11, 22, 33], [14, 25, 36]].
TEST(Reductions, ReduceTheBiasedTokenRowsAlongNamedAxes) {
  const Tensor biased({2, 3}, {11, 22, 33, 14, 25, 36});
  const Tensor over_tokens = sum_axis(biased.view(), 0, KeepDim::No);
  EXPECT_EQ(over_tokens.shape(), (Shape{3}));
  EXPECT_EQ(values_of(over_tokens), (std::vector<double>{25, 47, 69}));
  const Tensor mean_per_token = mean_axis(biased.view(), 1, KeepDim::Yes);
  EXPECT_EQ(mean_per_token.shape(), (Shape{2, 1}));
  EXPECT_EQ(values_of(mean_per_token), (std::vector<double>{22, 25}));
  const Tensor max_per_token = max_axis(biased.view(), 1, KeepDim::No);
  EXPECT_EQ(max_per_token.shape(), (Shape{2}));
  EXPECT_EQ(values_of(max_per_token), (std::vector<double>{33, 36}));
}

TEST(Reductions, MeanAndMaxRejectAnEmptyMiddleAxisThatSumReducesToZeros) {
  const Tensor empty({2, 0, 3}, {});
  const Tensor sums = sum_axis(empty.view(), 1, KeepDim::No);
  EXPECT_EQ(sums.shape(), (Shape{2, 3}));
  EXPECT_EQ(values_of(sums), (std::vector<double>(6, 0.0)));
  for (const auto& reduce : {mean_axis, max_axis}) {
    const auto error = capture_error<TensorError>([&] { reduce(empty.view(), 1, KeepDim::No); });
    ASSERT_TRUE(error);
    EXPECT_EQ(error->kind(), TensorErrorKind::EmptyAxis);
    EXPECT_EQ(error->axis(), 1u);
    EXPECT_EQ(error->shape(), (Shape{2, 0, 3}));
  }
}

}  // namespace
}  // namespace llm
