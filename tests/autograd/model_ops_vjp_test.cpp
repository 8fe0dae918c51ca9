// Every chapter 16 VJP against chapter 13's sampled central differences, at
// several shapes: broadcast batch axes of matmul on either side, a transposed
// operand, repeated gather IDs with rank-one and rank-two index shapes, and
// class axes with and without trailing axes. Each check reverses a
// non-trivial seed, so a VJP that ignored its upstream would fail.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "llm/autograd/gradcheck.hpp"
#include "llm/autograd/model_ops.hpp"
#include "llm/autograd/tensor_value.hpp"
#include "llm/tensor/elementwise.hpp"
#include "llm/tensor/matmul.hpp"
#include "llm/tensor/probability.hpp"
#include "tensor_tape_support.hpp"
#include "vjp_check_support.hpp"

namespace llm {
namespace {

using testing::expect_vjp_matches;
using testing::filled;
using testing::positive;
using testing::tensor;

// Checks both parents of left.matmul(right) for these shapes.
void expect_matmul_vjps_match(const Shape& left_shape, const Shape& right_shape) {
  const Tensor left = filled(left_shape);
  const Tensor right = filled(right_shape, 0.5);
  const std::string shapes = shape_text(left_shape) + " x " + shape_text(right_shape);
  expect_vjp_matches(
      "left parent of " + shapes, left,
      [&](const TensorValue& p) { return p.matmul(TensorValue::constant(right)); },
      [&](const Tensor& p) { return matmul(p.view(), right.view()); });
  expect_vjp_matches(
      "right parent of " + shapes, right,
      [&](const TensorValue& p) { return TensorValue::constant(left).matmul(p); },
      [&](const Tensor& p) { return matmul(left.view(), p.view()); });
}

TEST(ModelMatmulVjp, MatchesCentralDifferencesForPlainMatrices) {
  expect_matmul_vjps_match({2, 3}, {3, 4});
}

TEST(ModelMatmulVjp, SumsBroadcastBatchAxesBackToTheUnbatchedRightOperand) {
  expect_matmul_vjps_match({2, 2, 3}, {3, 4});
}

TEST(ModelMatmulVjp, SumsBroadcastBatchAxesBackToAnExtentOneLeftOperand) {
  expect_matmul_vjps_match({1, 2, 3}, {4, 3, 2});
}

TEST(ModelMatmulVjp, SumsBroadcastBatchAxesBackToAnUnbatchedLeftOperand) {
  expect_matmul_vjps_match({2, 3}, {2, 2, 3, 2});
}

TEST(ModelMatmulVjp, FlowsThroughATransposedOperandOnEitherSide) {
  const Tensor right = filled({3, 4}, 0.5);
  expect_vjp_matches(
      "x.transpose(0, 1) as the left operand", filled({3, 2}),
      [&](const TensorValue& p) { return p.transpose(0, 1).matmul(TensorValue::constant(right)); },
      [&](const Tensor& p) { return matmul(p.view().transpose(0, 1), right.view()); });
  const Tensor left = filled({2, 3});
  expect_vjp_matches(
      "x.transpose(0, 1) as the right operand", filled({4, 3}, 0.5),
      [&](const TensorValue& p) { return TensorValue::constant(left).matmul(p.transpose(0, 1)); },
      [&](const Tensor& p) { return matmul(left.view(), p.view().transpose(0, 1)); });
}

TEST(ModelMatmulVjp, AddsBothContributionsWhenOneTensorIsBothOperands) {
  expect_vjp_matches(
      "x.matmul(x)", filled({3, 3}), [](const TensorValue& p) { return p.matmul(p); },
      [](const Tensor& p) { return matmul(p.view(), p.view()); });
}

// The same rows copied with a plain loop, for the numerical side.
Tensor gather_by_hand(const Tensor& table, const std::vector<std::size_t>& ids,
                      const Shape& index_shape) {
  const std::size_t width = table.shape()[1];
  Shape shape = index_shape;
  shape.push_back(width);
  Tensor rows = Tensor::zeros(shape);
  for (std::size_t p = 0; p < ids.size(); ++p) {
    for (std::size_t f = 0; f < width; ++f) {
      rows.mutable_values()[p * width + f] = table.values()[ids[p] * width + f];
    }
  }
  return rows;
}

TEST(ModelGatherRowsVjp, AccumulatesRepeatedIdsOfARankOneIndexShape) {
  const std::vector<std::size_t> ids = {2, 1, 2};
  expect_vjp_matches(
      "ids [2, 1, 2] as [3]", filled({3, 2}),
      [&](const TensorValue& p) { return p.gather_rows(ids, {3}); },
      [&](const Tensor& p) { return gather_by_hand(p, ids, {3}); });
}

TEST(ModelGatherRowsVjp, AccumulatesRepeatedIdsOfABatchByTimeIndexShape) {
  const std::vector<std::size_t> ids = {1, 1, 1, 2};
  expect_vjp_matches(
      "ids [1, 1, 1, 2] as [2, 2]", filled({3, 3}),
      [&](const TensorValue& p) {
        return p.gather_rows(ids, {2, 2});
      },
      [&](const Tensor& p) {
        return gather_by_hand(p, ids, {2, 2});
      });
  expect_vjp_matches(
      "ids [1, 1, 1, 2] as [4]", filled({3, 2}),
      [&](const TensorValue& p) { return p.gather_rows(ids, {4}); },
      [&](const Tensor& p) { return gather_by_hand(p, ids, {4}); });
}

TEST(ModelElementwiseVjp, ExpMatchesCentralDifferences) {
  for (const Shape& shape : {Shape{3}, Shape{2, 3}}) {
    expect_vjp_matches(
        "exp of " + shape_text(shape), filled(shape), [](const TensorValue& p) { return p.exp(); },
        [](const Tensor& p) { return map_values(p.view(), [](double x) { return std::exp(x); }); });
  }
}

TEST(ModelElementwiseVjp, LogMatchesCentralDifferences) {
  for (const Shape& shape : {Shape{3}, Shape{2, 2, 2}}) {
    expect_vjp_matches(
        "log of " + shape_text(shape), positive(shape),
        [](const TensorValue& p) { return p.log(); },
        [](const Tensor& p) { return map_values(p.view(), [](double x) { return std::log(x); }); });
  }
}

TEST(ModelElementwiseVjp, SiluMatchesCentralDifferencesOnBothSidesOfZero) {
  const auto silu = [](double x) { return x * stable_sigmoid(x); };
  for (double scale : {1.0, 6.0}) {
    expect_vjp_matches(
        "silu with scale " + std::to_string(scale), filled({2, 3}, scale),
        [](const TensorValue& p) { return p.silu(); },
        [&](const Tensor& p) { return map_values(p.view(), silu); });
  }
}

TEST(ModelProbabilityVjp, LogSoftmaxMatchesCentralDifferencesOnEveryAxisLayout) {
  struct Case {
    Shape shape;
    std::size_t axis;
  };
  for (const Case& c : {Case{{2, 3}, 1}, Case{{3, 2}, 0}, Case{{2, 3, 2}, 1}, Case{{4}, 0}}) {
    expect_vjp_matches(
        "log_softmax of " + shape_text(c.shape) + " along " + std::to_string(c.axis),
        filled(c.shape, 2.0), [&](const TensorValue& p) { return p.log_softmax(c.axis); },
        [&](const Tensor& p) { return log_softmax(p.view(), c.axis); });
  }
}

TEST(ModelProbabilityVjp, IndexedMeanNllMatchesCentralDifferencesOnEveryAxisLayout) {
  struct Case {
    Shape shape;
    std::size_t axis;
    std::vector<std::size_t> targets;
  };
  const std::vector<Case> cases = {{{2, 3}, 1, {2, 0}},
                                   {{2, 2, 3}, 2, {0, 2, 1, 1}},
                                   {{2, 3, 2}, 1, {2, 0, 1, 1}},
                                   {{3, 2}, 0, {1, 2}}};
  for (const Case& c : cases) {
    expect_vjp_matches(
        "indexed_mean_nll of " + shape_text(c.shape) + " along " + std::to_string(c.axis),
        filled(c.shape, 2.0),
        [&](const TensorValue& p) { return p.indexed_mean_nll(c.axis, c.targets); },
        [&](const Tensor& p) {
          return Tensor::scalar(indexed_mean_nll(p.view(), c.axis, c.targets));
        });
  }
}

TEST(ModelChainVjp, WholeTokenToLossChainMatchesCentralDifferences) {
  const std::vector<std::size_t> ids = {1, 1, 1, 2};
  const std::vector<std::size_t> targets = {0, 2, 0, 1};
  const Tensor weights = filled({2, 3}, 0.8);
  expect_vjp_matches(
      "gather -> matmul -> silu -> indexed_mean_nll", filled({3, 2}),
      [&](const TensorValue& table) {
        return table.gather_rows(ids, {2, 2})
            .matmul(TensorValue::constant(weights))
            .silu()
            .indexed_mean_nll(2, targets);
      },
      [&](const Tensor& table) {
        const Tensor rows = gather_by_hand(table, ids, {2, 2});
        const Tensor projected = matmul(rows.view(), weights.view());
        const Tensor activated =
            map_values(projected.view(), [](double x) { return x * stable_sigmoid(x); });
        return Tensor::scalar(indexed_mean_nll(activated.view(), 2, targets));
      });
}

}  // namespace
}  // namespace llm
