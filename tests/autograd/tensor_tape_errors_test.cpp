// Every typed failure of the chapter 15 tape, each checked for its exact kind,
// its evidence and message, and for leaving every value, stored gradient,
// version and retention state bit-for-bit unchanged; the stale-operand guard;
// and shape errors of the operations propagating as TensorError.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "llm/autograd/tensor_value.hpp"
#include "tensor_tape_support.hpp"

namespace llm {
namespace {

using testing::capture_error;
using testing::tape_state;
using testing::tensor;
using testing::values_of;
using testing::WorkedExample;

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A worked example that already holds non-zero gradients, so "unchanged"
// cannot pass merely because everything is zero.
WorkedExample example_after_one_pass() {
  WorkedExample example;
  example.output.backward_with_seed(example.seed, Retention::Retain);
  return example;
}

TEST(TensorTapeErrors, KindNamesAreStable) {
  using Kind = TensorAutodiffErrorKind;
  const std::vector<std::pair<Kind, std::string>> expected = {
      {Kind::NonFiniteLeaf, "non-finite-leaf"},
      {Kind::NonFiniteResult, "non-finite-result"},
      {Kind::UntrackedOutput, "untracked-output"},
      {Kind::NonScalarOutput, "non-scalar-output"},
      {Kind::SeedShapeMismatch, "seed-shape-mismatch"},
      {Kind::NonFiniteSeed, "non-finite-seed"},
      {Kind::ReleasedGraph, "released-graph"},
      {Kind::StaleOperand, "stale-operand"},
      {Kind::NotAParameter, "not-a-parameter"},
      {Kind::AssignShapeMismatch, "assign-shape-mismatch"},
      {Kind::ContributionShapeMismatch, "contribution-shape-mismatch"},
      {Kind::NonFiniteContribution, "non-finite-contribution"},
      {Kind::NonFinitePassAdjoint, "non-finite-pass-adjoint"},
      {Kind::NonFiniteAccumulatedGradient, "non-finite-accumulated-gradient"}};
  for (const auto& [kind, name] : expected)
    EXPECT_EQ(TensorAutodiffError::kind_name_of(kind), name);
}

TEST(TensorTapeErrors, RejectsNonFiniteLeavesNamingTheElement) {
  const auto parameter_error = capture_error<TensorAutodiffError>([] {
    TensorValue::parameter(tensor({2}, {1, kInfinity}));
  });
  ASSERT_TRUE(parameter_error.has_value());
  EXPECT_EQ(parameter_error->kind(), TensorAutodiffErrorKind::NonFiniteLeaf);
  EXPECT_EQ(parameter_error->operation(), TensorOperation::Parameter);
  EXPECT_EQ(parameter_error->coordinate(), (std::vector<std::size_t>{1}));
  EXPECT_EQ(std::string(parameter_error->what()),
            "parameter value inf at coordinate [1] of shape [2] must be finite");

  const auto constant_error =
      capture_error<TensorAutodiffError>([] { TensorValue::constant(Tensor::scalar(kNaN)); });
  ASSERT_TRUE(constant_error.has_value());
  EXPECT_EQ(constant_error->kind(), TensorAutodiffErrorKind::NonFiniteLeaf);
  EXPECT_EQ(constant_error->operation(), TensorOperation::Constant);
}

TEST(TensorTapeErrors, RejectsNonFiniteForwardResultsNamingTheOperation) {
  const TensorValue big = TensorValue::parameter(tensor({2}, {1e308, 1}));
  const testing::TapeState before = tape_state({big});
  const auto add_error = capture_error<TensorAutodiffError>([&] { big.add(big); });
  ASSERT_TRUE(add_error.has_value());
  EXPECT_EQ(add_error->kind(), TensorAutodiffErrorKind::NonFiniteResult);
  EXPECT_EQ(add_error->operation(), TensorOperation::Add);
  EXPECT_EQ(std::string(add_error->what()),
            "add produced non-finite value inf at coordinate [0] of shape [2]");
  const auto mul_error = capture_error<TensorAutodiffError>([&] { big.mul(big); });
  ASSERT_TRUE(mul_error.has_value());
  EXPECT_EQ(mul_error->operation(), TensorOperation::Mul);
  const auto sum_error = capture_error<TensorAutodiffError>([&] {
    big.broadcast_to({2, 2}).sum_axis(0);
  });
  ASSERT_TRUE(sum_error.has_value());
  EXPECT_EQ(sum_error->operation(), TensorOperation::SumAxis);
  EXPECT_EQ(tape_state({big}), before);
}

TEST(TensorTapeErrors, RejectsUntrackedOutputWithoutMutation) {
  const WorkedExample example = example_after_one_pass();
  const TensorValue constant = TensorValue::constant(tensor({2}, {1, 2}));
  const TensorValue untracked = constant.mul(constant);
  const testing::TapeState before = tape_state(example.nodes());
  const auto error = capture_error<TensorAutodiffError>([&] {
    untracked.backward_with_seed(tensor({2}, {1, 1}), Retention::Release);
  });
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->kind(), TensorAutodiffErrorKind::UntrackedOutput);
  EXPECT_EQ(std::string(error->what()), "cannot backpropagate from untracked mul output");
  const auto scalar_error = capture_error<TensorAutodiffError>(
      [&] { TensorValue::constant(Tensor::scalar(1)).backward(); });
  ASSERT_TRUE(scalar_error.has_value());
  EXPECT_EQ(scalar_error->kind(), TensorAutodiffErrorKind::UntrackedOutput);
  EXPECT_EQ(scalar_error->operation(), TensorOperation::Constant);
  EXPECT_EQ(tape_state(example.nodes()), before);
}

TEST(TensorTapeErrors, BackwardWithoutSeedRejectsNonScalarOutputWithoutMutation) {
  const WorkedExample example = example_after_one_pass();
  const testing::TapeState before = tape_state(example.nodes());
  const auto error = capture_error<TensorAutodiffError>([&] { example.output.backward(); });
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->kind(), TensorAutodiffErrorKind::NonScalarOutput);
  EXPECT_EQ(error->shape(), (Shape{2}));
  const auto trace_error =
      capture_error<TensorAutodiffError>([&] { example.output.backward_with_trace(); });
  ASSERT_TRUE(trace_error.has_value());
  EXPECT_EQ(trace_error->kind(), TensorAutodiffErrorKind::NonScalarOutput);
  EXPECT_EQ(tape_state(example.nodes()), before);
}

