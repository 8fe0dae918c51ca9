// The pre-norm decoder block against chapter 31's expected.txt (its shapes,
// parameter names and count, residual order, causality, gradient check) and
// its configuration, initialization order and refusals.
#include "llm/models/decoder_block.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "nn/nn_test_support.hpp"
#include "support/printed.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::bits_of;
using testing::capture_error;
using testing::printed_shape;

const std::vector<double> kIdentity{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
const std::vector<double> kInput{2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0};

Linear identity() {
  return Linear(TensorValue::parameter(Tensor({4, 4}, kIdentity)), std::nullopt);
}

RmsNorm unit_norm() {
  return RmsNorm(TensorValue::parameter(Tensor({4}, {1, 1, 1, 1})), 0.0);
}

// Chapter 31's fixture: unit gains, epsilon 0, identity projections, 2 heads,
// 6 positions, RoPE base 100.
DecoderBlock chapter_31_block() {
  return DecoderBlock(unit_norm(),
                      MultiHeadAttention(QkvProjections(identity(), identity(), identity()),
                                         identity(), 2, RotaryTable(2, 6, 100.0)),
                      unit_norm(), SwiGlu(identity(), identity(), identity()));
}

TEST(DecoderBlock, ReproducesChapter31sShapesNamesAndCounts) {
  const DecoderBlock block = chapter_31_block();
  const DecoderBlockPass pass =
      block.forward_with_intermediates(TensorValue::constant(Tensor({1, 3, 4}, kInput)));
  EXPECT_EQ(printed_shape(pass.attention_norm.shape()), "[1,3,4]");
  EXPECT_EQ(printed_shape(pass.attention.attention.weights.shape()), "[1,2,3,3]");
  EXPECT_EQ(printed_shape(pass.attention.output.shape()), "[1,3,4]");
  EXPECT_EQ(printed_shape(pass.after_attention.shape()), "[1,3,4]");
  EXPECT_EQ(printed_shape(pass.feed_forward_norm.shape()), "[1,3,4]");
  EXPECT_EQ(printed_shape(pass.feed_forward.output.shape()), "[1,3,4]");
  EXPECT_EQ(printed_shape(pass.output.shape()), "[1,3,4]");
  ParameterSet set;
  set.add_all("decoder.block.0", block.parameters());
  std::vector<std::string> names;
  for (const NamedParameter& entry : set) names.push_back(entry.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{
                "decoder.block.0.attention_norm.gain", "decoder.block.0.attention.query.weight",
                "decoder.block.0.attention.key.weight", "decoder.block.0.attention.value.weight",
                "decoder.block.0.attention.output.weight", "decoder.block.0.ffn_norm.gain",
                "decoder.block.0.ffn.gate.weight", "decoder.block.0.ffn.up.weight",
                "decoder.block.0.ffn.down.weight"}));
  EXPECT_EQ(block.parameter_count(), 120u);
}

TEST(DecoderBlock, AddsEachBranchToTheStreamExactlyAndStaysCausal) {
  const DecoderBlock block = chapter_31_block();
  const DecoderBlockPass pass =
      block.forward_with_intermediates(TensorValue::constant(Tensor({1, 3, 4}, kInput)));
  const Tensor input({1, 3, 4}, kInput);
  const Tensor attention = pass.attention.output.value().materialize();
  const Tensor after = pass.after_attention.value().materialize();
  const Tensor feed_forward = pass.feed_forward.output.value().materialize();
  const Tensor output = pass.output.value().materialize();
  for (std::size_t i = 0; i < output.size(); ++i) {
    EXPECT_EQ(input.values()[i] + attention.values()[i], after.values()[i]);
    EXPECT_EQ(after.values()[i] + feed_forward.values()[i], output.values()[i]);
  }
  const Tensor weights = pass.attention.attention.weights.value().materialize();
  for (std::size_t head = 0; head < 2; ++head) {
    for (std::size_t query = 0; query < 3; ++query) {
      for (std::size_t key = query + 1; key < 3; ++key) {
        EXPECT_EQ(weights.values()[(head * 3 + query) * 3 + key], 0.0);
      }
    }
  }
  std::vector<double> perturbed = kInput;
  perturbed[8] = 1;
  perturbed[9] = -1;
  perturbed[10] = 1;
  perturbed[11] = 1;
  const SharedTensor base = pass.output.value();
  const SharedTensor changed =
      block.forward(TensorValue::constant(Tensor({1, 3, 4}, perturbed))).value();
  EXPECT_EQ(bits_of(base.slice(1, 0, 2)), bits_of(changed.slice(1, 0, 2)));
  EXPECT_NE(bits_of(base.slice(1, 2, 3)), bits_of(changed.slice(1, 2, 3)));
}

