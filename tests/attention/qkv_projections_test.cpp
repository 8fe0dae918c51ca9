// The Q/K/V projections against chapter 26's expected.txt: the worked
// projections, the combined reverse pass, the parameter names and count, the
// shape rule, initialization, and every refusal.
#include "llm/attention/qkv_projections.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nn/nn_test_support.hpp"
#include "support/printed.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;
using testing::printed;
using testing::printed_shape;
using testing::total;

Linear weight(std::vector<double> values) {
  return Linear(TensorValue::parameter(Tensor({3, 2}, std::move(values))), std::nullopt);
}

QkvProjections chapter_26_projections() {
  return QkvProjections(weight({1, 0, 0, 1, 1, -1}), weight({0, 1, 1, 0, -1, 1}),
                        weight({1, 1, 1, -1, 0, 2}));
}

TEST(QkvProjections, ReproducesChapter26sProjectionsAndGradients) {
  const QkvProjections layer = chapter_26_projections();
  const TensorValue input = TensorValue::parameter(Tensor({1, 2, 3}, {1, 2, -1, 0, 1, 2}));
  const QkvPass pass = layer.forward(input);
  EXPECT_EQ(printed_shape(pass.query.shape()), "[1,2,2]");
  EXPECT_EQ(printed(pass.query.value()), "[0.000000,3.000000,2.000000,-1.000000]");
  EXPECT_EQ(printed(pass.key.value()), "[3.000000,0.000000,-1.000000,2.000000]");
  EXPECT_EQ(printed(pass.value.value()), "[3.000000,-3.000000,1.000000,3.000000]");
  const auto upstream = [](std::vector<double> values) {
    return TensorValue::constant(Tensor({1, 2, 2}, std::move(values)));
  };
  const TensorValue loss = total(pass.query.mul(upstream({1, 0, -1, 2})))
                               .add(total(pass.key.mul(upstream({0.5, -1, 1, 0}))))
                               .add(total(pass.value.mul(upstream({2, 1, 0, -0.5}))));
  loss.backward();
  EXPECT_EQ(printed(SharedTensor::copy_of(*input.gradient())),
            "[3.000000,1.500000,1.500000,-1.500000,3.500000,-5.000000]");
  EXPECT_EQ(printed(SharedTensor::copy_of(*layer.query().weight().gradient())),
            "[1.000000,0.000000,1.000000,2.000000,-3.000000,4.000000]");
  EXPECT_EQ(printed(SharedTensor::copy_of(*layer.key().weight().gradient())),
            "[0.500000,-1.000000,2.000000,-2.000000,1.500000,1.000000]");
  EXPECT_EQ(printed(SharedTensor::copy_of(*layer.value().weight().gradient())),
            "[2.000000,1.000000,4.000000,1.500000,-2.000000,-2.000000]");
}

TEST(QkvProjections, NamesThreeIndependentWeightsUnderTheModelsPrefix) {
  const QkvProjections layer = chapter_26_projections();
  ParameterSet model;
  model.add_all("decoder.block.0.attention", layer.parameters());
  std::vector<std::string> names;
  for (const NamedParameter& entry : model) names.push_back(entry.name);
  EXPECT_EQ(names, (std::vector<std::string>{"decoder.block.0.attention.query.weight",
                                             "decoder.block.0.attention.key.weight",
                                             "decoder.block.0.attention.value.weight"}));
  EXPECT_EQ(layer.parameter_count(), 18u);
  EXPECT_EQ(layer.model_width(), 3u);
  EXPECT_EQ(layer.head_width(), 2u);
}

TEST(QkvProjections, KeepsBatchAndTokenAxesIncludingEmptyOnes) {
  const QkvProjections layer = chapter_26_projections();
  EXPECT_EQ(
      printed_shape(layer.forward(TensorValue::constant(Tensor::zeros({2, 2, 3}))).key.shape()),
      "[2,2,2]");
  EXPECT_EQ(
      printed_shape(layer.forward(TensorValue::constant(Tensor::zeros({1, 0, 3}))).value.shape()),
      "[1,0,2]");
}

