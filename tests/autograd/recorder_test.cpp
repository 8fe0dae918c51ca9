// The recorder: operations written as free functions outside the tape's own
// files (as later chapters write theirs) record, reverse, check, trace and
// refuse exactly like the built-in ones.
#include "llm/autograd/recorder.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "llm/autograd/gradcheck.hpp"
#include "llm/autograd/operation_names.hpp"
#include "llm/tensor/broadcast.hpp"
#include "llm/tensor/elementwise.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;
using testing::values_of;

// --- Two operations as a later chapter would write them ----------------------

// Named through outside_operation, as code outside the library names its
// operations: "sub" alone would be the library's own (kSub, chapter 25).
inline constexpr TensorOperation kCube = outside_operation("test.cube");
inline constexpr TensorOperation kSub = outside_operation("test.sub");

// x^3 elementwise. d/dx x^3 = 3 x^2.
TensorValue cube(const TensorValue& x) {
  const SharedTensor input = x.value();  // saved context: the input, shared
  const SharedTensor output = map_values(input, [](double v) { return v * v * v; });
  return record_operation(kCube, output,
                          {x, {"times 3 x^2", [input](const SharedTensor& upstream) {
                                 const Tensor square = mul(input, input);
                                 const Tensor three = Tensor::scalar(3.0);
                                 return SharedTensor(mul(upstream, mul(three, square)));
                               }}});
}

// a - b with broadcasting. d/da = 1, d/db = -1, each summed to its operand's shape.
TensorValue sub(const TensorValue& a, const TensorValue& b) {
  const SharedTensor left = a.value();
  const SharedTensor right = b.value();
  const Tensor minus_one = Tensor::scalar(-1.0);
  Tensor result = add(left, mul(minus_one, right));
  return record_operation(
      kSub, std::move(result),
      {a,
       {"sum to operand shape",
        [shape = left.shape()](const SharedTensor& upstream) {
          return SharedTensor(sum_to_shape(upstream, shape));
        }}},
      {b, {"negate, sum to operand shape", [shape = right.shape()](const SharedTensor& upstream) {
             const Tensor negative = mul(Tensor::scalar(-1.0), upstream);
             return SharedTensor(sum_to_shape(negative, shape));
           }}});
}

// --- Tests -------------------------------------------------------------------

TEST(Recorder, AFreeFunctionOperationRecordsAndReversesLikeAMember) {
  const TensorValue x = TensorValue::parameter(Tensor({3}, {1.0, -2.0, 0.5}));
  const TensorValue y = cube(x);
  EXPECT_EQ(y.operation(), kCube);
  EXPECT_EQ(y.operation().name(), "test.cube");
  EXPECT_TRUE(y.tracks_gradient());
  EXPECT_EQ(values_of(y.value()), (std::vector<double>{1.0, -8.0, 0.125}));
  y.sum_axis(0).backward();
  EXPECT_EQ(values_of(*x.gradient()), (std::vector<double>{3.0, 12.0, 0.75}));
}

