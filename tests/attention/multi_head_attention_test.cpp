// Head split and merge, and causal multi-head attention with RoPE against
// chapter 30's expected.txt: every intermediate, the output, the loss and
// all five gradients; per-head isolation, prefix invariance, the offset
// invariance of the weights, the shapes, initialization, the seams a
// key/value cache uses, and the refusals.
#include "llm/attention/multi_head_attention.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "llm/attention/heads.hpp"
#include "nn/nn_test_support.hpp"
#include "support/printed.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::bits_of;
using testing::capture_error;
using testing::printed;
using testing::printed_shape;
using testing::total;

const std::vector<double> kIdentity{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
// Merged coordinates 0, 1 go to outputs 2, 3 and 2, 3 to 0, 1: the heads swap places.
const std::vector<double> kBlockSwap{0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0};
const std::vector<double> kUpstream{1.0, -0.5, 0.25, 0.75, -0.3, 0.8,
                                    1.2, -0.4, 0.6,  0.1,  -0.7, 0.9};

std::vector<double> chapter_30_input() {
  return {1, 0, 1, 0, std::cos(1.0), -std::sin(1.0), 0, 1, std::cos(2.0), -std::sin(2.0), 1, 1};
}

Linear square(const std::vector<double>& values) {
  return Linear(TensorValue::parameter(Tensor({4, 4}, values)), std::nullopt);
}

MultiHeadAttention chapter_30_layer() {
  return MultiHeadAttention(QkvProjections(square(kIdentity), square(kIdentity), square(kIdentity)),
                            square(kBlockSwap), 2, RotaryTable(2, 6, 100.0));
}

TEST(Heads, SplitAndMergeAreLayoutChangesThatRoundTripBitForBit) {
  const Tensor input({1, 3, 4}, chapter_30_input());
  const TensorValue source = TensorValue::constant(input);
  const TensorValue heads = split_heads(source, 2);
  EXPECT_EQ(printed_shape(heads.shape()), "[1,2,3,2]");
  EXPECT_TRUE(heads.value().shares_storage_with(source.value()));  // a layout, not a copy
  EXPECT_EQ(printed(heads.value()),
            "[1.000000,0.000000,0.540302,-0.841471,-0.416147,-0.909297,"
            "1.000000,0.000000,0.000000,1.000000,1.000000,1.000000]");
  EXPECT_EQ(bits_of(merge_heads(heads).value()), bits_of(input));
  EXPECT_EQ(
      capture_error<AttentionError>([&] { split_heads(TensorValue::constant(input), 3); })->kind(),
      AttentionErrorKind::WidthNotDivisible);
  EXPECT_EQ(
      capture_error<AttentionError>([&] { split_heads(TensorValue::constant(input), 0); })->kind(),
      AttentionErrorKind::ZeroHeads);
  EXPECT_EQ(
      capture_error<AttentionError>([&] { merge_heads(TensorValue::constant(input)); })->kind(),
      AttentionErrorKind::MergeRank);
}

TEST(MultiHeadAttention, ReproducesChapter30sIntermediatesAndOutput) {
  const MultiHeadAttention layer = chapter_30_layer();
  const TensorValue input = TensorValue::parameter(Tensor({1, 3, 4}, chapter_30_input()));
  const MultiHeadAttentionPass pass = layer.forward_with_intermediates(input, 0);
  const std::string projected =
      "[1.000000,0.000000,0.540302,-0.841471,-0.416147,-0.909297,"
      "1.000000,0.000000,0.000000,1.000000,1.000000,1.000000]";
  EXPECT_EQ(printed(pass.query_heads.value()), projected);
  EXPECT_EQ(printed(pass.key_heads.value()), projected);
  EXPECT_EQ(printed(pass.value_heads.value()), projected);
  const std::string rotated =
      "[1.000000,0.000000,1.000000,0.000000,1.000000,0.000000,"
      "1.000000,0.000000,-0.841471,0.540302,-1.325444,0.493151]";
  EXPECT_EQ(printed(pass.rotated_query_heads.value()), rotated);
  EXPECT_EQ(printed(pass.rotated_key_heads.value()), rotated);
  EXPECT_EQ(printed(pass.attention.weights.value()),
            "[1.000000,0.000000,0.000000,0.500000,0.500000,0.000000,0.333333,0.333333,0.333333,"
            "1.000000,0.000000,0.000000,0.213809,0.786191,0.000000,0.054696,0.370956,0.574348]");
  EXPECT_EQ(printed(pass.attention.output.value()),
            "[1.000000,0.000000,0.770151,-0.420735,0.374718,-0.583589,"
            "1.000000,0.000000,0.213809,0.786191,0.629044,0.945304]");
  EXPECT_EQ(printed(pass.merged.value()),
            "[1.000000,0.000000,1.000000,0.000000,0.770151,-0.420735,0.213809,0.786191,"
            "0.374718,-0.583589,0.629044,0.945304]");
  EXPECT_EQ(printed(pass.output.value()),
            "[1.000000,0.000000,1.000000,0.000000,0.213809,0.786191,0.770151,-0.420735,"
            "0.629044,0.945304,0.374718,-0.583589]");
  EXPECT_EQ(bits_of(layer.forward(input, 0).value()), bits_of(pass.output.value()));
  EXPECT_EQ(printed_shape(pass.attention.weights.shape()), "[1,2,3,3]");
}

TEST(MultiHeadAttention, ReproducesChapter30sLossAndGradients) {
  const MultiHeadAttention layer = chapter_30_layer();
  const TensorValue input = TensorValue::parameter(Tensor({1, 3, 4}, chapter_30_input()));
  const TensorValue loss =
      total(layer.forward(input, 0).mul(TensorValue::constant(Tensor({1, 3, 4}, kUpstream))));
  EXPECT_EQ(format_fixed(loss.item(), 6), "2.591709");
  loss.backward();
  // Chapter 30 prints residues below 0.5e-6 as 0 (printed_canonical): head 0's
  // query gradient is exactly 0 in real arithmetic and about 1e-17 here, as in
  // the reference edition, bit for bit.
  const auto gradient = [](const TensorValue& x) {
    return testing::printed_canonical(SharedTensor::copy_of(*x.gradient()));
  };
  EXPECT_EQ(gradient(input),
            "[0.675314,0.850000,1.072131,-0.391684,0.301809,0.201011,-0.054543,0.902748,"
            "-0.258882,0.244175,0.445677,0.185445]");
  EXPECT_EQ(gradient(layer.projections().query().weight()),
            "[0.000000,0.000000,-0.041687,0.115357,0.000000,0.000000,0.051757,-0.234784,"
            "0.000000,0.000000,0.008454,0.035396,0.000000,0.000000,-0.062189,0.276163]");
  EXPECT_EQ(gradient(layer.projections().key().weight()),
            "[0.034236,0.077807,0.080791,-0.108939,0.077807,-0.034236,-0.108939,-0.080791,"
            "0.033099,-0.055825,0.196070,0.024413,-0.090407,0.045186,0.121998,0.088547]");
  EXPECT_EQ(gradient(layer.projections().value().weight()),
            "[0.911878,0.779186,0.818090,0.012483,-0.096370,-0.356936,-0.302174,-0.612686,"
            "0.383333,1.150000,1.313284,-0.266048,0.133333,0.400000,0.331325,0.723483]");
  EXPECT_EQ(gradient(layer.output().weight()),
            "[0.993786,0.153593,0.911878,0.779186,-0.223933,-0.394947,-0.096370,-0.356936,"
            "1.313284,-0.266048,0.066240,1.230616,0.331325,0.723483,0.281716,0.536297]");
}

TEST(MultiHeadAttention, ReproducesChapter30sInvariances) {
  const MultiHeadAttention layer = chapter_30_layer();
  const auto pass_of = [&](std::vector<double> values, std::size_t offset) {
    return layer.forward_with_intermediates(
        TensorValue::constant(Tensor({1, 3, 4}, std::move(values))), offset);
  };
  const MultiHeadAttentionPass base = pass_of(chapter_30_input(), 0);
  // The same tokens three positions later: the weights depend on differences only.
  const Tensor shifted = pass_of(chapter_30_input(), 3).attention.weights.value().materialize();
  const Tensor weights = base.attention.weights.value().materialize();
  for (std::size_t i = 0; i < weights.size(); ++i) {
    EXPECT_NEAR(weights.values()[i], shifted.values()[i], 1e-12);
  }
  // Changing the last token leaves the first two outputs' bits alone.
  std::vector<double> suffix = chapter_30_input();
  suffix[8] = 3;
  suffix[9] = -2;
  suffix[10] = -1;
  suffix[11] = 4;
  const SharedTensor changed = pass_of(suffix, 0).output.value();
  EXPECT_EQ(printed(changed),
            "[1.000000,0.000000,1.000000,0.000000,0.213809,0.786191,0.770151,-0.420735,"
            "-0.999983,3.999952,2.999321,-1.999519]");
  const SharedTensor output = base.output.value();
  EXPECT_EQ(bits_of(changed.slice(1, 0, 2)), bits_of(output.slice(1, 0, 2)));
  // Changing a head-0 feature changes head 0's outputs only, before W_O mixes them.
  std::vector<double> isolated = chapter_30_input();
  isolated[0] += 0.25;
  const SharedTensor heads = base.attention.output.value();
  const SharedTensor isolated_heads = pass_of(isolated, 0).attention.output.value();
  EXPECT_NE(bits_of(heads.slice(1, 0, 1)), bits_of(isolated_heads.slice(1, 0, 1)));
  EXPECT_EQ(bits_of(heads.slice(1, 1, 2)), bits_of(isolated_heads.slice(1, 1, 2)));
}

TEST(MultiHeadAttention, TheCacheSeamsComposeToTheSameLastRow) {
  const MultiHeadAttention layer = chapter_30_layer();
  const Tensor input({1, 3, 4}, chapter_30_input());
  const SharedTensor full = layer.forward(TensorValue::constant(input), 0).value();
  // Keys and values of all three tokens; the query of the last one only, at position 2.
  const HeadProjections all = layer.project_heads(TensorValue::constant(input), 0);
  const HeadProjections last =
      layer.project_heads(TensorValue::constant(input.view().slice(1, 2, 3).materialize()), 2);
  EXPECT_EQ(bits_of(last.key.value()), bits_of(all.key.value().slice(2, 2, 3)));
  const AttentionPass attended =
      scaled_dot_product_attention(last.query, all.key, all.value, Masking::Causal);
  EXPECT_EQ(bits_of(layer.combine_heads(attended.output).value()), bits_of(full.slice(1, 2, 3)));
}

TEST(MultiHeadAttention, NamesFourBiasFreeWeightsAndHandlesEmptyAndSingleInputs) {
  const MultiHeadAttention layer = chapter_30_layer();
  ParameterSet set;
  set.add_all("attention", layer.parameters());
  std::vector<std::string> names;
  for (const NamedParameter& entry : set) names.push_back(entry.name);
  EXPECT_EQ(names, (std::vector<std::string>{"attention.query.weight", "attention.key.weight",
                                             "attention.value.weight", "attention.output.weight"}));
  EXPECT_EQ(layer.parameter_count(), 64u);
  const MultiHeadAttentionPass empty =
      layer.forward_with_intermediates(TensorValue::constant(Tensor::zeros({0, 3, 4})), 0);
  EXPECT_EQ(printed_shape(empty.attention.weights.shape()), "[0,2,3,3]");
  EXPECT_EQ(printed_shape(empty.output.shape()), "[0,3,4]");
  const MultiHeadAttentionPass single =
      layer.forward_with_intermediates(TensorValue::constant(Tensor({1, 1, 4}, {1, 2, 3, 4})), 2);
  EXPECT_EQ(printed_shape(single.attention.weights.shape()), "[1,2,1,1]");
}

TEST(MultiHeadAttention, InitializesQueryKeyValueOutputInOrderAndOnlyOnSuccess) {
  SplitMix64 generator(30);
  SplitMix64 replay(30);
  const MultiHeadAttention layer = MultiHeadAttention::initialized(4, 2, 6, 100.0, generator);
  for (const Linear* projection : {&layer.projections().query(), &layer.projections().key(),
                                   &layer.projections().value(), &layer.output()}) {
    EXPECT_EQ(bits_of(projection->weight().value()), bits_of(xavier_uniform(4, 4, replay)));
  }
  EXPECT_EQ(generator.state(), replay.state());
  auto kind_of = [](auto call) { return capture_error<AttentionError>(call)->kind(); };
  SplitMix64 untouched(5);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(kind_of([&] { MultiHeadAttention::initialized(0, 0, 0, nan, untouched); }),
            AttentionErrorKind::ZeroModelWidth);
  EXPECT_EQ(kind_of([&] { MultiHeadAttention::initialized(4, 0, 0, nan, untouched); }),
            AttentionErrorKind::ZeroHeads);
  EXPECT_EQ(kind_of([&] { MultiHeadAttention::initialized(6, 4, 0, nan, untouched); }),
            AttentionErrorKind::WidthNotDivisible);
  EXPECT_EQ(kind_of([&] { MultiHeadAttention::initialized(4, 4, 0, nan, untouched); }),
            AttentionErrorKind::OddHeadWidth);
  EXPECT_THROW(MultiHeadAttention::initialized(4, 2, 0, 100.0, untouched), DecoderOpError);
  EXPECT_EQ(untouched.state(), SplitMix64(5).state());
}

TEST(MultiHeadAttention, RefusesBadPartsAndBadInputs) {
  auto kind_of = [](auto call) { return capture_error<AttentionError>(call)->kind(); };
  const auto qkv = [] {
    return QkvProjections(square(kIdentity), square(kIdentity), square(kIdentity));
  };
  EXPECT_EQ(
      kind_of([&] { MultiHeadAttention(qkv(), square(kIdentity), 2, RotaryTable(4, 6, 100.0)); }),
      AttentionErrorKind::RotaryWidthMismatch);
  EXPECT_EQ(kind_of([&] {
              MultiHeadAttention(
                  qkv(), Linear(TensorValue::parameter(Tensor::zeros({4, 2})), std::nullopt), 2,
                  RotaryTable(2, 6, 100.0));
            }),
            AttentionErrorKind::OutputProjectionShape);
  const MultiHeadAttention layer = chapter_30_layer();
  EXPECT_EQ(kind_of([&] {
              layer.forward(TensorValue::constant(Tensor::zeros({3, 4})), 0);
            }),
            AttentionErrorKind::InputRank);
  EXPECT_EQ(kind_of([&] {
              layer.forward(TensorValue::constant(Tensor::zeros({1, 3, 2})), 0);
            }),
            AttentionErrorKind::InputWidthMismatch);
  EXPECT_EQ(kind_of([&] {
              layer.forward(TensorValue::constant(Tensor::zeros({1, 0, 4})), 0);
            }),
            AttentionErrorKind::EmptyKeys);
  const auto range = capture_error<AttentionError>([&] {
    layer.forward(TensorValue::constant(Tensor::zeros({1, 3, 4})), 4);
  });
  EXPECT_EQ(range->kind(), AttentionErrorKind::PositionRange);
  EXPECT_STREQ(range->what(),
               "positions from 4 for 3 tokens exceed the 6 positions the rotary table holds");
  EXPECT_EQ(kind_of([&] {
              layer.forward(TensorValue::constant(Tensor::zeros({1, 3, 4})),
                            std::numeric_limits<std::size_t>::max());
            }),
            AttentionErrorKind::PositionRange);
}

TEST(MultiHeadAttention, EveryWeightAndTheInputPassTheSampledGradientCheck) {
  SplitMix64 generator(7);
  const MultiHeadAttention layer = MultiHeadAttention::initialized(4, 2, 5, 100.0, generator);
  const TensorValue input = TensorValue::parameter(testing::loss_weights({2, 3, 4}));
  ParameterSet set = layer.parameters();
  set.add("input", input);
  testing::expect_parameters_gradchecked(
      "multi-head attention", set,
      {"query.weight", "key.weight", "value.weight", "output.weight", "input"},
      [&] { return testing::smooth_loss(layer.forward(input, 1)); });
}

}  // namespace
}  // namespace llm
