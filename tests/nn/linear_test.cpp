// The linear layer: chapter 19's worked values and gradients, every leading
// shape, the bias option, construction and input errors, initialization, and
// gradient checks of input, weight and bias at several shapes.
#include "llm/nn/linear.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "nn/nn_test_support.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::bits_of;
using testing::capture_error;
using testing::values_of;

Linear known_linear(Bias bias) {
  std::optional<TensorValue> bias_value;
  if (bias == Bias::Yes) bias_value = TensorValue::parameter(Tensor({3}, {0.5, -0.5, 1.0}));
  return Linear(TensorValue::parameter(Tensor({2, 3}, {1, 0, -1, 2, 0.5, 1})), bias_value);
}

TEST(Linear, ProjectsTheChapterInputAndBackpropagatesEveryGradient) {
  const Linear layer = known_linear(Bias::Yes);
  EXPECT_EQ(layer.parameter_count(), 9u);
  const TensorValue input = TensorValue::parameter(Tensor({1, 2, 2}, {1, 2, -1, 3}));
  const TensorValue output = layer.forward(input);
  EXPECT_EQ(output.shape(), (Shape{1, 2, 3}));
  EXPECT_EQ(values_of(output.value()), (std::vector<double>{5.5, 0.5, 2, 5.5, 1, 5}));
  output.backward_with_seed(Tensor({1, 2, 3}, {1, 0, -1, 0.5, 2, 1}), Retention::Retain);
  EXPECT_EQ(values_of(*input.gradient()), (std::vector<double>{2, 1, -0.5, 3}));
  EXPECT_EQ(values_of(*layer.weight().gradient()), (std::vector<double>{0.5, -2, -2, 3.5, 6, 1}));
  EXPECT_EQ(values_of(*layer.bias()->gradient()), (std::vector<double>{1.5, 2, 0}));
}

TEST(Linear, WithoutBiasIsThePlainProduct) {
  const Linear layer = known_linear(Bias::No);
  EXPECT_EQ(layer.parameter_count(), 6u);
  EXPECT_FALSE(layer.bias());
  const TensorValue output = layer.forward(TensorValue::constant(Tensor({1, 2, 2}, {1, 2, -1, 3})));
  EXPECT_EQ(values_of(output.value()), (std::vector<double>{5, 1, 1, 5, 1.5, 4}));
  const ParameterSet parameters = layer.parameters();
  ASSERT_EQ(parameters.size(), 1u);
  EXPECT_EQ(parameters[0].name, "weight");
}

TEST(Linear, KeepsEveryLeadingAxis) {
  const Linear layer = known_linear(Bias::Yes);
  EXPECT_EQ(layer.forward(TensorValue::constant(Tensor({2}, {1, 2}))).shape(), (Shape{3}));
  EXPECT_EQ(values_of(layer.forward(TensorValue::constant(Tensor({2}, {1, 2}))).value()),
            (std::vector<double>{5.5, 0.5, 2}));
  EXPECT_EQ(layer.forward(TensorValue::constant(Tensor({2, 2}, {1, 2, -1, 3}))).shape(),
            (Shape{2, 3}));
  EXPECT_EQ(layer.forward(TensorValue::constant(Tensor::zeros(Shape{2, 3, 4, 2}))).shape(),
            (Shape{2, 3, 4, 3}));
  const TensorValue empty = layer.forward(TensorValue::constant(Tensor::zeros(Shape{0, 2})));
  EXPECT_EQ(empty.shape(), (Shape{0, 3}));
  EXPECT_EQ(empty.value().size(), 0u);
}