TEST(TensorTapeErrors, RejectsSeedOfWrongShapeWithoutMutation) {
  const WorkedExample example = example_after_one_pass();
  const testing::TapeState before = tape_state(example.nodes());
  for (const Tensor& seed : {tensor({3}, {3, 6, 9}), tensor({2, 1}, {3, 6}), Tensor::scalar(3)}) {
    const auto error = capture_error<TensorAutodiffError>(
        [&] { example.output.backward_with_seed(seed, Retention::Release); });
    ASSERT_TRUE(error.has_value());
    EXPECT_EQ(error->kind(), TensorAutodiffErrorKind::SeedShapeMismatch);
    EXPECT_EQ(error->shape(), seed.shape());
    EXPECT_EQ(error->expected_shape(), (Shape{2}));
  }
  const auto error = capture_error<TensorAutodiffError>([&] {
    example.output.backward_with_seed(tensor({3}, {3, 6, 9}), Retention::Retain);
  });
  EXPECT_EQ(std::string(error->what()),
            "backward seed shape [3] does not match mean_axis output shape [2]");
  EXPECT_EQ(tape_state(example.nodes()), before);
}

TEST(TensorTapeErrors, RejectsNonFiniteSeedWithoutMutation) {
  const WorkedExample example = example_after_one_pass();
  const testing::TapeState before = tape_state(example.nodes());
  for (double bad : {kInfinity, -kInfinity, kNaN}) {
    const auto error = capture_error<TensorAutodiffError>([&] {
      example.output.backward_with_seed(tensor({2}, {3, bad}), Retention::Release);
    });
    ASSERT_TRUE(error.has_value());
    EXPECT_EQ(error->kind(), TensorAutodiffErrorKind::NonFiniteSeed);
    EXPECT_EQ(error->coordinate(), (std::vector<std::size_t>{1}));
  }
  const auto error = capture_error<TensorAutodiffError>([&] {
    example.output.backward_with_seed(tensor({2}, {kInfinity, 1}), Retention::Retain);
  });
  EXPECT_EQ(error->operation(), TensorOperation::MeanAxis);
  EXPECT_EQ(std::string(error->what()),
            "backward seed value inf at coordinate [0] for the mean_axis output must be finite");
  EXPECT_EQ(tape_state(example.nodes()), before);
}

