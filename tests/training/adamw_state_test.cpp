// Chapters 33 and 35: AdamW's per-step options (a scheduled learning rate, a
// gradient scale) and its exported state. A run continued from state() must
// be bit-identical to one that never stopped; every malformed state is
// refused with its own kind; a rejected step changes nothing.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "llm/training/adamw.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::bits_of;
using testing::capture_error;

AdamWConfig config() {
  return AdamWConfig::create(0.02, 0.9, 0.999, 1e-8, 0.01);
}

struct Fixture {
  TensorValue weight = TensorValue::parameter(Tensor(Shape{2, 2}, {0.5, -1.0, 0.25, 2.0}));
  TensorValue gain = TensorValue::parameter(Tensor(Shape{2}, {1.0, 1.5}));
  ParameterSet set;
  Fixture() {
    set.add("layer.weight", weight);
    set.add("layer.gain", gain);
  }
  // A deterministic gradient for step t, different every step and element.
  void seed_gradient(int t) const {
    set.zero_grad();
    std::vector<double> w, g;
    for (int i = 0; i < 4; ++i) w.push_back(std::sin(1.3 * t + i) * (i + 1));
    for (int i = 0; i < 2; ++i) g.push_back(std::cos(0.7 * t - i));
    weight.backward_with_seed(Tensor(Shape{2, 2}, w), Retention::Retain);
    gain.backward_with_seed(Tensor(Shape{2}, g), Retention::Retain);
  }
  std::vector<std::uint64_t> value_bits() const {
    std::vector<std::uint64_t> bits = bits_of(weight.value());
    for (std::uint64_t b : bits_of(gain.value())) bits.push_back(b);
    return bits;
  }
};

AdamWParameterGroups groups() {
  return AdamWParameterGroups::create({"layer.weight"}, {"layer.gain"});
}

double rate_of(int t) {
  return 0.04 / (1 + t);
}

TEST(AdamWStepOptions, DefaultOptionsAreChapter22sStep) {
  Fixture a, b;
  AdamW plain(config(), groups()), with_options(config(), groups());
  for (int t = 1; t <= 3; ++t) {
    a.seed_gradient(t);
    b.seed_gradient(t);
    plain.step(a.set);
    with_options.step(b.set, AdamWStepOptions{});
  }
  EXPECT_EQ(a.value_bits(), b.value_bits());
  EXPECT_EQ(plain, with_options);
}

// A scheduled rate changes eta for one step only: the same as an optimizer
// configured with that rate, moments carried over, and config() unchanged.
TEST(AdamWStepOptions, AScheduledRateIsOneStepsEtaAndKeepsTheMoments) {
  Fixture scheduled;
  AdamW optimizer(config(), groups());
  scheduled.seed_gradient(1);
  optimizer.step(scheduled.set, {.learning_rate = 0.04});
  scheduled.seed_gradient(2);
  const AdamWStep second = optimizer.step_with_trace(scheduled.set, {.learning_rate = 0.025});
  EXPECT_EQ(second.learning_rate, 0.025);
  EXPECT_EQ(optimizer.config().learning_rate(), 0.02);

  // By hand from the trace: eta m^ / (sqrt(v^) + eps) with eta = 0.025.
  const AdamWParameterUpdate& update = second.updates[0];
  for (std::size_t i = 0; i < update.before.size(); ++i) {
    const double adaptive = 0.025 * (update.corrected_first_moment[i] /
                                     (std::sqrt(update.corrected_second_moment[i]) + 1e-8));
    EXPECT_EQ(update.adaptive_delta[i], adaptive);
    EXPECT_EQ(update.decay_delta[i], 0.025 * 0.01 * update.before[i]);
  }
}

// The scale multiplies g before the moments read it, leaves the stored
// gradient alone, and equals stepping on a gradient scaled beforehand.
TEST(AdamWStepOptions, AGradientScaleEqualsAPreScaledGradientBitForBit) {
  Fixture scaled, prescaled;
  AdamW a(config(), groups()), b(config(), groups());
  scaled.seed_gradient(1);
  const auto stored = bits_of(*scaled.weight.gradient());
  a.step(scaled.set, {.learning_rate = 0.03, .gradient_scale = 0.375});
  EXPECT_EQ(bits_of(*scaled.weight.gradient()), stored);

  prescaled.seed_gradient(1);
  prescaled.set.scale_gradients(0.375);
  b.step(prescaled.set, {.learning_rate = 0.03});
  EXPECT_EQ(scaled.value_bits(), prescaled.value_bits());
  EXPECT_EQ(a, b);
}

