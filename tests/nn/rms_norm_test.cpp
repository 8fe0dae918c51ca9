// The RMSNorm layer against chapter 25's expected.txt: its worked forward
// values and gradients, the scale probes (including the one digit that
// depends on how 1/sqrt is computed), the zero input, the batch, the
// history line, the gradient checks, and the layer's refusals.
#include "llm/nn/rms_norm.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "llm/autograd/elementwise_ops.hpp"
#include "nn/nn_test_support.hpp"
#include "support/printed.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::bits_of;
using testing::capture_error;
using testing::printed;

constexpr double kEpsilon = 1e-5;

RmsNorm chapter_layer(std::vector<double> gain, double epsilon) {
  const std::size_t width = gain.size();
  return RmsNorm(TensorValue::parameter(Tensor({width}, std::move(gain))), epsilon);
}

// The normalized values (gain one) of `values` through the layer.
std::vector<double> normalized(std::vector<double> values, double epsilon) {
  const std::size_t width = values.size();
  const RmsNorm layer = RmsNorm::initialized(width, epsilon);
  const Tensor result =
      layer.forward_with_intermediates(TensorValue::constant(Tensor({width}, std::move(values))))
          .normalized.value()
          .materialize();
  return {result.values().begin(), result.values().end()};
}

// The reference edition composed 1/sqrt(m + epsilon) as exp(-0.5 log(m +
// epsilon)); chapter 25's ideal-scale digit comes from that form.
std::vector<double> normalized_through_exp_log(std::vector<double> values, double epsilon) {
  const std::size_t width = values.size();
  const TensorValue x = TensorValue::constant(Tensor({width}, std::move(values)));
  const TensorValue mean_square = x.mul(x).mean_axis(0, KeepDim::Yes);
  const TensorValue inverse_rms =
      scale(mean_square.add(TensorValue::constant(Tensor::scalar(epsilon))).log(), -0.5).exp();
  const Tensor result = x.mul(inverse_rms).value().materialize();
  return {result.values().begin(), result.values().end()};
}

double max_abs_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double largest = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) largest = std::max(largest, std::abs(a[i] - b[i]));
  return largest;
}

std::vector<double> times_ten(std::vector<double> values) {
  for (double& value : values) value *= 10.0;
  return values;
}

TEST(RmsNormLayer, ReproducesChapter25sWorkedPass) {
  const RmsNorm layer = chapter_layer({1.5, 0.5}, kEpsilon);
  const TensorValue input = TensorValue::parameter(Tensor({2}, {3.0, 4.0}));
  const RmsNormPass pass = layer.forward_with_intermediates(input);
  EXPECT_EQ(printed(pass.mean_square.value()), "[12.500000]");
  EXPECT_EQ(pass.mean_square.shape(), (Shape{1}));
  EXPECT_EQ(printed(pass.inverse_rms.value()), "[0.282843]");
  EXPECT_EQ(printed(pass.normalized.value()), "[0.848528,1.131370]");
  EXPECT_EQ(printed(pass.output.value()), "[1.272792,0.565685]");
  pass.output.backward_with_seed(Tensor({2}, {1.0, -2.0}), Retention::Release);
  EXPECT_EQ(printed(SharedTensor::copy_of(*input.gradient())), "[0.407293,-0.305470]");
  EXPECT_EQ(printed(SharedTensor::copy_of(*layer.gain().gradient())), "[0.848528,-2.262741]");
  const Tensor n = pass.normalized.value().materialize();
  const double mean_square = (n.values()[0] * n.values()[0] + n.values()[1] * n.values()[1]) / 2.0;
  EXPECT_EQ(format_fixed(mean_square, 6), "0.999999");
}

TEST(RmsNormLayer, TheFusedForwardHasTheComposedBitsAndTheSameGradientDigits) {
  const RmsNorm layer = chapter_layer({1.5, 0.5}, kEpsilon);
  const TensorValue input = TensorValue::parameter(Tensor({2}, {3.0, 4.0}));
  const TensorValue fused = layer.forward(input);
  EXPECT_EQ(bits_of(fused.value()),
            bits_of(layer.forward_with_intermediates(input).output.value()));
  fused.backward_with_seed(Tensor({2}, {1.0, -2.0}), Retention::Release);
  EXPECT_EQ(printed(SharedTensor::copy_of(*input.gradient())), "[0.407293,-0.305470]");
  EXPECT_EQ(printed(SharedTensor::copy_of(*layer.gain().gradient())), "[0.848528,-2.262741]");
}

