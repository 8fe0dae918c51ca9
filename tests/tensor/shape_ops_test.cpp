// Reshape, transpose of two axes and the matrix transpose.
#include "llm/tensor/shape_ops.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;
using testing::values_of;

Tensor counting(const Shape& shape) {
  std::vector<double> values(element_count(shape));
  std::iota(values.begin(), values.end(), 0.0);
  return Tensor(shape, std::move(values));
}

TEST(Reshape, KeepsTheRowMajorValuesInOrder) {
  const Tensor source({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor result = reshape(source.view(), {3, 2});
  EXPECT_EQ(result.shape(), (Shape{3, 2}));
  EXPECT_EQ(values_of(result), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  const std::vector<std::size_t> last_row{2, 0};
  EXPECT_EQ(result.at(last_row), 5.0);

  const Tensor scalar = reshape(Tensor({1, 1}, {7.0}).view(), {});
  EXPECT_EQ(scalar.shape(), (Shape{}));
  EXPECT_EQ(values_of(scalar), (std::vector<double>{7.0}));
}

TEST(Reshape, RejectsACountMismatchNamingBothShapes) {
  const Tensor source({2, 3}, {1, 2, 3, 4, 5, 6});
  const auto error = capture_error<TensorError>([&] { reshape(source.view(), {4, 2}); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::ReshapeCountMismatch);
  EXPECT_EQ(error->shape(), (Shape{2, 3}));
  EXPECT_EQ(error->other_shape(), (Shape{4, 2}));
  EXPECT_EQ(std::string(error->what()), "cannot reshape [2, 3] to [4, 2]: the element counts differ");
  EXPECT_EQ(values_of(source), (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

TEST(Transpose, SwapsTheFirstAndLastAxesElementByElement) {
  const Tensor source = counting({2, 3, 4});  // source[i, j, k] = 12 i + 4 j + k
  const Tensor result = transpose(source.view(), 0, 2);
  ASSERT_EQ(result.shape(), (Shape{4, 3, 2}));
  for (std::size_t i = 0; i < 2; ++i) {
    for (std::size_t j = 0; j < 3; ++j) {
      for (std::size_t k = 0; k < 4; ++k) {
        const std::vector<std::size_t> from{i, j, k};
        const std::vector<std::size_t> to{k, j, i};
        EXPECT_EQ(result.at(to), source.at(from)) << i << "," << j << "," << k;
      }
    }
  }
  // The first row-major values, by hand: result[0, 0, :] = source[:, 0, 0] and so on.
  EXPECT_EQ(std::vector<double>(result.values().begin(), result.values().begin() + 8),
            (std::vector<double>{0, 12, 4, 16, 8, 20, 1, 13}));
}

TEST(Transpose, TransposingTwiceRestoresTheSourceBitForBit) {
  const Tensor source({2, 3}, {0.1, -0.0, 3.5, 1e-300, -2.25, 7.0});
  const Tensor once = transpose(source.view(), 1, 0);
  EXPECT_EQ(once.shape(), (Shape{3, 2}));
  EXPECT_EQ(values_of(once), (std::vector<double>{0.1, 1e-300, -0.0, -2.25, 3.5, 7.0}));
  const Tensor twice = transpose(once.view(), 0, 1);
  ASSERT_EQ(twice.shape(), source.shape());
  for (std::size_t i = 0; i < source.size(); ++i) {
    EXPECT_EQ(std::bit_cast<std::uint64_t>(twice.values()[i]),
              std::bit_cast<std::uint64_t>(source.values()[i]));
  }
}

TEST(Transpose, SwappingAnAxisWithItselfCopies) {
  const Tensor source = counting({2, 3});
  const Tensor result = transpose(source.view(), 1, 1);
  EXPECT_EQ(result.shape(), (Shape{2, 3}));
  EXPECT_EQ(values_of(result), values_of(source));
}

TEST(Transpose, RejectsAnAxisNotBelowTheRank) {
  const Tensor source = counting({2, 3, 4});
  const auto error = capture_error<TensorError>([&] { transpose(source.view(), 0, 3); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::InvalidAxis);
  EXPECT_EQ(error->axis(), 3u);
  EXPECT_EQ(error->shape(), (Shape{2, 3, 4}));

  const auto first = capture_error<TensorError>([&] { transpose(source.view(), 7, 5); });
  ASSERT_TRUE(first);
  EXPECT_EQ(first->axis(), 7u);
}

TEST(MatrixTranspose, SwapsTheLastTwoAxesOfEveryBatch) {
  const Tensor source = counting({2, 2, 3});
  const Tensor result = matrix_transpose(source.view());
  EXPECT_EQ(result.shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(values_of(result), (std::vector<double>{0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11}));
}

TEST(MatrixTranspose, RejectsRankBelowTwo) {
  const Tensor vector = counting({3});
  const auto error = capture_error<TensorError>([&] { matrix_transpose(vector.view()); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::InvalidAxis);
  EXPECT_EQ(error->axis(), 1u);
}

}  // namespace
}  // namespace llm