TEST(AdamWStepOptions, RejectedOptionsChangeNothing) {
  Fixture fixture;
  AdamW optimizer(config(), groups());
  fixture.seed_gradient(1);
  optimizer.step(fixture.set);
  fixture.seed_gradient(2);
  const AdamW before = optimizer;
  const auto values = fixture.value_bits();
  const std::uint64_t version = fixture.weight.version();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Case {
    AdamWStepOptions options;
    AdamWErrorKind kind;
  };
  for (const Case& c : std::vector<Case>{
           {{.learning_rate = 0.0}, AdamWErrorKind::InvalidLearningRate},
           {{.learning_rate = nan}, AdamWErrorKind::InvalidLearningRate},
           {{.learning_rate = 200.0}, AdamWErrorKind::InvalidDecayProduct},  // 200 * 0.01 = 2
           {{.gradient_scale = 1.5}, AdamWErrorKind::InvalidGradientScale},
           {{.gradient_scale = -0.5}, AdamWErrorKind::InvalidGradientScale},
           {{.learning_rate = 0.0, .gradient_scale = nan}, AdamWErrorKind::InvalidLearningRate},
       }) {
    EXPECT_EQ(capture_error<AdamWError>([&] { optimizer.step(fixture.set, c.options); })->kind(),
              c.kind);
    EXPECT_EQ(optimizer, before);
    EXPECT_EQ(fixture.value_bits(), values);
    EXPECT_EQ(fixture.weight.version(), version);
  }
}

// Double-buffered moments: a step writes the scratch buffers and swaps them
// in, so the storage of a moment alternates between two blocks and no step
// after the second allocates or copies one.
TEST(AdamW, MomentsAlternateBetweenTwoBuffers) {
  Fixture fixture;
  AdamW optimizer(config(), groups());
  std::vector<const double*> addresses;
  for (int t = 1; t <= 4; ++t) {
    fixture.seed_gradient(t);
    optimizer.step(fixture.set);
    addresses.push_back(optimizer.moments("layer.weight")->first.data());
  }
  EXPECT_NE(addresses[0], addresses[1]);
  EXPECT_EQ(addresses[0], addresses[2]);
  EXPECT_EQ(addresses[1], addresses[3]);
}

// Six steps straight against three, state() -> from_state(), three more: the
// values, the moments, the step count and the beta powers agree bit for bit.
TEST(AdamWState, AResumedOptimizerContinuesBitForBit) {
  Fixture straight, resumed;
  AdamW through(config(), groups());
  for (int t = 1; t <= 6; ++t) {
    straight.seed_gradient(t);
    through.step(straight.set, {.learning_rate = rate_of(t)});
  }
  AdamW first_half(config(), groups());
  for (int t = 1; t <= 3; ++t) {
    resumed.seed_gradient(t);
    first_half.step(resumed.set, {.learning_rate = rate_of(t)});
  }
  const AdamWState saved = first_half.state();
  EXPECT_EQ(saved.step_count, 3u);
  EXPECT_EQ(saved.beta1_power, 0.9 * 0.9 * 0.9);
  EXPECT_EQ(saved.moments.size(), 2u);
  AdamW second_half = AdamW::from_state(saved);
  EXPECT_EQ(second_half, first_half);
  for (int t = 4; t <= 6; ++t) {
    resumed.seed_gradient(t);
    second_half.step(resumed.set, {.learning_rate = rate_of(t)});
  }
  EXPECT_EQ(resumed.value_bits(), straight.value_bits());
  EXPECT_EQ(second_half.state(), through.state());
  EXPECT_EQ(std::bit_cast<std::uint64_t>(second_half.state().beta2_power),
            std::bit_cast<std::uint64_t>(through.state().beta2_power));
}