TEST(Linear, RejectsBadInputsAndParameters) {
  const Linear layer = known_linear(Bias::Yes);
  const auto scalar =
      capture_error<LayerError>([&] { layer.forward(TensorValue::constant(Tensor::scalar(1.0))); });
  EXPECT_EQ(scalar->kind(), LayerErrorKind::InputRank);
  const auto width = capture_error<LayerError>([&] {
    layer.forward(TensorValue::constant(Tensor::zeros(Shape{1, 3})));
  });
  EXPECT_EQ(width->kind(), LayerErrorKind::InputWidthMismatch);
  EXPECT_EQ(width->expected(), 2u);
  EXPECT_EQ(width->actual(), 3u);
  const TensorValue weight = TensorValue::parameter(Tensor({2, 3}, {1, 0, -1, 2, 0.5, 1}));
  const auto bias = capture_error<LayerError>(
      [&] { Linear(weight, TensorValue::parameter(Tensor::zeros(Shape{2}))); });
  EXPECT_EQ(bias->kind(), LayerErrorKind::BiasWidthMismatch);
  EXPECT_EQ(bias->expected(), 3u);
  EXPECT_EQ(bias->actual(), 2u);
  EXPECT_EQ(capture_error<LayerError>([&] {
              Linear(weight, TensorValue::parameter(Tensor::zeros(Shape{1, 3})));
            })->kind(),
            LayerErrorKind::BiasRank);
  EXPECT_EQ(capture_error<LayerError>([] {
              Linear(TensorValue::parameter(Tensor::zeros(Shape{3})), std::nullopt);
            })->kind(),
            LayerErrorKind::WeightRank);
  EXPECT_EQ(capture_error<LayerError>([] {
              Linear(TensorValue::parameter(Tensor::zeros(Shape{0, 3})), std::nullopt);
            })->kind(),
            LayerErrorKind::ZeroInputWidth);
  EXPECT_EQ(capture_error<LayerError>([] {
              Linear(TensorValue::constant(Tensor::zeros(Shape{2, 3})), std::nullopt);
            })->kind(),
            LayerErrorKind::NotAParameter);
}

TEST(Linear, InitializedLayersReproduceWithZeroBiasAndSharedCopies) {
  SplitMix64 first(19);
  SplitMix64 second(19);
  const Linear a = Linear::initialized(2, 3, Bias::Yes, first);
  const Linear b = Linear::initialized(2, 3, Bias::Yes, second);
  EXPECT_EQ(bits_of(a.weight().value()), bits_of(b.weight().value()));
  EXPECT_EQ(values_of(a.bias()->value()), (std::vector<double>{0, 0, 0}));
  const Linear copy = a;
  EXPECT_TRUE(copy.weight().is_same_node(a.weight()));
  EXPECT_TRUE(copy.bias()->is_same_node(*a.bias()));
  const std::uint64_t state = first.state();
  EXPECT_EQ(capture_error<LayerError>([&] { Linear::initialized(0, 3, Bias::Yes, first); })->kind(),
            LayerErrorKind::ZeroInputWidth);
  EXPECT_EQ(capture_error<LayerError>([&] { Linear::initialized(2, 0, Bias::No, first); })->kind(),
            LayerErrorKind::ZeroOutputWidth);
  EXPECT_EQ(first.state(), state);
  ParameterSet model;
  model.add_all("token_projection", a.parameters());
  EXPECT_EQ(model[0].name, "token_projection.weight");
  EXPECT_EQ(model[1].name, "token_projection.bias");
}

TEST(Linear, GradientsMatchCentralDifferencesAtSeveralShapes) {
  const std::vector<Shape> shapes = {Shape{3}, Shape{4, 3}, Shape{2, 3, 3}, Shape{2, 1, 2, 3}};
  for (const Bias bias : {Bias::Yes, Bias::No}) {
    for (const Shape& shape : shapes) {
      SplitMix64 generator(11);
      const Linear layer = Linear::initialized(3, 2, bias, generator);
      if (layer.bias()) TensorValue(*layer.bias()).assign(Tensor({2}, {0.25, -0.75}));
      Tensor input_values = xavier_uniform(element_count(shape), 1, generator);
      const TensorValue input = TensorValue::parameter(
          Tensor(shape, {input_values.values().begin(), input_values.values().end()}));
      ParameterSet model;
      model.add("input", input);
      model.add_all("projection", layer.parameters());
      std::vector<std::string> names = {"input", "projection.weight"};
      if (bias == Bias::Yes) names.push_back("projection.bias");
      testing::expect_parameters_gradchecked(shape_text(shape), model, names, [&] {
        return testing::smooth_loss(layer.forward(input));
      });
    }
  }
}

}  // namespace
}  // namespace llm
