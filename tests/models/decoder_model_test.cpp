// The decoder model against chapter 32's expected.txt (seed 32: token 1's
// logits, the mean loss, the predictions, the parameter counts, tying,
// causality, the zero-layer gradient probe), a sampled gradient check of
// every parameter tensor of the whole model, and its refusals.
#include "llm/models/decoder_model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "llm/autograd/model_ops.hpp"
#include "llm/nn/parameter_gradcheck.hpp"
#include "support/printed.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::bits_of;
using testing::capture_error;
using testing::printed;
using testing::printed_shape;

// Chapter 32's configuration.
DecoderConfig chapter_32_config(std::size_t layers, HeadTying head = HeadTying::Tied) {
  return {.vocabulary_size = 5,
          .layers = layers,
          .block = {.model_width = 4,
                    .heads = 2,
                    .feed_forward_width = 4,
                    .context = 4,
                    .rope_base = 10000.0,
                    .epsilon = 1e-6},
          .head = head};
}

DecoderModel chapter_32_model(std::size_t layers = 2, HeadTying head = HeadTying::Tied) {
  SplitMix64 generator(32);
  return DecoderModel::initialized(chapter_32_config(layers, head), generator);
}

const std::vector<TokenId> kTokens{0, 1, 2};
const std::vector<TokenId> kTargets{1, 2, 3};

TEST(DecoderModel, ReproducesChapter32sLogitsLossAndPredictions) {
  const DecoderModel model = chapter_32_model();
  const DecoderPass pass = model.forward_with_intermediates(kTokens, {1, 3});
  EXPECT_EQ(printed_shape(pass.embedding.shape()), "[1,3,4]");
  ASSERT_EQ(pass.blocks.size(), 2u);
  EXPECT_EQ(printed_shape(pass.blocks[1].output.shape()), "[1,3,4]");
  EXPECT_EQ(printed_shape(pass.final_norm.shape()), "[1,3,4]");
  EXPECT_EQ(printed_shape(pass.logits.shape()), "[1,3,5]");
  const SharedTensor logits = pass.logits.value();
  EXPECT_EQ(printed(logits.slice(1, 1, 2)), "[-0.862249,0.967613,-0.991545,-0.446363,1.234533]");
  EXPECT_EQ(format_fixed(model.loss(kTokens, {1, 3}, kTargets).item(), 6), "2.045535");
  const Tensor rows = logits.materialize();
  std::vector<std::size_t> predictions;
  for (std::size_t token = 0; token < 3; ++token) {
    const auto row = rows.values().subspan(token * 5, 5);
    predictions.push_back(
        static_cast<std::size_t>(std::max_element(row.begin(), row.end()) - row.begin()));
  }
  EXPECT_EQ(predictions, (std::vector<std::size_t>{0, 4, 1}));
  // The same seed replays the same bits; std::size_t IDs read the same as TokenIds.
  const std::vector<std::size_t> wide{0, 1, 2};
  EXPECT_EQ(bits_of(chapter_32_model().forward(wide, {1, 3}).value()), bits_of(logits));
}

TEST(DecoderModel, ReproducesChapter32sParametersAndTying) {
  const DecoderModel model = chapter_32_model();
  const ParameterSet& parameters = model.parameters();
  EXPECT_EQ(parameters.size(), 20u);
  EXPECT_EQ(model.parameter_count(), 264u);
  EXPECT_EQ(parameters[0].name, "token_embedding.weight");
  EXPECT_EQ(parameters[1].name, "blocks.0.attention_norm.gain");
  EXPECT_EQ(parameters[10].name, "blocks.1.attention_norm.gain");
  EXPECT_EQ(parameters[18].name, "blocks.1.ffn.down.weight");
  EXPECT_EQ(parameters[19].name, "final_norm.gain");
  for (const NamedParameter& entry : parameters) {
    EXPECT_EQ(entry.name.find("bias"), std::string::npos);
  }
  const DecoderModel untied = chapter_32_model(2, HeadTying::Untied);
  EXPECT_EQ(untied.parameter_count(), 284u);
  EXPECT_EQ(untied.parameters()[20].name, "head.weight");
  // Untied, the head is drawn last: everything before it has the tied model's bits.
  EXPECT_EQ(bits_of(untied.embedding().table().value()),
            bits_of(model.embedding().table().value()));
}

