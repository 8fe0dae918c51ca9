// Elementwise add, mul and map with NumPy broadcasting, on strided operands too.
#include "llm/tensor/elementwise.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;
using testing::values_of;

TEST(Add, BroadcastsAMissingAxisAndAnExtentOneAxis) {
  const Tensor left({2, 1, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor right({4, 3}, {0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110});
  const Tensor sum = add(left.view(), right.view());
  EXPECT_EQ(sum.shape(), (Shape{2, 4, 3}));
  // sum[i, j, k] = left[i, 0, k] + right[j, k]
  EXPECT_EQ(values_of(sum), (std::vector<double>{1, 12, 23, 31, 42, 53, 61, 72, 83, 91, 102, 113,
                                                 4, 15, 26, 34, 45, 56, 64, 75, 86, 94, 105, 116}));
  EXPECT_EQ(values_of(add(right.view(), left.view())), values_of(sum));
}

TEST(Add, LeavesBothOperandsUnchanged) {
  const Tensor left({2}, {1.5, -2.0});
  const Tensor right = Tensor::scalar(0.25);
  const Tensor sum = add(left.view(), right.view());
  EXPECT_EQ(values_of(sum), (std::vector<double>{1.75, -1.75}));
  EXPECT_EQ(values_of(left), (std::vector<double>{1.5, -2.0}));
  EXPECT_EQ(values_of(right), (std::vector<double>{0.25}));
}

TEST(Mul, ScalesEveryElementByARankZeroOperand) {
  const Tensor scale = Tensor::scalar(2.5);
  const Tensor vector({3}, {1, -2, 4});
  const Tensor left_scalar = mul(scale.view(), vector.view());
  EXPECT_EQ(left_scalar.shape(), (Shape{3}));
  EXPECT_EQ(values_of(left_scalar), (std::vector<double>{2.5, -5.0, 10.0}));
  EXPECT_EQ(values_of(mul(vector.view(), scale.view())), values_of(left_scalar));
}

TEST(Mul, BroadcastsARowAcrossEveryRowOfAMatrix) {
  const Tensor matrix({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor row({3}, {10, 0, -1});
  const Tensor column({2, 1}, {2, 3});
  EXPECT_EQ(values_of(mul(matrix.view(), row.view())), (std::vector<double>{10, 0, -3, 40, 0, -6}));
  EXPECT_EQ(values_of(mul(matrix.view(), column.view())),
            (std::vector<double>{2, 4, 6, 12, 15, 18}));
  const Tensor outer = mul(column.view(), row.view());
  EXPECT_EQ(outer.shape(), (Shape{2, 3}));
  EXPECT_EQ(values_of(outer), (std::vector<double>{20, 0, -2, 30, 0, -3}));
}

TEST(Add, RejectsIncompatibleShapesNamingBothShapesAndTheKind) {
  const Tensor left = Tensor::zeros({2, 3});
  const Tensor right = Tensor::zeros({4, 3});
  const auto error = capture_error<TensorError>([&] { add(left.view(), right.view()); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::IncompatibleBroadcast);
  EXPECT_EQ(error->shape(), (Shape{2, 3}));
  EXPECT_EQ(error->other_shape(), (Shape{4, 3}));
  const std::string message = error->what();
  EXPECT_NE(message.find("[2, 3]"), std::string::npos) << message;
  EXPECT_NE(message.find("[4, 3]"), std::string::npos) << message;
  EXPECT_NE(
      message.find("cannot broadcast at axis 1 counted from the right (0 = last): extents 2 and 4"),
      std::string::npos)
      << message;
}

TEST(Mul, RejectsIncompatibleShapesNamingBothShapes) {
  const Tensor left = Tensor::zeros({3});
  const Tensor right = Tensor::zeros({2});
  const auto error = capture_error<TensorError>([&] { mul(left.view(), right.view()); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::IncompatibleBroadcast);
  EXPECT_EQ(error->shape(), (Shape{3}));
  EXPECT_EQ(error->other_shape(), (Shape{2}));
  EXPECT_EQ(error->axis(), 0u);
}

TEST(MapValues, AppliesTheFunctionToEveryElementKeepingTheShape) {
  const Tensor source({2, 2}, {1, -2, 3, -4});
  const Tensor squares = map_values(source.view(), [](double x) { return x * x; });
  EXPECT_EQ(squares.shape(), (Shape{2, 2}));
  EXPECT_EQ(values_of(squares), (std::vector<double>{1, 4, 9, 16}));
  EXPECT_EQ(values_of(source), (std::vector<double>{1, -2, 3, -4}));
}

TEST(Add, ReadsTransposedAndSlicedOperandsThroughTheirStrides) {
  // stored = [[1, 2, 3], [4, 5, 6]]; its transpose is [[1, 4], [2, 5], [3, 6]].
  const Tensor stored({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor column_bias({3, 1}, {100, 200, 300});
  const Tensor sum = add(stored.view().transpose(0, 1), column_bias.view());
  EXPECT_EQ(sum.shape(), (Shape{3, 2}));
  EXPECT_EQ(values_of(sum), (std::vector<double>{101, 104, 202, 205, 303, 306}));
  // Columns 1..3 of both rows: [[2, 3], [5, 6]], times itself transposed back.
  const TensorView columns = stored.view().slice(1, 1, 3);
  EXPECT_EQ(values_of(mul(columns, columns.transpose(0, 1))), (std::vector<double>{4, 15, 15, 36}));
}

TEST(MapValues, CallsAClosureOncePerElementInRowMajorOrderAndNeverForAnEmptyTensor) {
  const Tensor source({2, 3}, {1, 2, 3, 4, 5, 6});
  std::vector<double> seen;
  const Tensor squares = map_values(source.view().transpose(0, 1), [&](double x) {
    seen.push_back(x);
    return x * x;
  });
  EXPECT_EQ(seen, (std::vector<double>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(values_of(squares), (std::vector<double>{1, 16, 4, 25, 9, 36}));
  std::size_t calls = 0;
  const Tensor empty = Tensor::zeros({2, 0, 3});
  const Tensor mapped = map_values(empty.view(), [&](double x) {
    ++calls;
    return x;
  });
  EXPECT_EQ(mapped.shape(), (Shape{2, 0, 3}));
  EXPECT_EQ(calls, 0u);
}

TEST(BroadcastMap, CombinesWithAClosureAndNeverCallsItForAnEmptyResult) {
  const Tensor rows({2, 1}, {1, 2});
  const Tensor columns({3}, {10, 20, 30});
  std::size_t calls = 0;
  const Tensor result = broadcast_map(rows.view(), columns.view(), [&](double a, double b) {
    ++calls;
    return b - a;
  });
  EXPECT_EQ(values_of(result), (std::vector<double>{9, 19, 29, 8, 18, 28}));
  EXPECT_EQ(calls, 6u);
  calls = 0;
  const Tensor empty = Tensor::zeros({2, 0, 3});
  const Tensor none = broadcast_map(empty.view(), columns.view(), [&](double a, double b) {
    ++calls;
    return a + b;
  });
  EXPECT_EQ(none.shape(), (Shape{2, 0, 3}));
  EXPECT_EQ(calls, 0u);
}

TEST(MapValues, ReadsAStridedSourceInRowMajorOrder) {
  const Tensor stored({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor negated = map_values(stored.view().transpose(0, 1), [](double x) { return -x; });
  EXPECT_EQ(negated.shape(), (Shape{3, 2}));
  EXPECT_EQ(values_of(negated), (std::vector<double>{-1, -4, -2, -5, -3, -6}));
}

// Chapter 10's worked example: one feature bias [3] added to two token rows [2, 3].
TEST(BroadcastMap, AddsOneFeatureBiasToEveryTokenRow) {
  const Tensor tokens({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor bias({3}, {10, 20, 30});
  // The bias read as [2, 3]: its missing leading axis steps with stride 0.
  EXPECT_EQ(bias.view().broadcast_to({2, 3}).strides(), (Strides{0, 1}));
  const Tensor biased = broadcast_map(tokens.view(), bias.view(),
                                      [](double value, double offset) { return value + offset; });
  EXPECT_EQ(biased.shape(), (Shape{2, 3}));
  EXPECT_EQ(values_of(biased), (std::vector<double>{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(values_of(add(tokens.view(), bias.view())), values_of(biased));

  const Tensor shifted = add(tokens.view(), Tensor::scalar(0.5).view());
  EXPECT_EQ(shifted.shape(), (Shape{2, 3}));
  EXPECT_EQ(values_of(shifted), (std::vector<double>{1.5, 2.5, 3.5, 4.5, 5.5, 6.5}));

  const Tensor squared = map_values(tokens.view(), [](double value) { return value * value; });
  EXPECT_EQ(squared.shape(), (Shape{2, 3}));
  EXPECT_EQ(values_of(squared), (std::vector<double>{1, 4, 9, 16, 25, 36}));
}

TEST(Add, RejectsTwoValuesAgainstThreeFeaturesAtTheLastAxis) {
  const Tensor tokens({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor two_values({2}, {1, 2});
  const auto error = capture_error<TensorError>([&] { add(tokens.view(), two_values.view()); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::IncompatibleBroadcast);
  EXPECT_EQ(error->shape(), (Shape{2, 3}));
  EXPECT_EQ(error->other_shape(), (Shape{2}));
  // Counted from the right: the last axis, output axis 1 of the rank-2 result.
  EXPECT_EQ(error->axis(), 0u);
  EXPECT_NE(std::string(error->what()).find("extents 3 and 2"), std::string::npos) << error->what();
  EXPECT_EQ(values_of(tokens), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(values_of(two_values), (std::vector<double>{1, 2}));
}

}  // namespace
}  // namespace llm