TEST(DecoderBlock, EveryParameterAndTheInputPassTheSampledGradientCheck) {
  const DecoderBlock block = chapter_31_block();
  const TensorValue input = TensorValue::parameter(Tensor({1, 3, 4}, kInput));
  ParameterSet set = block.parameters();
  set.add("input", input);
  std::vector<std::string> names;
  for (const NamedParameter& entry : set) names.push_back(entry.name);
  testing::expect_parameters_gradchecked(
      "decoder block", set, names, [&] { return testing::smooth_loss(block.forward(input)); });
}

TEST(DecoderBlock, InitializesAttentionThenFeedForwardFromOneStream) {
  const DecoderBlockConfig config{.model_width = 4,
                                  .heads = 2,
                                  .feed_forward_width = 6,
                                  .context = 8,
                                  .rope_base = 100.0,
                                  .epsilon = 1e-6};
  SplitMix64 generator(31);
  SplitMix64 replay(31);
  const DecoderBlock block = DecoderBlock::initialized(config, generator);
  const std::vector<std::pair<const Linear*, std::pair<std::size_t, std::size_t>>> order = {
      {&block.attention().projections().query(), {4, 4}},
      {&block.attention().projections().key(), {4, 4}},
      {&block.attention().projections().value(), {4, 4}},
      {&block.attention().output(), {4, 4}},
      {&block.feed_forward().gate(), {4, 6}},
      {&block.feed_forward().up(), {4, 6}},
      {&block.feed_forward().down(), {6, 4}}};
  for (const auto& [layer, fans] : order) {
    EXPECT_EQ(bits_of(layer->weight().value()),
              bits_of(xavier_uniform(fans.first, fans.second, replay)));
  }
  EXPECT_EQ(generator.state(), replay.state());
  EXPECT_EQ(testing::values_of(block.attention_norm().gain().value()),
            (std::vector<double>{1, 1, 1, 1}));
  EXPECT_EQ(block.attention().context(), 8u);
}

TEST(DecoderBlock, ValidatesItsConfigurationInOrder) {
  auto kind_of = [](DecoderBlockConfig config) {
    return capture_error<DecoderError>([&] { config.validate(); })->kind();
  };
  const DecoderBlockConfig good{.model_width = 4,
                                .heads = 2,
                                .feed_forward_width = 4,
                                .context = 6,
                                .rope_base = 100.0,
                                .epsilon = 0.0};
  EXPECT_NO_THROW(good.validate());
  DecoderBlockConfig bad = good;
  bad.model_width = 0;
  EXPECT_EQ(kind_of(bad), DecoderErrorKind::ZeroModelWidth);
  bad = good;
  bad.heads = 0;
  EXPECT_EQ(kind_of(bad), DecoderErrorKind::ZeroHeads);
  bad = good;
  bad.heads = 3;
  EXPECT_EQ(kind_of(bad), DecoderErrorKind::WidthNotDivisible);
  bad = good;
  bad.heads = 4;
  EXPECT_EQ(kind_of(bad), DecoderErrorKind::OddHeadWidth);
  bad = good;
  bad.feed_forward_width = 0;
  EXPECT_EQ(kind_of(bad), DecoderErrorKind::ZeroFeedForwardWidth);
  bad = good;
  bad.context = 0;
  EXPECT_EQ(kind_of(bad), DecoderErrorKind::ZeroContext);
  bad = good;
  bad.rope_base = -1.0;
  EXPECT_EQ(kind_of(bad), DecoderErrorKind::InvalidRopeBase);
  bad = good;
  bad.epsilon = std::numeric_limits<double>::infinity();
  EXPECT_EQ(kind_of(bad), DecoderErrorKind::InvalidEpsilon);
}

TEST(DecoderBlock, RefusesMismatchedPartsAndUnreadableInputs) {
  const auto mismatch = capture_error<DecoderError>([] {
    DecoderBlock(unit_norm(),
                 MultiHeadAttention(QkvProjections(identity(), identity(), identity()), identity(),
                                    2, RotaryTable(2, 6, 100.0)),
                 RmsNorm(TensorValue::parameter(Tensor({3}, {1, 1, 1})), 0.0),
                 SwiGlu(identity(), identity(), identity()));
  });
  EXPECT_EQ(mismatch->kind(), DecoderErrorKind::ComponentMismatch);
  EXPECT_STREQ(mismatch->what(), "the feed-forward norm's width must be 4, got 3");
  const DecoderBlock block = chapter_31_block();
  auto kind_of = [](auto call) { return capture_error<DecoderError>(call)->kind(); };
  EXPECT_EQ(kind_of([&] {
              block.forward(TensorValue::constant(Tensor::zeros({3, 4})));
            }),
            DecoderErrorKind::InputRank);
  EXPECT_EQ(kind_of([&] {
              block.forward(TensorValue::constant(Tensor::zeros({1, 3, 3})));
            }),
            DecoderErrorKind::InputWidthMismatch);
  EXPECT_EQ(capture_error<AttentionError>([&] {
              block.forward(TensorValue::constant(Tensor({1, 3, 4}, kInput)), 4);
            })->kind(),
            AttentionErrorKind::PositionRange);
}

}  // namespace
}  // namespace llm