TEST(QkvProjections, InitializesQueryKeyValueInOrderAndOnlyOnSuccess) {
  SplitMix64 generator(26);
  SplitMix64 replay(26);
  const QkvProjections layer = QkvProjections::initialized(3, 2, generator);
  const Tensor query = xavier_uniform(3, 2, replay);
  const Tensor key = xavier_uniform(3, 2, replay);
  const Tensor value = xavier_uniform(3, 2, replay);
  EXPECT_EQ(testing::bits_of(layer.query().weight().value()), testing::bits_of(query));
  EXPECT_EQ(testing::bits_of(layer.key().weight().value()), testing::bits_of(key));
  EXPECT_EQ(testing::bits_of(layer.value().weight().value()), testing::bits_of(value));
  EXPECT_EQ(generator.state(), replay.state());
  SplitMix64 untouched(26);
  EXPECT_THROW(QkvProjections::initialized(3, 0, untouched), LayerError);
  EXPECT_EQ(untouched.state(), SplitMix64(26).state());
}

TEST(QkvProjections, RefusesBiasesMismatchedOrSharedWeightsAndUnreadableInputs) {
  auto kind_of = [](auto call) { return capture_error<AttentionError>(call)->kind(); };
  const Linear biased(TensorValue::parameter(Tensor::zeros({3, 2})),
                      TensorValue::parameter(Tensor::zeros({2})));
  EXPECT_EQ(kind_of([&] {
              QkvProjections(biased, weight({1, 0, 0, 1, 1, 1}), weight({1, 0, 0, 1, 1, 1}));
            }),
            AttentionErrorKind::ProjectionBias);
  const Linear wide(TensorValue::parameter(Tensor::zeros({3, 3})), std::nullopt);
  const auto mismatch = capture_error<AttentionError>([&] {
    QkvProjections(weight({1, 0, 0, 1, 1, 1}), wide, weight({1, 0, 0, 1, 1, 1}));
  });
  EXPECT_EQ(mismatch->kind(), AttentionErrorKind::ProjectionShapeMismatch);
  EXPECT_STREQ(mismatch->what(),
               "the query, key and value projections must share one shape [D, Dh]; the query's is "
               "[3, 2], the key's [3, 3], the value's [3, 2]");
  const Linear shared = weight({1, 0, 0, 1, 1, 1});
  EXPECT_EQ(kind_of([&] {
              QkvProjections(shared, shared, weight({1, 0, 0, 1, 1, 1}));
            }),
            AttentionErrorKind::SharedProjectionWeight);
  const QkvProjections layer = chapter_26_projections();
  EXPECT_EQ(kind_of([&] {
              layer.forward(TensorValue::constant(Tensor::zeros({2, 3})));
            }),
            AttentionErrorKind::InputRank);
  const auto width = capture_error<AttentionError>([&] {
    layer.forward(TensorValue::constant(Tensor::zeros({1, 2, 4})));
  });
  EXPECT_EQ(width->kind(), AttentionErrorKind::InputWidthMismatch);
  EXPECT_STREQ(width->what(),
               "the Q/K/V input's last extent must be the model width 3, got shape [1, 2, 4]");
}

TEST(QkvProjections, EveryWeightPassesTheSampledGradientCheck) {
  const QkvProjections layer = chapter_26_projections();
  const TensorValue input = TensorValue::parameter(testing::loss_weights({2, 2, 3}));
  ParameterSet set = layer.parameters();
  set.add("input", input);
  testing::expect_parameters_gradchecked(
      "qkv", set, {"query.weight", "key.weight", "value.weight", "input"}, [&] {
        const QkvPass pass = layer.forward(input);
        return testing::smooth_loss(pass.query)
            .add(testing::smooth_loss(pass.key))
            .add(testing::smooth_loss(pass.value.mul(pass.query)));
      });
}

}  // namespace
}  // namespace llm
