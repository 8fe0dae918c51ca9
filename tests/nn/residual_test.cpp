// The residual merge of chapter 24: the worked forward and reverse numbers
// (with the reference's upstream and an asymmetric one), the zero branch,
// exact shapes only (a broadcastable branch is refused and changes nothing),
// a node reached along both paths, the four-layer stacks, and gradient checks.
#include "llm/nn/residual.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "llm/nn/linear.hpp"
#include "nn/nn_test_support.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::bits_of;
using testing::capture_error;
using testing::values_of;

Linear square_branch(std::vector<double> weight) {
  return Linear(TensorValue::parameter(Tensor({2, 2}, std::move(weight))), std::nullopt);
}

struct Merge {
  TensorValue x;
  Linear branch;
  TensorValue y;
};

Merge worked_merge(std::vector<double> weight, std::vector<double> upstream) {
  const TensorValue x = TensorValue::parameter(Tensor({2}, {2.0, -1.0}));
  const Linear branch = square_branch(std::move(weight));
  const TensorValue y = residual_add(x, branch.forward(x));
  y.backward_with_seed(Tensor({2}, std::move(upstream)), Retention::Retain);
  return {x, branch, y};
}

TEST(ResidualAdd, ComputesTheChapterMergeAndItsGradients) {
  const Merge merge = worked_merge({0.5, -1.0, 2.0, 0.25}, {1.0, 1.0});
  EXPECT_EQ(values_of(merge.branch.forward(merge.x).value()), (std::vector<double>{-1.0, -2.25}));
  EXPECT_EQ(values_of(merge.y.value()), (std::vector<double>{1.0, -3.25}));
  // The identity path's [1, 1] plus the branch's W ybar = [-0.5, 2.25].
  EXPECT_EQ(values_of(*merge.x.gradient()), (std::vector<double>{0.5, 3.25}));
  EXPECT_EQ(values_of(*merge.branch.weight().gradient()),
            (std::vector<double>{2.0, 2.0, -1.0, -1.0}));
}

TEST(ResidualAdd, AnAsymmetricUpstreamReachesBothPathsUnchanged) {
  // With ybar = [1.5, -2] a pass that seeds ones or swaps the coordinates
  // would give other numbers: x gets ybar + W ybar = [1.5, -2] + [2.75, 2.5].
  const Merge merge = worked_merge({0.5, -1.0, 2.0, 0.25}, {1.5, -2.0});
  EXPECT_EQ(values_of(*merge.x.gradient()), (std::vector<double>{4.25, 0.5}));
  EXPECT_EQ(values_of(*merge.branch.weight().gradient()),
            (std::vector<double>{3.0, -4.0, -1.5, 2.0}));
}

TEST(ResidualAdd, AZeroBranchPassesTheInputButItsWeightStillLearns) {
  const Merge merge = worked_merge({0.0, 0.0, 0.0, 0.0}, {1.0, 1.0});
  EXPECT_EQ(values_of(merge.y.value()), (std::vector<double>{2.0, -1.0}));
  EXPECT_EQ(values_of(*merge.x.gradient()), (std::vector<double>{1.0, 1.0}));
  EXPECT_EQ(values_of(*merge.branch.weight().gradient()),
            (std::vector<double>{2.0, 2.0, -1.0, -1.0}));
}

TEST(ResidualAdd, TheSameNodeOnBothPathsGetsBothContributions) {
  const TensorValue x = TensorValue::parameter(Tensor({2}, {2.0, -1.0}));
  residual_add(x, x).backward_with_seed(Tensor({2}, {1.5, -2.0}), Retention::Retain);
  EXPECT_EQ(values_of(*x.gradient()), (std::vector<double>{3.0, -4.0}));
}

TEST(ResidualAdd, KeepsScalarAndEmptyShapes) {
  const TensorValue scalar = residual_add(TensorValue::constant(Tensor::scalar(2.0)),
                                          TensorValue::constant(Tensor::scalar(-0.5)));
  EXPECT_EQ(scalar.shape(), Shape{});
  EXPECT_EQ(values_of(scalar.value()), (std::vector<double>{1.5}));
  const TensorValue empty = residual_add(TensorValue::constant(Tensor({0, 2}, {})),
                                         TensorValue::constant(Tensor({0, 2}, {})));
  EXPECT_EQ(empty.shape(), (Shape{0, 2}));
}

