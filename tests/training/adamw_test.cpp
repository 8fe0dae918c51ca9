// Chapter 22: AdamW's validated configuration, parameter groups, a
// hand-computed two-step example, and steps that fail part-way leaving every
// parameter, gradient and moment bit for bit as they were.
#include "llm/training/adamw.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "llm/tensor/parallel.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::bits_of;
using testing::capture_error;
using testing::values_of;

AdamWConfig chapter_config() {
  return AdamWConfig::create(0.1, 0.5, 0.5, 0.1, 0.1);
}

TensorValue parameter(std::vector<double> values) {
  const std::size_t n = values.size();
  return TensorValue::parameter(Tensor(Shape{n}, std::move(values)));
}

void add_gradient(const TensorValue& parameter, std::vector<double> gradient) {
  const std::size_t n = gradient.size();
  parameter.backward_with_seed(Tensor(Shape{n}, std::move(gradient)), Retention::Retain);
}

std::vector<std::uint64_t> bits(const std::vector<double>& values) {
  std::vector<std::uint64_t> result;
  for (double value : values) result.push_back(std::bit_cast<std::uint64_t>(value));
  return result;
}

AdamWErrorKind config_error(double lr, double b1, double b2, double eps, double wd) {
  return capture_error<AdamWError>([&] { AdamWConfig::create(lr, b1, b2, eps, wd); })->kind();
}

TEST(AdamWConfig, RejectsEachDomainInOrder) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(config_error(0.0, 0.5, 0.5, 0.1, 0.1), AdamWErrorKind::InvalidLearningRate);
  EXPECT_EQ(config_error(nan, 2.0, 0.5, 0.1, 0.1), AdamWErrorKind::InvalidLearningRate);
  EXPECT_EQ(config_error(0.1, 1.0, 0.5, 0.1, 0.1), AdamWErrorKind::InvalidBeta1);
  EXPECT_EQ(config_error(0.1, -0.1, 0.5, 0.1, 0.1), AdamWErrorKind::InvalidBeta1);
  EXPECT_EQ(config_error(0.1, 0.5, 1.0, 0.1, 0.1), AdamWErrorKind::InvalidBeta2);
  EXPECT_EQ(config_error(0.1, 0.5, 0.5, 0.0, 0.1), AdamWErrorKind::InvalidEpsilon);
  EXPECT_EQ(config_error(0.1, 0.5, 0.5, 0.1, -1.0), AdamWErrorKind::InvalidWeightDecay);
  // The product eta * lambda as a double: equal to one, above one, underflowed to zero.
  EXPECT_EQ(config_error(0.5, 0.5, 0.5, 0.1, 2.0), AdamWErrorKind::InvalidDecayProduct);
  EXPECT_EQ(config_error(0.5, 0.5, 0.5, 0.1, 4.0), AdamWErrorKind::InvalidDecayProduct);
  EXPECT_EQ(config_error(std::numeric_limits<double>::min(), 0.5, 0.5, 0.1,
                         std::bit_cast<double>(std::uint64_t{1})),
            AdamWErrorKind::InvalidDecayProduct);
  // Zero decay is an explicit, valid choice; beta = 0 keeps no memory but is valid.
  EXPECT_EQ(AdamWConfig::create(0.5, 0.0, 0.0, 0.1, 0.0).shrinkage_factor(), 1.0);
  EXPECT_EQ(chapter_config().decay_product(), 0.1 * 0.1);
}