TEST(TensorTapeErrors, RejectsNonFiniteContributionWithoutMutationOrRelease) {
  // y = p * c = 1, but the VJP into p is seed * c = 1e10 * 1e300 = inf.
  const TensorValue p = TensorValue::parameter(tensor({1}, {1e-300}));
  const TensorValue c = TensorValue::constant(tensor({1}, {1e300}));
  const TensorValue y = p.mul(c);
  y.backward_with_seed(tensor({1}, {1}), Retention::Retain);
  const testing::TapeState before = tape_state({p, c, y});
  const auto error = capture_error<TensorAutodiffError>(
      [&] { y.backward_with_seed(tensor({1}, {1e10}), Retention::Release); });
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->kind(), TensorAutodiffErrorKind::NonFiniteContribution);
  EXPECT_EQ(error->operation(), TensorOperation::Mul);
  EXPECT_EQ(error->node(), 2u);
  EXPECT_EQ(error->parent(), 0u);
  EXPECT_EQ(error->operand(), 0u);
  EXPECT_EQ(std::string(error->what()),
            "VJP of mul node 2 for operand 0 (node 0) produced non-finite contribution inf at "
            "coordinate [0]");
  EXPECT_EQ(tape_state({p, c, y}), before);
  EXPECT_FALSE(y.is_released());
}

TEST(TensorTapeErrors, RejectsNonFinitePassAdjointWithoutMutationOrRelease) {
  // Two finite contributions of 1e308 into the same operand overflow their sum.
  const TensorValue p = TensorValue::parameter(tensor({2}, {1, 2}));
  const TensorValue y = p.add(p);
  const testing::TapeState before = tape_state({p, y});
  const auto error = capture_error<TensorAutodiffError>([&] {
    y.backward_with_seed(tensor({2}, {1, 1e308}), Retention::Release);
  });
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->kind(), TensorAutodiffErrorKind::NonFinitePassAdjoint);
  EXPECT_EQ(error->operation(), TensorOperation::Parameter);
  EXPECT_EQ(error->coordinate(), (std::vector<std::size_t>{1}));
  EXPECT_EQ(error->value(), 1e308);
  EXPECT_EQ(error->other_value(), 1e308);
  EXPECT_EQ(tape_state({p, y}), before);
  EXPECT_FALSE(y.is_released());
}

TEST(TensorTapeErrors, RejectsOverflowingAccumulatedGradientWithoutPartialCommit) {
  // q is committed before p in topological order would be; neither may change.
  const TensorValue q = TensorValue::parameter(tensor({2}, {1, 1}));
  const TensorValue p = TensorValue::parameter(tensor({2}, {0.5, -0.25}));
  const TensorValue big = TensorValue::constant(Tensor::scalar(1e308));
  const TensorValue y = q.add(p.mul(big));
  const Tensor seed = tensor({2}, {1.5, 1});
  y.backward_with_seed(seed, Retention::Retain);
  EXPECT_EQ(values_of(*p.gradient()), (std::vector<double>{1.5e308, 1e308}));
  const testing::TapeState before = tape_state({q, p, big, y});
  const auto error =
      capture_error<TensorAutodiffError>([&] { y.backward_with_seed(seed, Retention::Release); });
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->kind(), TensorAutodiffErrorKind::NonFiniteAccumulatedGradient);
  EXPECT_EQ(error->coordinate(), (std::vector<std::size_t>{0}));
  EXPECT_EQ(error->value(), 1.5e308);
  EXPECT_EQ(error->other_value(), 1.5e308);
  EXPECT_EQ(tape_state({q, p, big, y}), before);
  EXPECT_EQ(values_of(*q.gradient()), (std::vector<double>{1.5, 1}));
  EXPECT_FALSE(y.is_released());
}

TEST(TensorTapeErrors, ReleasedGraphFailureKeepsEveryNodesState) {
  WorkedExample example;
  example.output.backward_with_seed(example.seed, Retention::Release);
  const testing::TapeState before = tape_state(example.nodes());
  const auto error = capture_error<TensorAutodiffError>(
      [&] { example.output.backward_with_trace(example.seed, Retention::Release); });
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->kind(), TensorAutodiffErrorKind::ReleasedGraph);
  EXPECT_EQ(tape_state(example.nodes()), before);
}