TEST(Recorder, ABinaryOperationSendsEachSlotItsOwnContribution) {
  const TensorValue a = TensorValue::parameter(Tensor({2, 2}, {1, 2, 3, 4}));
  const TensorValue b = TensorValue::parameter(Tensor({2}, {10, 20}));
  const TensorValue d = sub(a, b);
  EXPECT_EQ(values_of(d.value()), (std::vector<double>{-9, -18, -7, -16}));
  const TensorBackwardTrace trace =
      d.backward_with_trace(Tensor({2, 2}, {1, 2, 3, 4}), Retention::Retain);
  EXPECT_EQ(values_of(*a.gradient()), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(values_of(*b.gradient()), (std::vector<double>{-4, -6}));
  ASSERT_EQ(trace.edges.size(), 2u);
  EXPECT_EQ(trace.edges[0].rule, "sum to operand shape");
  EXPECT_EQ(trace.edges[1].rule, "negate, sum to operand shape");
  EXPECT_EQ(trace.nodes.back().operation, kSub);
}

TEST(Recorder, AFreeFunctionVjpPassesTheSampledGradientCheck) {
  const Tensor point({2, 3}, {0.3, -1.2, 0.7, 1.5, -0.4, 0.9});
  const Tensor seed({2, 3}, {0.5, -1.0, 1.5, -2.0, 2.5, -3.0});
  const TensorValue x = TensorValue::parameter(point);
  cube(x).backward_with_seed(seed, Retention::Release);
  Tensor probed = point;
  const TensorGradientCheck report = sampled_tensor_gradient_check(
      probed, *x.gradient(), 1e-5, 1e-7, 6, [&](const Tensor& candidate) {
        const Tensor cubes = map_values(candidate, [](double v) { return v * v * v; });
        double total = 0.0;
        for (std::size_t k = 0; k < cubes.size(); ++k)
          total += seed.values()[k] * cubes.values()[k];
        return total;
      });
  EXPECT_TRUE(report.passed);
  EXPECT_EQ(report.checks.size(), 6u);
}

TEST(Recorder, RefusesANonFiniteForwardValueNamingTheOperation) {
  const TensorValue x = TensorValue::parameter(Tensor({2}, {1.0, 1e200}));
  const auto error = capture_error<TensorAutodiffError>([&] { cube(x); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorAutodiffErrorKind::NonFiniteResult);
  EXPECT_EQ(error->operation(), kCube);
  EXPECT_EQ(error->coordinate(), (std::vector<std::size_t>{1}));
  EXPECT_EQ(error->area(), "tensor-tape");
  EXPECT_EQ(error->kind_name(), "non-finite-result");
  EXPECT_NE(std::string(error->what()).find("cube produced non-finite value inf"),
            std::string::npos);
}

TEST(Recorder, ScansAResultThatSharesAnOperandsStorageButReachesPastItsValues) {
  // A view of an operand's value is not scanned again: its values were
  // checked with the operand. Sharing the storage is not enough: here the
  // operand is the first two values of a block whose third is infinite, and
  // the result is the whole block, so the scan must run and refuse it.
  const SharedTensor block(Tensor({4}, {1.0, 2.0, std::numeric_limits<double>::infinity(), 4.0}));
  const TensorValue x = TensorValue::parameter(Tensor({2}, {1.0, 2.0}));
  const TensorValue first_two = TensorValue::constant(block.slice(0, 0, 2));
  const auto error = capture_error<TensorAutodiffError>([&] {
    record_operation(kSub, block,
                     {first_two, {"unused", [](const SharedTensor& upstream) { return upstream; }}},
                     {x, {"unused", [](const SharedTensor& upstream) { return upstream; }}});
  });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorAutodiffErrorKind::NonFiniteResult);
  EXPECT_EQ(error->coordinate(), (std::vector<std::size_t>{2}));
  // A transposed view of a checked value is recorded, with its values.
  const TensorValue matrix = TensorValue::parameter(Tensor({2, 3}, {1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(values_of(matrix.transpose(0, 1).value().materialize()),
            (std::vector<double>{1, 4, 2, 5, 3, 6}));
}

TEST(Recorder, HonoursTheNoGradScopeAndUntrackedOperands) {
  const TensorValue x = TensorValue::parameter(Tensor({1}, {2.0}));
  {
    const NoGradScope no_grad;
    const TensorValue y = cube(x);
    EXPECT_FALSE(y.tracks_gradient());
    EXPECT_EQ(values_of(y.value()), (std::vector<double>{8.0}));
  }
  const TensorValue c = TensorValue::constant(Tensor({1}, {3.0}));
  EXPECT_FALSE(cube(c).tracks_gradient());
  EXPECT_TRUE(sub(c, x).tracks_gradient());
}

TEST(Recorder, LabelsNameANodeInTracesAndErrors) {
  const TensorValue x = TensorValue::parameter(Tensor({1}, {2.0}));
  const TensorValue y = cube(x).labeled("cubed");
  EXPECT_EQ(y.label(), "cubed");
  const TensorBackwardTrace trace = y.backward_with_trace(Tensor({1}, {1.0}), Retention::Release);
  EXPECT_EQ(trace.nodes.back().label, "cubed");
  const auto error = capture_error<TensorAutodiffError>(
      [&] { y.backward_with_seed(Tensor({1}, {1.0}), Retention::Retain); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorAutodiffErrorKind::ReleasedGraph);
  EXPECT_EQ(error->label(), "cubed");
  EXPECT_EQ(
      std::string(error->what()),
      "cannot reverse test.cube node 1 (\"cubed\"): an earlier backward pass released its saved "
      "context");
}

}  // namespace
}  // namespace llm
