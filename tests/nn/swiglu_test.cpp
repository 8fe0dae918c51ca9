// The SwiGLU block: chapter 20's worked forward values and gradients, every
// leading shape, position independence, assembly errors, initialization, and
// gradient checks of input and all three weights at several shapes.
#include "llm/nn/swiglu.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "nn/nn_test_support.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::bits_of;
using testing::capture_error;
using testing::values_of;

Linear weight_only(Shape shape, std::vector<double> values) {
  return Linear(TensorValue::parameter(Tensor(std::move(shape), std::move(values))), std::nullopt);
}

SwiGlu known_block() {
  return SwiGlu(weight_only({2, 3}, {-1, 0, 1, 0, 1, -1}), weight_only({2, 3}, {1, 2, 3, 3, 2, 1}),
                weight_only({3, 2}, {1, 0, 0, 1, 1, -1}));
}

void expect_near_all(const std::vector<double>& actual, const std::vector<double>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], 1e-12) << "element " << i;
}

TEST(SwiGlu, ComputesTheChapterForwardPass) {
  const SwiGlu block = known_block();
  EXPECT_EQ(block.parameter_count(), 18u);
  const SwiGluPass pass =
      block.forward_with_intermediates(TensorValue::constant(Tensor({2, 2}, {1, 0, 0, 1})));
  EXPECT_EQ(values_of(pass.gate_preactivation.value()), (std::vector<double>{-1, 0, 1, 0, 1, -1}));
  const double silu_one =
      1.0 / (1.0 + std::exp(-1.0));  // SiLU(1) = sigmoid(1), SiLU(-1) = -sigmoid(-1)
  expect_near_all(values_of(pass.gate.value()),
                  {-(1 - silu_one), 0, silu_one, 0, silu_one, -(1 - silu_one)});
  EXPECT_EQ(values_of(pass.up.value()), (std::vector<double>{1, 2, 3, 3, 2, 1}));
  expect_near_all(values_of(pass.output.value()),
                  {1.924234314520, -2.193175735890, -0.268941421370, 1.731058578630});
}

TEST(SwiGlu, BackpropagatesToTheInputAndEveryWeight) {
  const SwiGlu block = known_block();
  const TensorValue input = TensorValue::parameter(Tensor({2, 2}, {1, 0, 0, 1}));
  block.forward(input).backward_with_seed(Tensor({2, 2}, {1, 0, 0, 1}), Retention::Retain);
  expect_near_all(values_of(*input.gradient()),
                  {4.634916362006, -2.858777221094, 2.196611933241, 3.658729090501});
  expect_near_all(values_of(*block.gate().weight().gradient()),
                  {0.072329488129, 0, 2.783011535614, 0, 1.855341023743, -0.072329488129});
  expect_near_all(values_of(*block.up().weight().gradient()),
                  {-0.268941421370, 0, 0.731058578630, 0, 0.731058578630, 0.268941421370});
  expect_near_all(values_of(*block.down().weight().gradient()),
                  {-0.268941421370, 0, 0, 1.462117157260, 2.193175735890, -0.268941421370});
}

TEST(SwiGlu, KeepsEveryLeadingAxisAndEachPositionToItself) {
  const SwiGlu block = known_block();
  EXPECT_EQ(block.forward(TensorValue::constant(Tensor({2}, {1, 0}))).shape(), (Shape{2}));
  EXPECT_EQ(block.forward(TensorValue::constant(Tensor({1, 2, 2}, {1, 0, 0, 1}))).shape(),
            (Shape{1, 2, 2}));
  EXPECT_EQ(block.forward(TensorValue::constant(Tensor({0, 2}, {}))).shape(), (Shape{0, 2}));
  const auto before =
      values_of(block.forward(TensorValue::constant(Tensor({2, 2}, {1, 0, 0, 1}))).value());
  const auto after =
      values_of(block.forward(TensorValue::constant(Tensor({2, 2}, {0, 0, 0, 1}))).value());
  EXPECT_NE(before[0], after[0]);  // the changed position moves
  EXPECT_EQ(bits_of(Tensor({2}, {before[2], before[3]})),
            bits_of(Tensor({2}, {after[2], after[3]})));
}