TEST(TensorTapeStaleOperand, AssignedParameterMakesRecordedConsumersStale) {
  TensorValue p = TensorValue::parameter(tensor({2}, {2, 3}));
  const TensorValue c = TensorValue::constant(tensor({2}, {10, 20}));
  const TensorValue y = p.mul(c).sum_axis(0);
  y.backward(Retention::Retain);  // kept: the second pass below must reach mul again
  p.assign(tensor({2}, {5, 7}));
  EXPECT_EQ(p.version(), 1u);
  EXPECT_EQ(values_of(p.value()), (std::vector<double>{5, 7}));
  EXPECT_EQ(values_of(*p.gradient()), (std::vector<double>{10, 20}));  // assign keeps it

  const testing::TapeState before = tape_state({p, c, y});
  const auto error = capture_error<TensorAutodiffError>([&] { y.backward(); });
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->kind(), TensorAutodiffErrorKind::StaleOperand);
  EXPECT_EQ(error->operation(), TensorOperation::Mul);
  EXPECT_EQ(error->operand(), 0u);
  EXPECT_EQ(error->recorded_version(), 0u);
  EXPECT_EQ(error->current_version(), 1u);
  EXPECT_EQ(std::string(error->what()),
            "mul node 2 recorded operand 0 (node 0) at version 0, but that parameter was "
            "assigned since and is at version 1");
  EXPECT_EQ(tape_state({p, c, y}), before);

  // A graph recorded after the assignment reads the new value.
  p.mul(c).sum_axis(0).backward();
  EXPECT_EQ(values_of(*p.gradient()), (std::vector<double>{20, 40}));
}

TEST(TensorTapeStaleOperand, RejectedAssignmentsChangeNothing) {
  const TensorValue p = TensorValue::parameter(tensor({2}, {2, 3}));
  const TensorValue y = p.mul(p);
  TensorValue writable = p;
  const testing::TapeState before = tape_state({p, y});
  const auto shape_error = capture_error<TensorAutodiffError>([&] {
    writable.assign(tensor({3}, {1, 2, 3}));
  });
  ASSERT_TRUE(shape_error.has_value());
  EXPECT_EQ(shape_error->kind(), TensorAutodiffErrorKind::AssignShapeMismatch);
  const auto finite_error = capture_error<TensorAutodiffError>([&] {
    writable.assign(tensor({2}, {1, kNaN}));
  });
  ASSERT_TRUE(finite_error.has_value());
  EXPECT_EQ(finite_error->kind(), TensorAutodiffErrorKind::NonFiniteLeaf);
  TensorValue result = y;
  const auto parameter_error = capture_error<TensorAutodiffError>([&] {
    result.assign(tensor({2}, {1, 1}));
  });
  ASSERT_TRUE(parameter_error.has_value());
  EXPECT_EQ(parameter_error->kind(), TensorAutodiffErrorKind::NotAParameter);
  EXPECT_EQ(std::string(parameter_error->what()),
            "assign() replaces parameter values only, not a mul value");
  EXPECT_EQ(tape_state({p, y}), before);
  y.backward_with_seed(tensor({2}, {1, 1}), Retention::Retain);  // still fresh
  EXPECT_EQ(values_of(*p.gradient()), (std::vector<double>{4, 6}));
}

TEST(TensorTapeShapeErrors, OperationShapeErrorsPropagateAsTensorErrors) {
  const TensorValue p = TensorValue::parameter(tensor({2, 3}, {1, 2, 3, 4, 5, 6}));
  const testing::TapeState before = tape_state({p});
  EXPECT_EQ(capture_error<TensorError>([&] { p.reshape({4}); })->kind(),
            TensorErrorKind::ReshapeCountMismatch);
  EXPECT_EQ(capture_error<TensorError>([&] { p.transpose(0, 2); })->kind(),
            TensorErrorKind::InvalidAxis);
  EXPECT_EQ(capture_error<TensorError>([&] {
              p.broadcast_to({3, 3});
            })->kind(),
            TensorErrorKind::IncompatibleBroadcast);
  const TensorValue other = TensorValue::constant(tensor({2}, {1, 2}));
  EXPECT_EQ(capture_error<TensorError>([&] { p.add(other); })->kind(),
            TensorErrorKind::IncompatibleBroadcast);
  EXPECT_EQ(capture_error<TensorError>([&] { p.mul(other); })->kind(),
            TensorErrorKind::IncompatibleBroadcast);
  EXPECT_EQ(capture_error<TensorError>([&] { p.sum_axis(2); })->kind(),
            TensorErrorKind::InvalidAxis);
  const TensorValue empty = TensorValue::parameter(Tensor::zeros({2, 0}));
  EXPECT_EQ(capture_error<TensorError>([&] { empty.mean_axis(1); })->kind(),
            TensorErrorKind::EmptyAxis);
  EXPECT_EQ(tape_state({p}), before);
}

}  // namespace
}  // namespace llm