TEST(AdamWParameterGroups, RejectsEmptyRepeatedAndOverlappingNames) {
  EXPECT_EQ(capture_error<AdamWError>([] { AdamWParameterGroups::create({}, {}); })->kind(),
            AdamWErrorKind::EmptyParameterGroups);
  EXPECT_EQ(capture_error<AdamWError>([] { AdamWParameterGroups::create({""}, {}); })->kind(),
            AdamWErrorKind::InvalidGroupedName);
  EXPECT_EQ(capture_error<AdamWError>([] {
              AdamWParameterGroups::create({"a.w", "a.w"}, {});
            })->kind(),
            AdamWErrorKind::InvalidGroupedName);
  EXPECT_EQ(
      capture_error<AdamWError>([] { AdamWParameterGroups::create({"a.w"}, {"a.w"}); })->kind(),
      AdamWErrorKind::NameInBothGroups);
  const auto groups = AdamWParameterGroups::create({"b.weight"}, {"a.scale"});
  EXPECT_TRUE(groups.decays("b.weight"));
  EXPECT_FALSE(groups.decays("a.scale"));
  EXPECT_EQ(groups.names(), (std::vector<std::string>{"a.scale", "b.weight"}));
}

// theta0 = 1, g1 = 0.2, g2 = -0.1, eta = 0.1, beta1 = beta2 = 0.5, eps = 0.1, lambda = 0.1.
// Step 1: m = 0.1, v = 0.02, corrections 0.5 -> m^ = 0.2, v^ = 0.04, sqrt = 0.2,
//   adaptive = 0.1 * 0.2 / 0.3 = 1/15, decay = 0.01 * 1, theta1 = 1 - 1/15 - 1/100 = 277/300.
// Step 2: m = 0.05 - 0.05 = 0, v = 0.01 + 0.005 = 0.015, corrections 0.75 -> m^ = 0,
//   v^ = 0.02, adaptive = 0, decay = 0.01 * 277/300, theta2 = 0.99 * 277/300 = 0.9141.
TEST(AdamW, MatchesTheHandComputedTwoSteps) {
  const TensorValue weight = parameter({1.0});
  ParameterSet set;
  set.add("history.weight", weight);
  AdamW optimizer(chapter_config());

  add_gradient(weight, {0.2});
  const AdamWStep first = optimizer.step_with_trace(set);
  EXPECT_EQ(first.step, 1u);
  EXPECT_EQ(first.first_correction, 0.5);
  EXPECT_EQ(first.second_correction, 0.5);
  const AdamWParameterUpdate& update = first.updates[0];
  EXPECT_DOUBLE_EQ(update.first_moment[0], 0.1);
  EXPECT_DOUBLE_EQ(update.second_moment[0], 0.02);
  EXPECT_DOUBLE_EQ(update.corrected_first_moment[0], 0.2);
  EXPECT_DOUBLE_EQ(update.corrected_second_moment[0], 0.04);
  EXPECT_NEAR(update.adaptive_delta[0], 1.0 / 15.0, 1e-15);
  EXPECT_DOUBLE_EQ(update.decay_delta[0], 0.01);
  EXPECT_NEAR(values_of(weight.value())[0], 277.0 / 300.0, 1e-15);
  EXPECT_EQ(values_of(*weight.gradient()), (std::vector<double>{0.2}));  // kept, not cleared

  set.zero_grad();
  add_gradient(weight, {-0.1});
  const AdamWStep second = optimizer.step_with_trace(set);
  EXPECT_EQ(second.step, 2u);
  EXPECT_EQ(second.first_correction, 0.75);
  EXPECT_EQ(second.updates[0].first_moment[0], 0.0);
  EXPECT_DOUBLE_EQ(second.updates[0].second_moment[0], 0.015);
  EXPECT_EQ(second.updates[0].adaptive_delta[0], 0.0);
  EXPECT_NEAR(values_of(weight.value())[0], 0.9141, 1e-15);
  EXPECT_EQ(optimizer.step_count(), 2u);
}