TEST(DecoderModel, TheTiedTablesGradientIsTheSumOfItsTwoRoles) {
  // Chapter 32's probe: lookup and head share one table; detaching either use
  // leaves the other role's gradient, and the two add up to the full one.
  const Tensor table({5, 4}, {0.8,  -0.2, 0.1,  0.4,  -0.3, 0.7, 0.2, -0.1, 0.5,  0.1,
                              -0.6, 0.3,  -0.4, -0.2, 0.9,  0.1, 0.2, 0.3,  -0.1, 0.8});
  const auto gradient = [&](bool lookup, bool head) {
    const TensorValue weights = TensorValue::parameter(table);
    const Embedding embedding(weights);
    const TensorValue rows = embedding.forward(std::vector<TokenId>{0, 1}, {1, 2});
    const TensorValue normalized =
        RmsNorm::initialized(4, 1e-6).forward(lookup ? rows : rows.detach());
    const TensorValue head_table = head ? weights : weights.detach();
    normalized.matmul(head_table.transpose(0, 1))
        .indexed_mean_nll(2, std::vector<TokenId>{1, 2})
        .backward();
    return *weights.gradient();
  };
  const Tensor full = gradient(true, true);
  const Tensor lookup = gradient(true, false);
  const Tensor head = gradient(false, true);
  double error = 0.0;
  for (std::size_t i = 0; i < full.size(); ++i) {
    error = std::max(error, std::abs(full.values()[i] - lookup.values()[i] - head.values()[i]));
  }
  EXPECT_EQ(format_fixed(error, 12), "0.000000000000");
}

TEST(DecoderModel, ChangingTheLastTokenLeavesEarlierLogitsBitForBit) {
  const DecoderModel model = chapter_32_model();
  const SharedTensor original = model.forward(kTokens, {1, 3}).value();
  const SharedTensor changed = model.forward(std::vector<TokenId>{0, 1, 4}, {1, 3}).value();
  EXPECT_EQ(bits_of(original.slice(1, 0, 2)), bits_of(changed.slice(1, 0, 2)));
  EXPECT_NE(bits_of(original.slice(1, 2, 3)), bits_of(changed.slice(1, 2, 3)));
}

TEST(DecoderModel, ZeroOneAndTwoLayersGiveLogitsOfTheSameShape) {
  for (std::size_t layers = 0; layers <= 2; ++layers) {
    const DecoderPass pass = chapter_32_model(layers).forward_with_intermediates(kTokens, {1, 3});
    EXPECT_EQ(pass.blocks.size(), layers);
    EXPECT_EQ(printed_shape(pass.logits.shape()), "[1,3,5]");
  }
}

TEST(DecoderModel, ReproducesChapter32sZeroLayerGradientProbe) {
  const Tensor table({5, 4}, {0.8,  -0.2, 0.1,  0.4,  -0.3, 0.7, 0.2, -0.1, 0.5,  0.1,
                              -0.6, 0.3,  -0.4, -0.2, 0.9,  0.1, 0.2, 0.3,  -0.1, 0.8});
  const DecoderModel probe(
      chapter_32_config(0), Embedding(TensorValue::parameter(table)), {},
      RmsNorm(TensorValue::parameter(Tensor({4}, {1.0, 0.9, 1.1, 0.8})), 1e-6));
  const auto loss = [&] {
    return probe.loss(std::vector<TokenId>{0, 1}, {1, 2}, std::vector<TokenId>{1, 2});
  };
  for (const char* name : {"token_embedding.weight", "final_norm.gain"}) {
    const std::size_t count = probe.parameters().at(name).value().size();
    const TensorGradientCheck check =
        check_parameter_gradient(probe.parameters(), name, loss, 1e-6, 2e-5, count);
    EXPECT_EQ(check.checks.size(), count) << name;  // 20 table and 4 gain coordinates
    EXPECT_TRUE(check.passed) << name;
  }
}

TEST(DecoderModel, EveryParameterTensorOfTheWholeModelPassesTheSampledGradientCheck) {
  // Chapter 32's two-layer model, tied head, one step of central differences
  // per sampled coordinate: at most six coordinates of each of the 20 tensors.
  const DecoderModel model = chapter_32_model();
  const auto loss = [&] { return model.loss(kTokens, {1, 3}, kTargets); };
  std::size_t checked = 0;
  for (const NamedParameter& entry : model.parameters()) {
    const TensorGradientCheck check =
        check_parameter_gradient(model.parameters(), entry.name, loss, 1e-5, 1e-6, 6);
    EXPECT_TRUE(check.passed) << entry.name;
    checked += check.checks.size();
  }
  EXPECT_GE(checked, 20u * 4u);
  // And the untied head on its own.
  const DecoderModel untied = chapter_32_model(1, HeadTying::Untied);
  const auto untied_loss = [&] { return untied.loss(kTokens, {1, 3}, kTargets); };
  EXPECT_TRUE(
      check_parameter_gradient(untied.parameters(), "head.weight", untied_loss, 1e-5, 1e-6, 20)
          .passed);
}

