// Batched matrix products with NumPy-broadcast batch axes.
#include "llm/tensor/matmul.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;
using testing::values_of;

TEST(MatMul, MultipliesTwoMatricesAsByHand) {
  const Tensor left({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor right({3, 2}, {7, 8, 9, 10, 11, 12});
  const Tensor product = matmul(left.view(), right.view());
  EXPECT_EQ(product.shape(), (Shape{2, 2}));
  // [1 2 3] . [7 9 11] = 58, [1 2 3] . [8 10 12] = 64, [4 5 6] . [7 9 11] = 139, ...
  EXPECT_EQ(values_of(product), (std::vector<double>{58, 64, 139, 154}));
}

TEST(MatMul, ReusesAMatrixAcrossEveryBatchOfTheOtherOperand) {
  std::vector<double> values(12);
  std::iota(values.begin(), values.end(), 1.0);
  const Tensor left({2, 2, 3}, std::move(values));
  const Tensor right({3, 4}, {1, 0, -1, 2, 0, 1, 1, 0, 2, -1, 0, 1});
  const Tensor product = matmul(left.view(), right.view());
  EXPECT_EQ(product.shape(), (Shape{2, 2, 4}));
  EXPECT_EQ(values_of(product),
            (std::vector<double>{7, -1, 1, 5, 16, -1, 1, 14, 25, -1, 1, 23, 34, -1, 1, 32}));
}

TEST(MatMul, BroadcastsAnExtentOneBatchAxis) {
  const Tensor left({1, 2, 3}, {1, 2, 3, 4, 5, 6});
  std::vector<double> values(24);
  std::iota(values.begin(), values.end(), 0.0);
  const Tensor right({4, 3, 2}, std::move(values));
  const Tensor product = matmul(left.view(), right.view());
  EXPECT_EQ(product.shape(), (Shape{4, 2, 2}));
  EXPECT_EQ(values_of(product), (std::vector<double>{16, 22, 34, 49, 52, 58, 124, 139, 88, 94, 214,
                                                     229, 124, 130, 304, 319}));
}

TEST(MatMul, AddsTheInnerProductsInIncreasingOrder) {
  // Left to right, 1 + 1e16 rounds to 1e16 and the 1 is lost; any other order keeps it.
  const Tensor left({1, 3}, {1.0, 1e16, -1e16});
  const Tensor right({3, 1}, {1.0, 1.0, 1.0});
  EXPECT_EQ(values_of(matmul(left.view(), right.view())), (std::vector<double>{0.0}));
}

TEST(MatMul, RejectsARankOneOperandNamingBothShapes) {
  const Tensor vector({3}, {1, 2, 3});
  const Tensor matrix = Tensor::zeros({3, 2});
  const auto error = capture_error<TensorError>([&] { matmul(vector.view(), matrix.view()); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::MatMulRank);
  EXPECT_EQ(error->shape(), (Shape{3}));
  EXPECT_EQ(error->other_shape(), (Shape{3, 2}));

  const auto right = capture_error<TensorError>([&] { matmul(matrix.view(), vector.view()); });
  ASSERT_TRUE(right);
  EXPECT_EQ(right->kind(), TensorErrorKind::MatMulRank);
}

TEST(MatMul, RejectsDifferentInnerExtents) {
  const Tensor left = Tensor::zeros({2, 3});
  const Tensor right = Tensor::zeros({4, 2});
  const auto error = capture_error<TensorError>([&] { matmul(left.view(), right.view()); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::MatMulInnerMismatch);
  EXPECT_EQ(error->shape(), (Shape{2, 3}));
  EXPECT_EQ(error->other_shape(), (Shape{4, 2}));
  const std::string message = error->what();
  EXPECT_NE(message.find("inner extents 3 and 4"), std::string::npos) << message;
}

TEST(MatMul, RejectsBatchAxesThatDoNotBroadcastNamingTheFullShapes) {
  const Tensor left = Tensor::zeros({2, 2, 3});
  const Tensor right = Tensor::zeros({3, 3, 2});
  const auto error = capture_error<TensorError>([&] { matmul(left.view(), right.view()); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::IncompatibleBroadcast);
  EXPECT_EQ(error->shape(), (Shape{2, 2, 3}));
  EXPECT_EQ(error->other_shape(), (Shape{3, 3, 2}));
  EXPECT_EQ(error->axis(), 2u);  // counted from the right of the [batch, M, N] result
}

// The worked examples of chapter 11: A [2, 3] times W [3, 2].
const Tensor kTokenRows({2, 3}, {1, 2, 3, 4, 5, 6});
const Tensor kWeights({3, 2}, {1, 2, 0, 1, 2, 0});

TEST(MatMulChapter11, MultipliesTheWorkedRowsByTheWorkedWeights) {
  const Tensor product = matmul(kTokenRows.view(), kWeights.view());
  EXPECT_EQ(product.shape(), (Shape{2, 2}));
  // C[1, 0] = 4*1 + 5*0 + 6*2 = 16; a swapped index or a row of W read as a
  // column would change at least one of the four.
  EXPECT_EQ(values_of(product), (std::vector<double>{7, 4, 16, 13}));
  EXPECT_EQ(testing::bits_of(product), testing::bits_of(matmul_textbook(kTokenRows, kWeights)));
}

TEST(MatMulChapter11, ReadsWeightsStoredTransposedThroughAView) {
  const Tensor stored({2, 3}, {1, 0, 2, 2, 1, 0});  // W^T, row-major
  const TensorView weights = stored.view().matrix_transpose();
  EXPECT_EQ(weights.shape(), (Shape{3, 2}));
  EXPECT_EQ(weights.strides(), (Strides{1, 3}));
  EXPECT_TRUE(weights.shares_storage_with(stored.view()));  // no copy was made
  const Tensor product = matmul(kTokenRows.view(), weights);
  EXPECT_EQ(product.shape(), (Shape{2, 2}));
  EXPECT_EQ(values_of(product), (std::vector<double>{7, 4, 16, 13}));
}

TEST(MatMulChapter11, SharesOneWeightBatchAcrossTwoInputBatches) {
  const Tensor left({2, 2, 3}, {1, 2, 3, 4, 5, 6, 0, 1, 2, 2, 1, 0});
  const Tensor right({1, 3, 2}, {1, 2, 0, 1, 2, 0});
  const Tensor product = matmul(left.view(), right.view());
  EXPECT_EQ(product.shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(values_of(product), (std::vector<double>{7, 4, 16, 13, 4, 1, 2, 5}));
}

TEST(MatMulChapter11, GivesPositiveZerosForAnEmptyInnerAxis) {
  const Tensor product = matmul(Tensor({2, 0}, {}).view(), Tensor({0, 2}, {}).view());
  EXPECT_EQ(product.shape(), (Shape{2, 2}));
  EXPECT_EQ(testing::bits_of(product), testing::bits_of(Tensor({2, 2}, {0.0, 0.0, 0.0, 0.0})));
}

TEST(MatMulChapter11, ChecksTheRankBeforeTheInnerExtents) {
  // A rank-one left operand whose length also differs from W's K: the rank is reported.
  const Tensor vector({4}, {1, 2, 3, 4});
  const auto error = capture_error<TensorError>([&] { matmul(vector.view(), kWeights.view()); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::MatMulRank);
}

TEST(MatMulChapter11, ChecksTheInnerExtentsBeforeTheBatchAxes) {
  // Batch extents 2 and 3 do not broadcast, and K is 3 against 4: the inner extents are reported.
  const Tensor left = Tensor::zeros({2, 2, 3});
  const Tensor right = Tensor::zeros({3, 4, 2});
  const auto error = capture_error<TensorError>([&] { matmul(left.view(), right.view()); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::MatMulInnerMismatch);
}

TEST(MatMulChapter11, RefusesAResultShapeWhoseCountOverflows) {
  // Both operands are empty, but the result [2^32, 1, 2^32] cannot be counted in 64 bits.
  const std::size_t huge = std::size_t{1} << 32;
  const Tensor left({huge, 1, 0}, {});
  const Tensor right({1, 0, huge}, {});
  const auto error = capture_error<TensorError>([&] { matmul(left.view(), right.view()); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::ShapeOverflow);
}

TEST(MatMulChapter11, LeavesItsOperandsAsTheyWereWhenItRefuses) {
  const Tensor wrong_inner = Tensor::zeros({4, 2});
  EXPECT_THROW(matmul(kTokenRows.view(), wrong_inner.view()), TensorError);
  EXPECT_EQ(values_of(kTokenRows), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(values_of(wrong_inner), std::vector<double>(8, 0.0));
}

}  // namespace
}  // namespace llm