TEST(AdamW, NoDecayGroupSkipsOnlyTheDecayTerm) {
  const TensorValue weight = parameter({1.0, -2.0});
  const TensorValue scale = parameter({0.5});
  ParameterSet set;
  set.add("decoder.output.weight", weight);
  set.add("decoder.norm.scale", scale);
  add_gradient(weight, {0.2, -0.4});
  AdamW optimizer(chapter_config(),
                  AdamWParameterGroups::create({"decoder.output.weight"}, {"decoder.norm.scale"}));
  const AdamWStep step = optimizer.step_with_trace(set);
  EXPECT_NEAR(step.updates[0].after[0], 277.0 / 300.0, 1e-15);
  EXPECT_DOUBLE_EQ(step.updates[0].after[1], -1.9);
  EXPECT_DOUBLE_EQ(step.updates[0].decay_delta[1], -0.02);  // a negative value decays toward zero
  EXPECT_FALSE(step.updates[1].decay_applied);
  EXPECT_EQ(values_of(scale.value()), (std::vector<double>{0.5}));
  EXPECT_EQ(optimizer.parameter_names(),
            (std::vector<std::string>{"decoder.norm.scale", "decoder.output.weight"}));
}

TEST(AdamW, ZeroGradientOnFreshMomentsIsPureDecay) {
  const TensorValue probe = parameter({3.0});
  ParameterSet set;
  set.add("probe.weight", probe);
  AdamW optimizer(chapter_config());
  const AdamWStep step = optimizer.step_with_trace(set);
  EXPECT_EQ(step.updates[0].adaptive_delta[0], 0.0);
  EXPECT_DOUBLE_EQ(step.updates[0].decay_delta[0], 0.03);
  EXPECT_DOUBLE_EQ(values_of(probe.value())[0], 2.97);
}

// The strong guarantee: the second parameter's squared gradient overflows
// after the first parameter's update was already computed.
TEST(AdamW, AFailureMidStepChangesNothing) {
  const TensorValue first = parameter({1.0, -2.0});
  const TensorValue second = parameter({0.5});
  ParameterSet set;
  set.add("a.weight", first);
  set.add("b.weight", second);
  AdamW optimizer(chapter_config());
  add_gradient(first, {0.2, -0.4});
  add_gradient(second, {0.3});
  optimizer.step(set);  // moments now exist and are non-zero

  add_gradient(second, {1e200});
  const AdamW optimizer_before = optimizer;
  const auto values_before = std::vector{bits_of(first.value()), bits_of(second.value())};
  const auto gradients_before =
      std::vector{bits_of(*first.gradient()), bits_of(*second.gradient())};
  const auto versions_before = std::vector{first.version(), second.version()};
  const auto moments_before = bits(optimizer.moments("a.weight")->first);

  const auto error = capture_error<AdamWError>([&] { optimizer.step(set); });
  EXPECT_EQ(error->kind(), AdamWErrorKind::NonFiniteArithmetic);
  EXPECT_NE(
      std::string(error->what()).find("squared gradient of parameter 'b.weight' at element 0"),
      std::string::npos);
  EXPECT_EQ(optimizer, optimizer_before);  // config, step count, beta powers, every moment
  EXPECT_EQ(bits(optimizer.moments("a.weight")->first), moments_before);
  EXPECT_EQ((std::vector{bits_of(first.value()), bits_of(second.value())}), values_before);
  EXPECT_EQ((std::vector{bits_of(*first.gradient()), bits_of(*second.gradient())}),
            gradients_before);
  EXPECT_EQ((std::vector{first.version(), second.version()}), versions_before);
  EXPECT_EQ(optimizer.step_count(), 1u);
}

// Gradients of every sign and a spread of magnitudes, for the long tests.
std::vector<double> varied(std::size_t count, double scale) {
  std::vector<double> values(count);
  for (std::size_t i = 0; i < count; ++i) {
    values[i] = scale * (static_cast<double>(i % 197) - 98.0) / static_cast<double>(1 + i % 13);
  }
  return values;
}

