// Chapter 33: the learning-rate schedule's checks and global-norm clipping:
// untouched below the threshold, rescaled to the threshold above it, the
// underflow fallback, and a refused clip that changes no gradient.
#include "llm/training/gradient_clipping.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "llm/training/learning_rate_schedule.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::bits_of;
using testing::capture_error;
using testing::values_of;

struct Model {
  TensorValue a = TensorValue::parameter(Tensor(Shape{2}, {0.0, 0.0}));
  TensorValue b = TensorValue::parameter(Tensor(Shape{3}, {0.0, 0.0, 0.0}));
  ParameterSet set;
  Model(std::vector<double> ga, std::vector<double> gb) {
    set.add("a.weight", a);
    set.add("b.weight", b);
    a.backward_with_seed(Tensor(Shape{2}, std::move(ga)), Retention::Retain);
    b.backward_with_seed(Tensor(Shape{3}, std::move(gb)), Retention::Retain);
  }
};

TEST(LearningRateSchedule, HoldsOneRatePerUpdateFromOne) {
  const auto schedule = LearningRateSchedule::create({0.04, 0.04, 0.025});
  EXPECT_EQ(schedule.steps(), 3u);
  EXPECT_EQ(schedule.learning_rate(1), 0.04);
  EXPECT_EQ(schedule.learning_rate(3), 0.025);
  EXPECT_FALSE(schedule.learning_rate(0));
  EXPECT_FALSE(schedule.learning_rate(4));
}

TEST(LearningRateSchedule, RejectsAnEmptyPlanAndEachBadRate) {
  EXPECT_EQ(capture_error<TrainingError>([] { LearningRateSchedule::create({}); })->kind(),
            TrainingErrorKind::EmptySchedule);
  for (double bad : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN(),
                     std::numeric_limits<double>::infinity()}) {
    const auto error = capture_error<TrainingError>([&] {
      LearningRateSchedule::create({0.1, bad});
    });
    EXPECT_EQ(error->kind(), TrainingErrorKind::InvalidScheduledRate);
    EXPECT_EQ(error->evidence().step, 2u);
  }
}

TEST(ClipGradientNorm, LeavesGradientsBelowTheThresholdAlone) {
  Model model({3.0, 0.0}, {4.0, 0.0, 0.0});  // norm 5
  const auto before = bits_of(*model.b.gradient());
  const GradientClip clip = clip_gradient_norm(model.set, 5.0);
  EXPECT_FALSE(clip.clipped);
  EXPECT_EQ(clip.norm_before, 5.0);
  EXPECT_EQ(clip.norm_after, 5.0);
  EXPECT_EQ(clip.multiplier, 1.0);
  EXPECT_EQ(bits_of(*model.b.gradient()), before);
  Model zero({0.0, 0.0}, {0.0, 0.0, 0.0});
  EXPECT_FALSE(clip_gradient_norm(zero.set, 1.0).clipped);
}

TEST(ClipGradientNorm, RescalesEveryGradientToTheThreshold) {
  Model model({3.0, 0.0}, {0.0, -4.0, 12.0});  // norm 13
  const std::uint64_t version = model.b.version();
  const GradientClip clip = clip_gradient_norm(model.set, 0.35);
  EXPECT_TRUE(clip.clipped);
  EXPECT_EQ(clip.norm_before, 13.0);
  EXPECT_EQ(clip.norm_after, 0.35);
  const double factor = 0.35 / 12.0 / (13.0 / 12.0);  // (c / largest) / scaled root
  EXPECT_EQ(clip.multiplier, factor);
  EXPECT_EQ(clip.divisor, 1.0);
  EXPECT_EQ(values_of(*model.a.gradient()), (std::vector<double>{3.0 * factor, 0.0}));
  EXPECT_EQ(values_of(*model.b.gradient()),
            (std::vector<double>{0.0, -4.0 * factor, 12.0 * factor}));
  EXPECT_NEAR(model.set.gradient_norm().value, 0.35, 1e-16);
  EXPECT_EQ(model.b.version(), version);
}

// c / largest / root underflows to 0 for huge gradients and a tiny c: the
// clip divides by the largest element first and multiplies by c / root.
TEST(ClipGradientNorm, FallsBackToDividingFirstWhenTheFactorUnderflows) {
  const double max = std::numeric_limits<double>::max();
  Model model({max, max}, {0.0, 0.0, 0.0});
  ASSERT_EQ(1e-150 / max / std::sqrt(2.0), 0.0);
  const GradientClip clip = clip_gradient_norm(model.set, 1e-150);
  EXPECT_TRUE(clip.clipped);
  EXPECT_EQ(clip.norm_before, max);
  EXPECT_EQ(clip.divisor, max);
  EXPECT_EQ(clip.multiplier, 1e-150 / std::sqrt(2.0));
  for (double g : model.a.gradient()->values()) {
    EXPECT_GT(g, 0.0);
    EXPECT_EQ(g, 1e-150 / std::sqrt(2.0));
  }
  EXPECT_LE(std::hypot(model.a.gradient()->values()[0], model.a.gradient()->values()[1]),
            1e-150 * (1 + 1e-15));
}

TEST(ClipGradientNorm, ARefusedClipChangesNothing) {
  Model model({1.0, 1.0}, {1.0, 1.0, 0.0});  // largest 1, scaled root 2
  const auto before = bits_of(*model.a.gradient());
  for (double bad : {0.0, -1.0, std::numeric_limits<double>::infinity()}) {
    EXPECT_EQ(capture_error<TrainingError>([&] { clip_gradient_norm(model.set, bad); })->kind(),
              TrainingErrorKind::InvalidMaximumNorm);
  }
  const double smallest = std::numeric_limits<double>::denorm_min();
  const auto error = capture_error<TrainingError>([&] { clip_gradient_norm(model.set, smallest); });
  EXPECT_EQ(error->kind(), TrainingErrorKind::UnrepresentableClip);
  EXPECT_EQ(error->evidence().scaled_root, 2.0);
  EXPECT_EQ(bits_of(*model.a.gradient()), before);
}

}  // namespace
}  // namespace llm