TEST(SwiGlu, RejectsBiasesMismatchedWidthsAndUnreadableInputs) {
  const auto with_bias = Linear(TensorValue::parameter(Tensor({2, 3}, {0, 0, 0, 0, 0, 0})),
                                TensorValue::parameter(Tensor({3}, {0, 0, 0})));
  EXPECT_EQ(capture_error<SwiGluError>([&] {
              SwiGlu(with_bias, weight_only({2, 3}, std::vector<double>(6)),
                     weight_only({3, 2}, std::vector<double>(6)));
            })->kind(),
            SwiGluErrorKind::BiasNotAllowed);
  EXPECT_EQ(capture_error<SwiGluError>([] {
              SwiGlu(weight_only({2, 3}, std::vector<double>(6)),
                     weight_only({3, 3}, std::vector<double>(9)),
                     weight_only({3, 2}, std::vector<double>(6)));
            })->kind(),
            SwiGluErrorKind::InputWidthMismatch);
  EXPECT_EQ(capture_error<SwiGluError>([] {
              SwiGlu(weight_only({2, 3}, std::vector<double>(6)),
                     weight_only({2, 4}, std::vector<double>(8)),
                     weight_only({3, 2}, std::vector<double>(6)));
            })->kind(),
            SwiGluErrorKind::HiddenWidthMismatch);
  EXPECT_EQ(capture_error<SwiGluError>([] {
              SwiGlu(weight_only({2, 3}, std::vector<double>(6)),
                     weight_only({2, 3}, std::vector<double>(6)),
                     weight_only({4, 2}, std::vector<double>(8)));
            })->kind(),
            SwiGluErrorKind::DownWidthMismatch);
  const SwiGlu block = known_block();
  EXPECT_EQ(capture_error<LayerError>([&] {
              block.forward(TensorValue::constant(Tensor::scalar(1.0)));
            })->kind(),
            LayerErrorKind::InputRank);
  EXPECT_EQ(capture_error<LayerError>([&] {
              block.forward(TensorValue::constant(Tensor({1, 3}, {0, 0, 0})));
            })->kind(),
            LayerErrorKind::InputWidthMismatch);
}

TEST(SwiGlu, InitializedBlocksReproduceAndCopiesShareWeights) {
  SplitMix64 first(20);
  SplitMix64 second(20);
  const SwiGlu a = SwiGlu::initialized(2, 3, 2, first);
  const SwiGlu b = SwiGlu::initialized(2, 3, 2, second);
  EXPECT_EQ(first.state(), second.state());
  const ParameterSet pa = a.parameters();
  const ParameterSet pb = b.parameters();
  ASSERT_EQ(pa.size(), 3u);
  EXPECT_EQ(pa[0].name, "gate.weight");
  EXPECT_EQ(pa[2].name, "down.weight");
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_EQ(bits_of(pa[i].parameter.value()), bits_of(pb[i].parameter.value()));
  const SwiGlu copy = a;
  EXPECT_TRUE(copy.gate().weight().is_same_node(a.gate().weight()));
  // The gate, up and down weights are three consecutive draws, so they differ.
  EXPECT_NE(bits_of(pa[0].parameter.value()), bits_of(pa[1].parameter.value()));
  SplitMix64 untouched(5);
  EXPECT_THROW(SwiGlu::initialized(2, 0, 2, untouched), LayerError);
  EXPECT_EQ(untouched.state(), 5u);
}

TEST(SwiGlu, GradientsMatchCentralDifferencesAtSeveralShapes) {
  const std::vector<Shape> shapes = {Shape{3}, Shape{4, 3}, Shape{2, 3, 3}};
  for (const Shape& shape : shapes) {
    SplitMix64 generator(23);
    const SwiGlu block = SwiGlu::initialized(3, 4, 2, generator);
    const Tensor drawn = xavier_uniform(element_count(shape), 1, generator);
    const TensorValue input =
        TensorValue::parameter(Tensor(shape, {drawn.values().begin(), drawn.values().end()}));
    ParameterSet model;
    model.add("input", input);
    model.add_all("ffn", block.parameters());
    testing::expect_parameters_gradchecked(
        shape_text(shape), model, {"input", "ffn.gate.weight", "ffn.up.weight", "ffn.down.weight"},
        [&] { return testing::smooth_loss(block.forward(input)); });
  }
}

}  // namespace
}  // namespace llm
