// Every VJP of the chapter 15 tape against chapter 13's sampled central
// differences, at several shapes: broadcasting of a rank-0 constant and of
// both operands, keep_dim both ways, a transposed operand, a tensor used
// twice, and the worked example's whole chain. Each check reverses a
// non-trivial seed, so a VJP that ignored its upstream would fail.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "llm/autograd/gradcheck.hpp"
#include "llm/autograd/tensor_value.hpp"
#include "llm/tensor/broadcast.hpp"
#include "llm/tensor/elementwise.hpp"
#include "llm/tensor/reduction.hpp"
#include "tensor_tape_support.hpp"
#include "vjp_check_support.hpp"

namespace llm {
namespace {

using testing::expect_vjp_matches;
using testing::filled;
using testing::tensor;

TEST(TensorVjp, ReshapeMatchesCentralDifferences) {
  for (const auto& [from, to] : std::vector<std::pair<Shape, Shape>>{
           {{2, 3}, {3, 2}}, {{2, 3}, {6}}, {{6}, {1, 2, 3}}, {{}, {1, 1}}}) {
    expect_vjp_matches(
        "reshape " + shape_text(from) + " -> " + shape_text(to), filled(from),
        [target = to](const TensorValue& p) { return p.reshape(target); },
        [target = to](const Tensor& p) { return p.view().reshape(target).materialize(); });
  }
}

TEST(TensorVjp, TransposeMatchesCentralDifferences) {
  struct Case {
    Shape shape;
    std::size_t a, b;
  };
  for (const Case& c :
       std::vector<Case>{{{2, 3}, 0, 1}, {{2, 3, 4}, 0, 2}, {{2, 3, 4}, 2, 1}, {{3, 2}, 1, 1}}) {
    expect_vjp_matches(
        "transpose " + shape_text(c.shape) + " " + std::to_string(c.a) + "," + std::to_string(c.b),
        filled(c.shape), [&](const TensorValue& p) { return p.transpose(c.a, c.b); },
        [&](const Tensor& p) { return p.view().transpose(c.a, c.b).materialize(); });
  }
}

TEST(TensorVjp, BroadcastToMatchesCentralDifferences) {
  for (const auto& [from, to] : std::vector<std::pair<Shape, Shape>>{{{3}, {2, 3}},
                                                                     {{2, 1}, {2, 3}},
                                                                     {{}, {2, 2}},
                                                                     {{2, 1, 2}, {2, 3, 2}},
                                                                     {{1, 4}, {3, 2, 4}}}) {
    expect_vjp_matches(
        "broadcast " + shape_text(from) + " -> " + shape_text(to), filled(from),
        [target = to](const TensorValue& p) { return p.broadcast_to(target); },
        [target = to](const Tensor& p) { return p.view().broadcast_to(target).materialize(); });
  }
}

TEST(TensorVjp, PermuteSliceAndMaterializeMatchCentralDifferences) {
  expect_vjp_matches(
      "permute [2, 3, 4] -> [4, 2, 3]", filled({2, 3, 4}),
      [](const TensorValue& p) {
        return p.permute({2, 0, 1});
      },
      [](const Tensor& p) {
        return p.view().permute({2, 0, 1}).materialize();
      });
  expect_vjp_matches(
      "slice rows 1..3 of [4, 3]", filled({4, 3}),
      [](const TensorValue& p) { return p.slice(0, 1, 3); },
      [](const Tensor& p) { return p.view().slice(0, 1, 3).materialize(); });
  expect_vjp_matches(
      "slice of a transpose, then materialize and reshape", filled({3, 4}),
      [](const TensorValue& p) {
        return p.transpose(0, 1).slice(1, 1, 3).materialize().reshape({8});
      },
      [](const Tensor& p) { return p.view().transpose(0, 1).slice(1, 1, 3).materialize(); });
}

TEST(TensorVjp, HeadsSplitAndMergedThroughViewsMatchCentralDifferences) {
  // [B, T, C] = [2, 3, 4] as 2 heads of width 2: split, scale per head, merge.
  const Tensor head_scale({2, 1, 1}, {1.5, -0.5});
  expect_vjp_matches(
      "split heads, mul, merge heads", filled({2, 3, 4}),
      [&](const TensorValue& p) {
        return p.reshape({2, 3, 2, 2})
            .transpose(1, 2)
            .mul(TensorValue::constant(head_scale))
            .transpose(1, 2)
            .materialize()
            .reshape({2, 3, 4});
      },
      [&](const Tensor& p) {
        const Tensor scaled = mul(p.view().reshape({2, 3, 2, 2}).transpose(1, 2), head_scale);
        return scaled.view().transpose(1, 2).materialize().view().reshape({2, 3, 4}).materialize();
      });
}

// Binary operations are checked through each operand slot in turn, with the
// other operand a constant of a possibly different (broadcasting) shape.
struct BinaryCase {
  Shape parameter;
  Shape other;
};

const std::vector<BinaryCase> kBinaryCases = {
    {{2, 3}, {2, 3}},  // equal shapes
    {{2, 3}, {3}},     // the other operand broadcasts
    {{3}, {2, 3}},     // this operand broadcasts: its VJP sums over rows
    {{3, 1}, {1, 4}},  // both operands broadcast
    {{4}, {}},         // a rank-0 constant
    {{}, {2, 2}},      // a rank-0 parameter against a matrix
};

TEST(TensorVjp, AddMatchesCentralDifferencesThroughBothSlots) {
  for (const BinaryCase& c : kBinaryCases) {
    const Tensor other = filled(c.other, 0.5);
    const std::string shapes = shape_text(c.parameter) + " and " + shape_text(c.other);
    expect_vjp_matches(
        "add left " + shapes, filled(c.parameter),
        [&](const TensorValue& p) { return p.add(TensorValue::constant(other)); },
        [&](const Tensor& p) { return add(p.view(), other.view()); });
    expect_vjp_matches(
        "add right " + shapes, filled(c.parameter),
        [&](const TensorValue& p) { return TensorValue::constant(other).add(p); },
        [&](const Tensor& p) { return add(other.view(), p.view()); });
  }
}

TEST(TensorVjp, MulMatchesCentralDifferencesThroughBothSlots) {
  for (const BinaryCase& c : kBinaryCases) {
    const Tensor other = filled(c.other, 0.5);
    const std::string shapes = shape_text(c.parameter) + " and " + shape_text(c.other);
    expect_vjp_matches(
        "mul left " + shapes, filled(c.parameter),
        [&](const TensorValue& p) { return p.mul(TensorValue::constant(other)); },
        [&](const Tensor& p) { return mul(p.view(), other.view()); });
    expect_vjp_matches(
        "mul right " + shapes, filled(c.parameter),
        [&](const TensorValue& p) { return TensorValue::constant(other).mul(p); },
        [&](const Tensor& p) { return mul(other.view(), p.view()); });
  }
}

TEST(TensorVjp, RankZeroConstantTimesVectorScalesTheGradient) {
  const TensorValue p = TensorValue::parameter(tensor({3}, {1, 2, 3}));
  TensorValue::constant(Tensor::scalar(10))
      .mul(p)
      .backward_with_seed(tensor({3}, {1, -2, 0.5}), Retention::Retain);
  EXPECT_EQ(testing::values_of(*p.gradient()), (std::vector<double>{10, -20, 5}));
}

TEST(TensorVjp, TensorUsedTwiceMatchesCentralDifferences) {
  expect_vjp_matches(
      "x * x", filled({2, 3}), [](const TensorValue& p) { return p.mul(p); },
      [](const Tensor& p) { return mul(p.view(), p.view()); });
  expect_vjp_matches(
      "x + x * x", filled({4}), [](const TensorValue& p) { return p.add(p.mul(p)); },
      [](const Tensor& p) { return add(p.view(), mul(p.view(), p.view()).view()); });
}

TEST(TensorVjp, TransposedOperandMatchesCentralDifferences) {
  const Tensor other = filled({3, 2}, 0.5);
  expect_vjp_matches(
      "transpose(x) * c", filled({2, 3}),
      [&](const TensorValue& p) { return p.transpose(0, 1).mul(TensorValue::constant(other)); },
      [&](const Tensor& p) { return mul(p.view().transpose(0, 1), other.view()); });
  expect_vjp_matches(
      "x * transpose(x) both broadcast", filled({3, 1}),
      [](const TensorValue& p) { return p.mul(p.transpose(0, 1)); },
      [](const Tensor& p) { return mul(p.view(), p.view().transpose(0, 1)); });
}

struct ReductionCase {
  Shape shape;
  std::size_t axis;
  KeepDim keep_dim;
};

const std::vector<ReductionCase> kReductionCases = {
    {{2, 3}, 0, KeepDim::No},  {{2, 3}, 0, KeepDim::Yes},    {{2, 3}, 1, KeepDim::No},
    {{2, 3}, 1, KeepDim::Yes}, {{2, 3, 4}, 1, KeepDim::Yes}, {{2, 3, 4}, 2, KeepDim::No},
    {{4}, 0, KeepDim::No},     {{4}, 0, KeepDim::Yes},
};

TEST(TensorVjp, SumAxisMatchesCentralDifferencesWithAndWithoutKeepDim) {
  for (const ReductionCase& c : kReductionCases) {
    expect_vjp_matches(
        "sum_axis " + shape_text(c.shape) + " axis " + std::to_string(c.axis) +
            (c.keep_dim == KeepDim::Yes ? " keep" : " drop"),
        filled(c.shape), [&](const TensorValue& p) { return p.sum_axis(c.axis, c.keep_dim); },
        [&](const Tensor& p) { return sum_axis(p.view(), c.axis, c.keep_dim); });
  }
}

TEST(TensorVjp, MeanAxisMatchesCentralDifferencesWithAndWithoutKeepDim) {
  for (const ReductionCase& c : kReductionCases) {
    expect_vjp_matches(
        "mean_axis " + shape_text(c.shape) + " axis " + std::to_string(c.axis) +
            (c.keep_dim == KeepDim::Yes ? " keep" : " drop"),
        filled(c.shape), [&](const TensorValue& p) { return p.mean_axis(c.axis, c.keep_dim); },
        [&](const Tensor& p) { return mean_axis(p.view(), c.axis, c.keep_dim); });
  }
}

TEST(TensorVjp, WorkedChainMatchesCentralDifferencesForBothParameters) {
  const Tensor bias = tensor({3}, {1, -1, 0});
  const Tensor x = tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  const auto chain = [](const Tensor& x_value, const Tensor& bias_value) {
    const Tensor t = x_value.view().reshape({3, 2}).transpose(0, 1).materialize();
    const Tensor sum = add(t.view(), bias_value.view().broadcast_to({2, 3}));
    return mean_axis(mul(sum.view(), sum.view()), 1, KeepDim::No);
  };
  const auto on_tape = [](const TensorValue& x_node, const TensorValue& bias_node) {
    const TensorValue sum =
        x_node.reshape({3, 2}).transpose(0, 1).add(bias_node.broadcast_to({2, 3}));
    return sum.mul(sum).mean_axis(1, KeepDim::No);
  };
  expect_vjp_matches(
      "worked chain x", x,
      [&](const TensorValue& p) { return on_tape(p, TensorValue::constant(bias)); },
      [&](const Tensor& p) { return chain(p, bias); });
  expect_vjp_matches(
      "worked chain bias", bias,
      [&](const TensorValue& p) { return on_tape(TensorValue::constant(x), p); },
      [&](const Tensor& p) { return chain(x, p); });
}

}  // namespace
}  // namespace llm