TEST(DecoderModel, ValidatesConfigurationTokensAndTargetsBeforeComputing) {
  SplitMix64 generator(32);
  DecoderConfig empty = chapter_32_config(0);
  empty.vocabulary_size = 0;
  EXPECT_EQ(
      capture_error<DecoderError>([&] { DecoderModel::initialized(empty, generator); })->kind(),
      DecoderErrorKind::EmptyVocabulary);
  EXPECT_EQ(generator.state(), SplitMix64(32).state());
  const DecoderModel model = chapter_32_model(0);
  auto kind_of = [](auto call) { return capture_error<DecoderError>(call)->kind(); };
  EXPECT_EQ(kind_of([&] { model.forward(kTokens, {3}); }), DecoderErrorKind::TokenRank);
  EXPECT_EQ(kind_of([&] {
              model.forward(std::vector<TokenId>{}, {0, 3});
            }),
            DecoderErrorKind::EmptyBatch);
  EXPECT_EQ(kind_of([&] {
              model.forward(std::vector<TokenId>{}, {1, 0});
            }),
            DecoderErrorKind::EmptyTokens);
  const auto context = capture_error<DecoderError>([&] {
    model.forward(std::vector<TokenId>{0, 0, 0, 0, 0}, {1, 5});
  });
  EXPECT_EQ(context->kind(), DecoderErrorKind::ContextExceeded);
  EXPECT_STREQ(context->what(), "5 tokens exceed the decoder's context of 4 positions");
  EXPECT_EQ(kind_of([&] { model.forward(kTokens, {1, 2}); }), DecoderErrorKind::TokenCountMismatch);
  EXPECT_EQ(capture_error<ModelOpError>([&] {
              model.forward(std::vector<TokenId>{0, 5}, {1, 2});
            })->kind(),
            ModelOpErrorKind::GatherIndexOutOfBounds);
  EXPECT_EQ(kind_of([&] {
              model.loss(kTokens, {1, 3}, std::vector<TokenId>{1, 2});
            }),
            DecoderErrorKind::TargetCountMismatch);
  const auto target = capture_error<DecoderError>([&] {
    model.loss(std::vector<TokenId>{0, 1}, {1, 2}, std::vector<TokenId>{1, 5});
  });
  EXPECT_EQ(target->kind(), DecoderErrorKind::TargetOutOfRange);
  EXPECT_STREQ(target->what(), "target 5 at flat position 1 is not below the vocabulary size 5");
}

TEST(DecoderModel, RefusesPartsThatDisagreeWithTheConfiguration) {
  SplitMix64 generator(3);
  const auto parts = [&](std::size_t vocabulary, std::size_t layers) {
    DecoderConfig config = chapter_32_config(layers);
    config.vocabulary_size = vocabulary;
    return DecoderModel::initialized(config, generator);
  };
  const DecoderModel six = parts(6, 1);
  const auto vocabulary = capture_error<DecoderError>(
      [&] { DecoderModel(chapter_32_config(1), six.embedding(), six.blocks(), six.final_norm()); });
  EXPECT_EQ(vocabulary->kind(), DecoderErrorKind::ComponentMismatch);
  EXPECT_STREQ(vocabulary->what(), "the token embedding's vocabulary size must be 5, got 6");
  const DecoderModel five = parts(5, 1);
  EXPECT_EQ(capture_error<DecoderError>([&] {
              DecoderModel(chapter_32_config(2), five.embedding(), five.blocks(),
                           five.final_norm());
            })->kind(),
            DecoderErrorKind::LayerCountMismatch);
  DecoderConfig other_base = chapter_32_config(1);
  other_base.block.rope_base = 100.0;
  EXPECT_EQ(capture_error<DecoderError>([&] {
              DecoderModel(other_base, five.embedding(), five.blocks(), five.final_norm());
            })->kind(),
            DecoderErrorKind::ConstantMismatch);
  EXPECT_EQ(capture_error<DecoderError>([&] {
              DecoderModel(chapter_32_config(1, HeadTying::Untied), five.embedding(), five.blocks(),
                           five.final_norm());
            })->kind(),
            DecoderErrorKind::HeadTyingMismatch);
  EXPECT_EQ(capture_error<DecoderError>([&] {
              DecoderModel(chapter_32_config(1, HeadTying::Untied), five.embedding(), five.blocks(),
                           five.final_norm(),
                           Linear(TensorValue::parameter(Tensor::zeros({5, 4})), std::nullopt));
            })->kind(),
            DecoderErrorKind::HeadShapeMismatch);
}

}  // namespace
}  // namespace llm