// A fresh optimizer (t = 0) round-trips too: no moments, powers exactly 1.
TEST(AdamWState, AFreshStateRoundTrips) {
  const AdamW fresh(config(), groups());
  EXPECT_EQ(AdamW::from_state(fresh.state()), fresh);
}

AdamWState trained_state() {
  Fixture fixture;
  AdamW optimizer(config(), groups());
  fixture.seed_gradient(1);
  optimizer.step(fixture.set);
  return optimizer.state();
}

AdamWStateErrorKind rejection(AdamWState state) {
  return capture_error<AdamWStateError>([&] { AdamW::from_state(std::move(state)); })->kind();
}

TEST(AdamWState, EveryMalformedStateIsRefusedWithItsKind) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  {
    AdamWState state = AdamW(config()).state();
    state.beta1_power = std::nextafter(1.0, 0.0);  // t = 0 needs exactly 1
    EXPECT_EQ(rejection(state), AdamWStateErrorKind::InvalidBetaPower);
  }
  {
    AdamWState state = trained_state();
    state.beta2_power = 1.0;  // after a step, below 1
    const auto error = capture_error<AdamWStateError>([&] { AdamW::from_state(state); });
    EXPECT_EQ(error->kind(), AdamWStateErrorKind::InvalidBetaPower);
    EXPECT_EQ(error->evidence().name, "beta2");
    EXPECT_STREQ(error->what(),
                 "the beta2 power must be exactly 1 at step 0 and finite in [0, 1) after it, got "
                 "1.0 at step 1");
  }
  {
    AdamWState state = trained_state();
    state.moments.clear();
    EXPECT_EQ(rejection(state), AdamWStateErrorKind::MomentPresence);
  }
  {
    AdamWState state = trained_state();
    state.moments[""] = state.moments.begin()->second;
    state.groups.reset();
    EXPECT_EQ(rejection(state), AdamWStateErrorKind::EmptyParameterName);
  }
  {
    AdamWState state = trained_state();
    state.moments["layer.gain"].shape = Shape{std::numeric_limits<std::size_t>::max(), 2};
    EXPECT_EQ(rejection(state), AdamWStateErrorKind::ShapeOverflow);
  }
  {
    AdamWState state = trained_state();
    state.moments["layer.gain"].second.push_back(0.0);
    const auto error = capture_error<AdamWStateError>([&] { AdamW::from_state(state); });
    EXPECT_EQ(error->kind(), AdamWStateErrorKind::MomentLengthMismatch);
    EXPECT_EQ(error->evidence().second_length, 3u);
  }
  {
    AdamWState state = trained_state();
    state.moments["layer.weight"].first[3] = nan;
    const auto error = capture_error<AdamWStateError>([&] { AdamW::from_state(state); });
    EXPECT_EQ(error->kind(), AdamWStateErrorKind::NonFiniteMoment);
    EXPECT_EQ(error->evidence().index, 3u);
    EXPECT_EQ(error->evidence().moment, "first");
  }
  {
    AdamWState state = trained_state();
    state.moments["layer.weight"].second[1] = -1e-30;
    EXPECT_EQ(rejection(state), AdamWStateErrorKind::NegativeSecondMoment);
  }
  {
    AdamWState state = trained_state();
    state.groups = AdamWParameterGroups::create({"layer.weight", "other.weight"}, {"layer.gain"});
    EXPECT_EQ(rejection(state), AdamWStateErrorKind::GroupsMismatch);
  }
}

TEST(AdamWParameterGroups, PartitionSplitsASetByAPredicate) {
  Fixture fixture;
  const AdamWParameterGroups groups = AdamWParameterGroups::partition(
      fixture.set, [](std::string_view name) { return !name.ends_with(".gain"); });
  EXPECT_EQ(groups.decay_names(), std::vector<std::string>{"layer.weight"});
  EXPECT_EQ(groups.no_decay_names(), std::vector<std::string>{"layer.gain"});
  EXPECT_EQ(capture_error<AdamWError>([] {
              AdamWParameterGroups::partition(ParameterSet{},
                                              [](std::string_view) { return true; });
            })->kind(),
            AdamWErrorKind::EmptyParameterGroups);
}

}  // namespace
}  // namespace llm