TEST(RmsNormLayer, ReproducesChapter25sScaleProbes) {
  const std::vector<double> input{3.0, 4.0};
  const std::vector<double> tiny{3e-4, 4e-4};
  // ideal_scale: epsilon 0, the reference's exp(-log/2) form differs by one ulp...
  const std::vector<double> base = normalized_through_exp_log(input, 0.0);
  const std::vector<double> scaled = normalized_through_exp_log(times_ten(input), 0.0);
  EXPECT_EQ(printed(base), "[0.848528,1.131371]");
  EXPECT_EQ(printed(scaled), "[0.848528,1.131371]");
  EXPECT_EQ(format_fixed(max_abs_difference(base, scaled), 18), "0.000000000000000222");
  // ...while this library's rsqrt (1 / sqrt, both correctly rounded) gives the same bits.
  EXPECT_EQ(max_abs_difference(normalized(input, 0.0), normalized(times_ten(input), 0.0)), 0.0);
  // production_scale and near_zero_scale: epsilon 1e-5 breaks the invariance.
  EXPECT_EQ(printed(normalized(input, kEpsilon)), "[0.848528,1.131370]");
  EXPECT_EQ(printed(normalized(times_ten(input), kEpsilon)), "[0.848528,1.131371]");
  EXPECT_EQ(format_fixed(max_abs_difference(normalized(input, kEpsilon),
                                            normalized(times_ten(input), kEpsilon)),
                         9),
            "0.000000448");
  EXPECT_EQ(printed(normalized(tiny, kEpsilon)), "[0.094281,0.125708]");
  EXPECT_EQ(printed(normalized(times_ten(tiny), kEpsilon)), "[0.632456,0.843274]");
  EXPECT_EQ(
      format_fixed(
          max_abs_difference(normalized(tiny, kEpsilon), normalized(times_ten(tiny), kEpsilon)), 6),
      "0.717566");
  // history: RMSNorm of [1, 3] with epsilon 0, and the mean of the result.
  const std::vector<double> history = normalized({1.0, 3.0}, 0.0);
  EXPECT_EQ(printed(history), "[0.447214,1.341641]");
  EXPECT_EQ(format_fixed((history[0] + history[1]) / 2.0, 6), "0.894427");
}

TEST(RmsNormLayer, ReproducesChapter25sZeroInputAndBatch) {
  const TensorValue zero =
      RmsNorm::initialized(2, kEpsilon).forward(TensorValue::constant(Tensor({2}, {0.0, 0.0})));
  EXPECT_EQ(printed(zero.value()), "[0.000000,0.000000]");
  const TensorValue batch = chapter_layer({1.5, 0.5}, kEpsilon)
                                .forward(TensorValue::constant(Tensor({2, 2}, {3, 4, 0, 5})));
  EXPECT_EQ(batch.shape(), (Shape{2, 2}));
  EXPECT_EQ(printed(batch.value()), "[1.272792,0.565685,0.000000,0.707106]");
}

TEST(RmsNormLayer, GainAndInputGradientsPassTheSampledCheck) {
  const RmsNorm layer = chapter_layer({1.5, 0.5, -0.75}, kEpsilon);
  const TensorValue input = TensorValue::parameter(testing::loss_weights({2, 3, 3}));
  ParameterSet set = layer.parameters();
  set.add("input", input);
  testing::expect_parameters_gradchecked("rms norm", set, {"gain", "input"}, [&] {
    return testing::smooth_loss(layer.forward(input));
  });
}

TEST(RmsNormLayer, NamesItsGainAndStartsItAtOne) {
  const RmsNorm layer = RmsNorm::initialized(3, kEpsilon);
  ParameterSet model;
  model.add_all("decoder.block.0.attention_norm", layer.parameters());
  EXPECT_EQ(model[0].name, "decoder.block.0.attention_norm.gain");
  EXPECT_EQ(testing::values_of(layer.gain().value()), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(layer.width(), 3u);
  EXPECT_EQ(layer.epsilon(), kEpsilon);
}

TEST(RmsNormLayer, RefusesBadGainsEpsilonsAndInputs) {
  auto layer_kind = [](auto call) { return capture_error<LayerError>(call)->kind(); };
  EXPECT_EQ(layer_kind([] {
              RmsNorm(TensorValue::constant(Tensor({2}, {1, 1})), 0.0);
            }),
            LayerErrorKind::NotAParameter);
  EXPECT_EQ(layer_kind([] {
              RmsNorm(TensorValue::parameter(Tensor::zeros({1, 2})), 0.0);
            }),
            LayerErrorKind::GainRank);
  EXPECT_EQ(layer_kind([] { RmsNorm::initialized(0, 0.0); }), LayerErrorKind::ZeroGainWidth);
  const auto epsilon = capture_error<LayerError>([] { RmsNorm::initialized(2, -1e-5); });
  EXPECT_EQ(epsilon->kind(), LayerErrorKind::InvalidEpsilon);
  EXPECT_STREQ(epsilon->what(), "an RMSNorm epsilon must be finite and at least 0, got -1e-5");
  const RmsNorm layer = chapter_layer({1.5, 0.5}, 0.0);
  for (const bool fused : {true, false}) {
    auto forward = [&](const TensorValue& x) {
      return fused ? layer.forward(x) : layer.forward_with_intermediates(x).output;
    };
    auto op_kind = [](auto call) { return capture_error<DecoderOpError>(call)->kind(); };
    EXPECT_EQ(op_kind([&] { forward(TensorValue::constant(Tensor::scalar(1.0))); }),
              DecoderOpErrorKind::RmsNormInputRank);
    EXPECT_EQ(op_kind([&] {
                forward(TensorValue::constant(Tensor({3}, {1, 2, 3})));
              }),
              DecoderOpErrorKind::RmsNormWidthMismatch);
    EXPECT_EQ(op_kind([&] {
                forward(TensorValue::constant(Tensor({2}, {0, 0})));
              }),
              DecoderOpErrorKind::RmsNormZeroEnergyRow);
  }
}

}  // namespace
}  // namespace llm
