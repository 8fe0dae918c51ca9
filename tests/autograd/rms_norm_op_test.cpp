// rms_norm on the tape: chapter 25's worked numbers, the same forward bits as
// the composition from mul, mean_axis, add, rsqrt and mul, VJPs against
// central differences, and each refusal in its documented order.
#include "llm/autograd/rms_norm_op.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "llm/autograd/elementwise_ops.hpp"
#include "llm/autograd/inverse_square_root.hpp"
#include "llm/tensor/parallel.hpp"
#include "support/printed.hpp"
#include "tensor_tape_support.hpp"
#include "vjp_check_support.hpp"

namespace llm {
namespace {

using testing::bits_of;
using testing::capture_error;
using testing::expect_vjp_matches;
using testing::filled;
using testing::printed;
using testing::tape_state;
using testing::tensor;

constexpr double kEpsilon = 1e-5;

// The composition the fused operation reproduces: mean of squares along the
// feature axis, plus epsilon, rsqrt, times the input, times the gain.
TensorValue composed_rms_norm(const TensorValue& x, const TensorValue& gain, double epsilon) {
  const TensorValue mean_square = x.mul(x).mean_axis(x.rank() - 1, KeepDim::Yes);
  const TensorValue inverse_rms =
      rsqrt(mean_square.add(TensorValue::constant(Tensor::scalar(epsilon))));
  return x.mul(inverse_rms).mul(gain);
}

// The plain-kernel value for central differences, written independently.
Tensor rms_norm_by_loops(const Tensor& x, const Tensor& gain, double epsilon) {
  const std::size_t width = gain.size();
  Tensor y = x;
  std::span<double> values = y.mutable_values();
  for (std::size_t row = 0; row < values.size() / width; ++row) {
    double sum = 0.0;
    for (std::size_t d = 0; d < width; ++d)
      sum += x.values()[row * width + d] * x.values()[row * width + d];
    const double r = inverse_square_root(sum / static_cast<double>(width) + epsilon);
    for (std::size_t d = 0; d < width; ++d) values[row * width + d] *= r * gain.values()[d];
  }
  return y;
}

TEST(RmsNormOperation, ReproducesChapter25sWorkedNumbers) {
  const TensorValue x = TensorValue::parameter(tensor({2}, {3.0, 4.0}));
  const TensorValue gain = TensorValue::parameter(tensor({2}, {1.5, 0.5}));
  const TensorValue y = rms_norm(x, gain, kEpsilon);
  EXPECT_EQ(y.operation(), kRmsNorm);
  EXPECT_EQ(printed(y.value()), "[1.272792,0.565685]");
  y.backward_with_seed(tensor({2}, {1.0, -2.0}), Retention::Release);
  EXPECT_EQ(printed(SharedTensor::copy_of(*x.gradient())), "[0.407293,-0.305470]");
  EXPECT_EQ(printed(SharedTensor::copy_of(*gain.gradient())), "[0.848528,-2.262741]");
  // The reference edition's full-precision values, to the last bits that matter.
  EXPECT_NEAR(testing::values_of(y.value())[0], 1.2727916970192086, 1e-15);
  EXPECT_NEAR(x.gradient()->values()[0], 0.40729335662258065, 1e-14);
  EXPECT_NEAR(gain.gradient()->values()[1], -2.2627407947008153, 1e-14);
}

TEST(RmsNormOperation, NormalizesEveryRowOfABatch) {
  const TensorValue y = rms_norm(TensorValue::constant(tensor({2, 2}, {3, 4, 0, 5})),
                                 TensorValue::constant(tensor({2}, {1.5, 0.5})), kEpsilon);
  EXPECT_EQ(printed(y.value()), "[1.272792,0.565685,0.000000,0.707106]");
}

TEST(RmsNormOperation, HasTheComposedForwardBitsAndGainGradientBits) {
  const Tensor input = filled({2, 3, 4}, 2.0);
  const Tensor gains = filled({4}, 1.5);
  const Tensor seed = testing::seed_for({2, 3, 4});
  const TensorValue x_fused = TensorValue::parameter(input);
  const TensorValue g_fused = TensorValue::parameter(gains);
  const TensorValue x_composed = TensorValue::parameter(input);
  const TensorValue g_composed = TensorValue::parameter(gains);
  const TensorValue fused = rms_norm(x_fused, g_fused, kEpsilon);
  const TensorValue composed = composed_rms_norm(x_composed, g_composed, kEpsilon);
  EXPECT_EQ(bits_of(fused.value()), bits_of(composed.value()));
  fused.backward_with_seed(seed, Retention::Release);
  composed.backward_with_seed(seed, Retention::Release);
  // The gain's rule sums u (x r) over rows exactly as the composed mul does.
  EXPECT_EQ(bits_of(*g_fused.gradient()), bits_of(*g_composed.gradient()));
  // The input's rule is one formula where the composition adds three paths
  // (through x directly, through x^2 and the mean), so it agrees to rounding.
  for (std::size_t i = 0; i < input.size(); ++i) {
    EXPECT_NEAR(x_fused.gradient()->values()[i], x_composed.gradient()->values()[i], 1e-14);
  }
}

TEST(RmsNormOperation, VjpsMatchCentralDifferencesForInputAndGain) {
  const Tensor gains = filled({4}, 1.5);
  const Tensor input = filled({2, 3, 4}, 2.0);
  expect_vjp_matches(
      "input of rms_norm [2, 3, 4]", input,
      [&](const TensorValue& p) { return rms_norm(p, TensorValue::constant(gains), kEpsilon); },
      [&](const Tensor& p) { return rms_norm_by_loops(p, gains, kEpsilon); });
  expect_vjp_matches(
      "gain of rms_norm [2, 3, 4]", gains,
      [&](const TensorValue& p) { return rms_norm(TensorValue::constant(input), p, kEpsilon); },
      [&](const Tensor& p) { return rms_norm_by_loops(input, p, kEpsilon); });
  expect_vjp_matches(
      "input of rms_norm through a transpose, epsilon 0", filled({4, 3}),
      [&](const TensorValue& p) {
        return rms_norm(p.transpose(0, 1), TensorValue::constant(gains), 0.0);
      },
      [&](const Tensor& p) {
        return rms_norm_by_loops(p.view().transpose(0, 1).materialize(), gains, 0.0);
      });
}

TEST(RmsNormOperation, RefusesInTheDocumentedOrderAndChangesNothing) {
  const TensorValue x = TensorValue::parameter(tensor({2, 2}, {1, 2, 0, 0}));
  const TensorValue gain = TensorValue::parameter(tensor({2}, {1, 1}));
  const auto before = tape_state({x, gain});
  auto kind_of = [](auto call) { return capture_error<DecoderOpError>(call)->kind(); };
  EXPECT_EQ(kind_of([&] { rms_norm(TensorValue::constant(Tensor::scalar(1)), gain, -1.0); }),
            DecoderOpErrorKind::RmsNormInvalidEpsilon);
  EXPECT_EQ(kind_of([&] { rms_norm(x, gain, std::numeric_limits<double>::quiet_NaN()); }),
            DecoderOpErrorKind::RmsNormInvalidEpsilon);
  EXPECT_EQ(kind_of([&] { rms_norm(TensorValue::constant(Tensor::scalar(1)), gain, 0.0); }),
            DecoderOpErrorKind::RmsNormInputRank);
  EXPECT_EQ(kind_of([&] {
              rms_norm(x, TensorValue::constant(Tensor::zeros({1, 2})), 0.0);
            }),
            DecoderOpErrorKind::RmsNormGainRank);
  EXPECT_EQ(kind_of([&] {
              rms_norm(TensorValue::constant(Tensor::zeros({2, 0})),
                       TensorValue::constant(Tensor::zeros({0})), 1.0);
            }),
            DecoderOpErrorKind::RmsNormEmptyWidth);
  EXPECT_EQ(kind_of([&] { rms_norm(x, TensorValue::constant(Tensor::zeros({3})), 0.0); }),
            DecoderOpErrorKind::RmsNormWidthMismatch);
  const auto zero_row = capture_error<DecoderOpError>([&] { rms_norm(x, gain, 0.0); });
  EXPECT_EQ(zero_row->kind(), DecoderOpErrorKind::RmsNormZeroEnergyRow);
  EXPECT_EQ(zero_row->evidence().row, 1u);
  EXPECT_STREQ(zero_row->what(),
               "rms_norm with epsilon 0 met row 1 of shape [2, 2] whose mean square is 0");
  EXPECT_EQ(kind_of([&] {
              rms_norm(TensorValue::constant(tensor({2}, {1e200, 1e200})), gain, 0.0);
            }),
            DecoderOpErrorKind::RmsNormOverflow);
  EXPECT_EQ(tape_state({x, gain}), before);
  // With epsilon > 0 the all-zero row is fine: its output is exactly zero.
  EXPECT_EQ(printed(rms_norm(x, gain, kEpsilon).value()), "[0.632454,1.264909,0.000000,0.000000]");
}

// Rows split among three threads: the error still names the first bad row
// (in the second piece), though a later piece has one too, and the values
// and gradients equal one thread's bit for bit.
TEST(RmsNormOp, RowsSplitAmongThreadsKeepTheFirstErrorAndTheBits) {
  const std::size_t rows = 12'288, width = 4;  // three pieces of 4,096 rows
  std::vector<double> values(rows * width);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.25 + static_cast<double>(i % 7);
  const TensorValue gain = TensorValue::parameter(tensor({width}, {1.0, 0.5, -2.0, 3.0}));
  const auto forward_and_back = [&](std::size_t threads) {
    const std::size_t previous = set_thread_count(threads);
    const TensorValue x = TensorValue::parameter(tensor({rows, width}, values));
    const TensorValue y = rms_norm(x, gain, kEpsilon);
    y.backward_with_seed(Tensor::filled(Shape{rows, width}, 0.5), Retention::Release);
    set_thread_count(previous);
    return std::vector{bits_of(y.value()), bits_of(*x.gradient())};
  };
  EXPECT_EQ(forward_and_back(3), forward_and_back(1));

  std::vector<double> zero_rows = values;
  for (std::size_t row : {std::size_t{5'000}, std::size_t{10'000}}) {
    std::fill_n(zero_rows.begin() + static_cast<std::ptrdiff_t>(row * width), width, 0.0);
  }
  const std::size_t previous = set_thread_count(3);
  const TensorValue x = TensorValue::constant(tensor({rows, width}, zero_rows));
  const auto error = capture_error<DecoderOpError>([&] { rms_norm(x, gain, 0.0); });
  set_thread_count(previous);
  EXPECT_EQ(error->kind(), DecoderOpErrorKind::RmsNormZeroEnergyRow);
  EXPECT_EQ(error->evidence().row, 5'000u);
}

}  // namespace
}  // namespace llm