TEST(ResidualAdd, RefusesABroadcastableBranchAndChangesNothing) {
  const TensorValue stream = TensorValue::parameter(Tensor({2, 2}, {1.0, 2.0, 3.0, 4.0}));
  const TensorValue branch = TensorValue::parameter(Tensor({2}, {10.0, 20.0}));
  ASSERT_EQ(stream.add(branch).shape(), (Shape{2, 2}));  // the plain add broadcasts
  stream.add(branch).backward_with_seed(Tensor({2, 2}, {1, 2, 3, 4}), Retention::Release);
  const auto stream_gradient = bits_of(*stream.gradient());
  const auto branch_gradient = bits_of(*branch.gradient());
  const std::size_t nodes = TensorValue::live_node_count();

  const auto error = capture_error<ResidualError>([&] { (void)residual_add(stream, branch); });
  EXPECT_EQ(error->kind(), ResidualErrorKind::ShapeMismatch);
  EXPECT_EQ(error->area(), "residual");
  EXPECT_EQ(error->kind_name(), "shape-mismatch");
  EXPECT_EQ(error->evidence().identity, (Shape{2, 2}));
  EXPECT_EQ(error->evidence().branch, (Shape{2}));
  EXPECT_STREQ(error->what(),
               "a residual branch must return the identity's exact shape [2, 2], got [2] "
               "(a residual merge never broadcasts)");
  EXPECT_EQ(TensorValue::live_node_count(), nodes);  // no node was recorded
  EXPECT_EQ(bits_of(*stream.gradient()), stream_gradient);
  EXPECT_EQ(bits_of(*branch.gradient()), branch_gradient);

  // Equal element counts are not enough either, nor is the transposed shape.
  EXPECT_THROW((void)residual_add(TensorValue::constant(Tensor({4}, {1, 2, 3, 4})), stream),
               ResidualError);
  EXPECT_THROW((void)residual_add(TensorValue::constant(Tensor({3, 2}, {1, 2, 3, 4, 5, 6})),
                                  TensorValue::constant(Tensor({2, 3}, {1, 2, 3, 4, 5, 6}))),
               ResidualError);
}

// Four layers of F(x) = -0.25 x, plain (x <- F(x)) or residual (x <- x + F(x)).
std::pair<std::vector<double>, std::vector<double>> stack(bool residual) {
  const TensorValue input = TensorValue::parameter(Tensor({2}, {2.0, -1.0}));
  TensorValue current = input;
  for (int depth = 0; depth < 4; ++depth) {
    const TensorValue update = square_branch({-0.25, 0.0, 0.0, -0.25}).forward(current);
    current = residual ? residual_add(current, update) : update;
  }
  current.backward_with_seed(Tensor({2}, {1.0, 1.0}), Retention::Retain);
  return {values_of(current.value()), values_of(*input.gradient())};
}

TEST(ResidualAdd, KeepsTheStackThatPlainLayersShrink) {
  const auto [plain_value, plain_gradient] = stack(false);
  const auto [residual_value, residual_gradient] = stack(true);
  EXPECT_EQ(plain_value, (std::vector<double>{0.0078125, -0.00390625}));     // (-1/4)^4 x
  EXPECT_EQ(residual_value, (std::vector<double>{0.6328125, -0.31640625}));  // (3/4)^4 x
  EXPECT_EQ(plain_gradient, (std::vector<double>{0.00390625, 0.00390625}));
  EXPECT_EQ(residual_gradient, (std::vector<double>{0.31640625, 0.31640625}));
}

TEST(ResidualAdd, GradientsMatchCentralDifferences) {
  ParameterSet parameters;
  const TensorValue x = TensorValue::parameter(Tensor({3, 2}, {2.0, -1.0, 0.5, 1.5, -0.75, 0.25}));
  const Linear branch = square_branch({0.5, -1.0, 2.0, 0.25});
  parameters.add("input", x);
  parameters.add_all("branch", branch.parameters());
  testing::expect_parameters_gradchecked(
      "residual around a linear branch", parameters, {"input", "branch.weight"},
      [&] { return testing::smooth_loss(residual_add(x, branch.forward(x))); });
}

}  // namespace
}  // namespace llm