// The fast loop (AVX-512 where the CPU has it, pieces on several threads)
// against the traced step, whose checked loop goes one element at a time: the
// same bits, on 20,003 elements (whole blocks of eight and a tail).
TEST(AdamW, FastLoopGivesTheTracedStepsBits) {
  const std::size_t count = 20'003;
  for (std::size_t threads : {1, 3}) {
    const std::size_t previous = set_thread_count(threads);
    const TensorValue fast = parameter(varied(count, 0.01));
    const TensorValue traced = parameter(varied(count, 0.01));
    ParameterSet fast_set, traced_set;
    fast_set.add("w", fast);
    traced_set.add("w", traced);
    AdamW fast_optimizer(chapter_config()), traced_optimizer(chapter_config());
    for (int step = 0; step < 2; ++step) {  // fresh moments, then stored ones
      add_gradient(fast, varied(count, 0.3 + step));
      add_gradient(traced, varied(count, 0.3 + step));
      fast_optimizer.step(fast_set);
      traced_optimizer.step_with_trace(traced_set);
      EXPECT_EQ(bits_of(fast.value()), bits_of(traced.value())) << threads << " threads";
      EXPECT_EQ(fast_optimizer, traced_optimizer) << threads << " threads";
    }
    set_thread_count(previous);
  }
}

// A failure inside a block of eight, in the second of three pieces, with a
// later one in the third: the error names the first, and nothing changes.
TEST(AdamW, AFailureInALongParameterNamesItsFirstElement) {
  const std::size_t count = 20'000;
  const std::size_t previous = set_thread_count(3);
  const TensorValue weight = parameter(varied(count, 0.01));
  ParameterSet set;
  set.add("w", weight);
  AdamW optimizer(chapter_config());
  add_gradient(weight, varied(count, 0.3));
  optimizer.step(set);
  std::vector<double> gradient(count, 0.0);
  gradient[9'013] = 1e200;  // squares to +inf
  gradient[15'000] = 1e200;
  add_gradient(weight, gradient);
  const AdamW optimizer_before = optimizer;
  const auto value_before = bits_of(weight.value());
  const auto gradient_before = bits_of(*weight.gradient());
  const auto error = capture_error<AdamWError>([&] { optimizer.step(set); });
  EXPECT_EQ(error->kind(), AdamWErrorKind::NonFiniteArithmetic);
  EXPECT_NE(std::string(error->what()).find("squared gradient of parameter 'w' at element 9013"),
            std::string::npos)
      << error->what();
  EXPECT_EQ(optimizer, optimizer_before);
  EXPECT_EQ(bits_of(weight.value()), value_before);
  EXPECT_EQ(bits_of(*weight.gradient()), gradient_before);
  set_thread_count(previous);
}

TEST(AdamW, AChangedOrReshapedSetIsRejectedBeforeAnyWrite) {
  const TensorValue weight = parameter({1.0});
  ParameterSet set;
  set.add("a.weight", weight);
  AdamW optimizer(chapter_config());
  EXPECT_EQ(capture_error<AdamWError>([&] { optimizer.step(ParameterSet{}); })->kind(),
            AdamWErrorKind::EmptyParameterSet);
  optimizer.step(set);
  const AdamW before = optimizer;

  ParameterSet grown = set;
  grown.add("unexpected.weight", parameter({1.0}));
  const auto changed = capture_error<AdamWError>([&] { optimizer.step(grown); });
  EXPECT_EQ(changed->kind(), AdamWErrorKind::ParameterSetChanged);
  EXPECT_STREQ(
      changed->what(),
      "parameter-name set changed from [\"a.weight\"] to [\"a.weight\", \"unexpected.weight\"]");

  ParameterSet reshaped;
  reshaped.add("a.weight", parameter({1.0, 2.0}));
  EXPECT_EQ(capture_error<AdamWError>([&] { optimizer.step(reshaped); })->kind(),
            AdamWErrorKind::ParameterShapeChanged);
  EXPECT_EQ(optimizer, before);

  AdamW grouped(chapter_config(), AdamWParameterGroups::create({"a.weight", "b.weight"}, {}));
  EXPECT_EQ(capture_error<AdamWError>([&] { grouped.step(set); })->kind(),
            AdamWErrorKind::ParameterSetChanged);
  EXPECT_EQ(grouped.step_count(), 0u);
}

}  // namespace
}  // namespace llm
