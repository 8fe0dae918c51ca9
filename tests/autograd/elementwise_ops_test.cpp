// Part V's elementwise tape operations (scale, sub, div, rsqrt): worked
// values, VJPs against central differences of the plain kernels (with
// broadcast and strided operands), and every refusal leaving the tape as it was.
#include "llm/autograd/elementwise_ops.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "llm/tensor/elementwise.hpp"
#include "tensor_tape_support.hpp"
#include "vjp_check_support.hpp"

namespace llm {
namespace {

using testing::capture_error;
using testing::expect_vjp_matches;
using testing::filled;
using testing::positive;
using testing::tape_state;
using testing::tensor;
using testing::values_of;

TEST(ScaleOperation, MultipliesEveryElementByTheConstant) {
  const TensorValue x = TensorValue::parameter(tensor({3}, {1.0, -2.0, 0.5}));
  const TensorValue y = scale(x, -0.5);
  EXPECT_EQ(y.operation(), kScale);
  EXPECT_EQ(values_of(y.value()), (std::vector<double>{-0.5, 1.0, -0.25}));
  y.backward_with_seed(tensor({3}, {1.0, 2.0, -4.0}), Retention::Release);
  EXPECT_EQ(values_of(*x.gradient()), (std::vector<double>{-0.5, -1.0, 2.0}));
}

TEST(ScaleOperation, VjpMatchesCentralDifferencesThroughATransposedOperand) {
  expect_vjp_matches(
      "scale(x^T, 0.75)", filled({2, 3}),
      [](const TensorValue& p) { return scale(p.transpose(0, 1), 0.75); },
      [](const Tensor& p) {
        return map_values(p.view().transpose(0, 1), [](double v) { return 0.75 * v; });
      });
}

TEST(ScaleOperation, RefusesANonFiniteFactorBeforeRecording) {
  const TensorValue x = TensorValue::parameter(tensor({2}, {1.0, 2.0}));
  const auto before = tape_state({x});
  const std::size_t nodes = TensorValue::live_node_count();
  const auto error =
      capture_error<DecoderOpError>([&] { scale(x, std::numeric_limits<double>::infinity()); });
  EXPECT_EQ(error->kind(), DecoderOpErrorKind::NonFiniteFactor);
  EXPECT_EQ(error->area(), "decoder-operation");
  EXPECT_EQ(error->kind_name(), "non-finite-factor");
  EXPECT_STREQ(error->what(), "scale needs a finite factor, got inf");
  EXPECT_EQ(tape_state({x}), before);
  EXPECT_EQ(TensorValue::live_node_count(), nodes);
}

TEST(SubOperation, SubtractsWithBroadcastingAndNegatesTheRightGradient) {
  const TensorValue a = TensorValue::parameter(tensor({2, 2}, {1, 2, 3, 4}));
  const TensorValue b = TensorValue::parameter(tensor({2}, {10, 20}));
  const TensorValue d = sub(a, b);
  EXPECT_EQ(d.operation(), kSub);
  EXPECT_EQ(values_of(d.value()), (std::vector<double>{-9, -18, -7, -16}));
  d.backward_with_seed(tensor({2, 2}, {1, 2, 3, 4}), Retention::Release);
  EXPECT_EQ(values_of(*a.gradient()), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(values_of(*b.gradient()), (std::vector<double>{-4, -6}));
}

TEST(SubOperation, VjpsMatchCentralDifferencesForBothBroadcastOperands) {
  const Tensor right = filled({3, 1}, 0.5);
  expect_vjp_matches(
      "left of [2, 3, 4] - [3, 1]", filled({2, 3, 4}),
      [&](const TensorValue& p) { return sub(p, TensorValue::constant(right)); },
      [&](const Tensor& p) {
        return broadcast_map(p, right, [](double l, double r) { return l - r; });
      });
  const Tensor left = filled({2, 3, 4});
  expect_vjp_matches(
      "right of [2, 3, 4] - [3, 1]", right,
      [&](const TensorValue& p) { return sub(TensorValue::constant(left), p); },
      [&](const Tensor& p) {
        return broadcast_map(left, p, [](double l, double r) { return l - r; });
      });
}

TEST(DivOperation, DividesWithBroadcasting) {
  const TensorValue a = TensorValue::parameter(tensor({2, 2}, {1, 2, 3, 4}));
  const TensorValue b = TensorValue::parameter(tensor({2, 1}, {2, -4}));
  const TensorValue q = div(a, b);
  EXPECT_EQ(q.operation(), kDiv);
  EXPECT_EQ(values_of(q.value()), (std::vector<double>{0.5, 1.0, -0.75, -1.0}));
  q.backward_with_seed(tensor({2, 2}, {1, 1, 1, 1}), Retention::Release);
  // d/da = 1/b; d/db = -sum_j a_j / b^2
  EXPECT_EQ(values_of(*a.gradient()), (std::vector<double>{0.5, 0.5, -0.25, -0.25}));
  EXPECT_EQ(values_of(*b.gradient()), (std::vector<double>{-0.75, -0.4375}));
}

TEST(DivOperation, VjpsMatchCentralDifferencesForBothBroadcastOperands) {
  const Tensor right = positive({3, 1});
  expect_vjp_matches(
      "left of [2, 3, 4] / [3, 1]", filled({2, 3, 4}),
      [&](const TensorValue& p) { return div(p, TensorValue::constant(right)); },
      [&](const Tensor& p) {
        return broadcast_map(p, right, [](double l, double r) { return l / r; });
      });
  const Tensor left = filled({2, 3, 4});
  expect_vjp_matches(
      "right of [2, 3, 4] / [3, 1]", right,
      [&](const TensorValue& p) { return div(TensorValue::constant(left), p); },
      [&](const Tensor& p) {
        return broadcast_map(left, p, [](double l, double r) { return l / r; });
      });
}

TEST(DivOperation, RefusesAZeroDivisorNamingItsCoordinate) {
  const TensorValue a = TensorValue::parameter(tensor({2, 2}, {1, 2, 3, 4}));
  const TensorValue b = TensorValue::parameter(tensor({2, 1}, {2, -0.0}));
  const auto before = tape_state({a, b});
  const auto error = capture_error<DecoderOpError>([&] { div(a, b); });
  EXPECT_EQ(error->kind(), DecoderOpErrorKind::DivisionByZero);
  EXPECT_EQ(error->evidence().coordinate, (std::vector<std::size_t>{1, 0}));
  EXPECT_STREQ(error->what(), "div's divisor is zero at coordinate [1, 0] of its shape [2, 1]");
  EXPECT_EQ(tape_state({a, b}), before);
}

TEST(RsqrtOperation, ComputesOneOverTheSquareRoot) {
  const TensorValue x = TensorValue::parameter(tensor({3}, {4.0, 0.25, 12.5}));
  const TensorValue y = rsqrt(x);
  EXPECT_EQ(y.operation(), kRsqrt);
  EXPECT_EQ(values_of(y.value()), (std::vector<double>{0.5, 2.0, 1.0 / std::sqrt(12.5)}));
  y.backward_with_seed(tensor({3}, {1.0, 1.0, 0.0}), Retention::Release);
  // -x^(-3/2) / 2 at 4 and 0.25
  EXPECT_EQ(values_of(*x.gradient()), (std::vector<double>{-0.0625, -4.0, 0.0}));
}

TEST(RsqrtOperation, VjpMatchesCentralDifferencesThroughASlicedOperand) {
  expect_vjp_matches(
      "rsqrt(x[1:3])", positive({4, 3}),
      [](const TensorValue& p) { return rsqrt(p.slice(0, 1, 3)); },
      [](const Tensor& p) {
        return map_values(p.view().slice(0, 1, 3), [](double v) { return 1.0 / std::sqrt(v); });
      });
}

TEST(RsqrtOperation, RefusesTheFirstNonPositiveInputBeforeRecording) {
  const TensorValue x = TensorValue::parameter(tensor({2, 2}, {1.0, 2.0, 0.0, -3.0}));
  const auto before = tape_state({x});
  const auto error = capture_error<DecoderOpError>([&] { rsqrt(x); });
  EXPECT_EQ(error->kind(), DecoderOpErrorKind::RsqrtNonPositiveInput);
  EXPECT_EQ(error->evidence().coordinate, (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(error->evidence().value, 0.0);
  EXPECT_STREQ(error->what(),
               "rsqrt needs positive inputs, but the value at coordinate [1, 0] of shape [2, 2] "
               "is 0.0");
  EXPECT_EQ(tape_state({x}), before);
}

TEST(ElementwiseOperations, RecordNoGraphUnderNoGradScope) {
  const TensorValue x = TensorValue::parameter(tensor({2}, {1.0, 4.0}));
  const NoGradScope scope;
  EXPECT_FALSE(rsqrt(scale(sub(x, x), 0.0).add(x)).tracks_gradient());
}

}  // namespace
}  // namespace llm
