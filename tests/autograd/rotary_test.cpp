// The rotary table and rotary_pairs: chapter 29's worked table, rotations,
// loss and gradients; norms kept and dot products depending only on the
// position difference; the offset; VJPs against central differences through
// rank-four and strided inputs; and every refusal leaving the tape unchanged.
#include "llm/autograd/rotary.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "llm/tensor/matmul.hpp"
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
using testing::values_of;

const std::vector<double> kChapter29Input{1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0};
const std::vector<double> kQueryUpstream{1.0, -0.5, 0.25, 0.75, -0.3, 0.8,
                                         1.2, -0.4, 0.6,  0.1,  -0.7, 0.9};
const std::vector<double> kKeyUpstream{-0.2, 0.4, 0.9, -0.6, 0.5, 1.1,
                                       -0.8, 0.3, 1.0, -0.9, 0.2, 0.7};

// Pairs rotated with plain loops, for central differences.
Tensor rotated_by_loops(const Tensor& x, const RotaryTable& table, std::size_t offset) {
  const std::size_t width = x.shape().back();
  const std::size_t tokens = x.shape()[x.rank() - 2];
  Tensor y = x;
  for (std::size_t row = 0; row < x.size() / width; ++row) {
    const std::size_t position = offset + row % tokens;
    for (std::size_t pair = 0; pair < width / 2; ++pair) {
      const std::array<std::size_t, 2> at{position, pair};
      const double c = table.cosines().at(at);
      const double s = table.sines().at(at);
      const double a = x.values()[row * width + 2 * pair];
      const double b = x.values()[row * width + 2 * pair + 1];
      y.mutable_values()[row * width + 2 * pair] = a * c - b * s;
      y.mutable_values()[row * width + 2 * pair + 1] = a * s + b * c;
    }
  }
  return y;
}

TEST(RotaryTable, ReproducesChapter29sFrequenciesCosinesAndSines) {
  const RotaryTable table(4, 6, 100.0);
  EXPECT_EQ(table.width(), 4u);
  EXPECT_EQ(table.pairs(), 2u);
  EXPECT_EQ(table.capacity(), 6u);
  EXPECT_EQ(printed(table.inverse_frequencies()), "[1.000000,0.100000]");
  EXPECT_EQ(printed(table.cosines().slice(0, 0, 3)),
            "[1.000000,1.000000,0.540302,0.995004,-0.416147,0.980067]");
  EXPECT_EQ(printed(table.sines().slice(0, 0, 3)),
            "[0.000000,0.000000,0.841471,0.099833,0.909297,0.198669]");
  EXPECT_EQ(table.cosines().shape(), (Shape{6, 2}));
}

TEST(RotaryPairs, ReproducesChapter29sRotationsLossAndGradients) {
  const RotaryTable table(4, 6, 100.0);
  const TensorValue query = TensorValue::parameter(tensor({3, 4}, kChapter29Input));
  const TensorValue key = TensorValue::parameter(tensor({3, 4}, kChapter29Input));
  const TensorValue rotated_query = rotary_pairs(query, table, 0);
  const TensorValue rotated_key = table.rotate(key, 0);
  EXPECT_EQ(rotated_query.operation(), kRotaryPairs);
  EXPECT_EQ(printed(rotated_query.value()),
            "[1.000000,0.000000,1.000000,0.000000,0.540302,0.841471,0.995004,0.099833,"
            "-0.416147,0.909297,0.980067,0.198669]");
  // Position zero is the identity, bit for bit.
  const SharedTensor first = rotated_query.value();
  EXPECT_EQ(bits_of(first.slice(0, 0, 1)), bits_of(tensor({1, 4}, {1, 0, 1, 0})));
  const TensorValue query_loss =
      rotated_query.mul(TensorValue::constant(tensor({3, 4}, kQueryUpstream)))
          .sum_axis(1)
          .sum_axis(0);
  const TensorValue key_loss =
      rotated_key.mul(TensorValue::constant(tensor({3, 4}, kKeyUpstream))).sum_axis(1).sum_axis(0);
  const TensorValue loss = query_loss.add(key_loss);
  EXPECT_EQ(format_fixed(loss.value().at({}), 6), "2.479438");
  loss.backward();
  EXPECT_EQ(printed(SharedTensor::copy_of(*query.gradient())),
            "[1.000000,-0.500000,0.250000,0.750000,0.511086,0.684683,1.154072,-0.517802,"
            "-0.158758,-0.587193,-0.507244,1.021128]");
  EXPECT_EQ(printed(SharedTensor::copy_of(*key.gradient())),
            "[-0.200000,0.400000,0.900000,-0.600000,1.195769,0.173597,-0.766053,0.378368,"
            "-1.234515,-0.534765,0.335082,0.646313]");
}

TEST(RotaryPairs, KeepsNormsAndMakesDotProductsDependOnThePositionDifferenceOnly) {
  const RotaryTable table(4, 6, 100.0);
  const TensorValue input = TensorValue::constant(tensor({3, 4}, kChapter29Input));
  const SharedTensor at_zero = rotary_pairs(input, table, 0).value();
  const SharedTensor at_three = rotary_pairs(input, table, 3).value();
  const SharedTensor at_zero_t = at_zero.matrix_transpose();
  const SharedTensor at_three_t = at_three.matrix_transpose();
  const Tensor grid = matmul(at_zero, at_zero_t);
  const Tensor shifted = matmul(at_three, at_three_t);
  EXPECT_EQ(printed(SharedTensor::copy_of(grid)),
            "[2.000000,1.535306,0.563920,1.535306,2.000000,1.535306,0.563920,1.535306,2.000000]");
  for (std::size_t i = 0; i < grid.size(); ++i) {
    EXPECT_NEAR(grid.values()[i], shifted.values()[i], 1e-12);
  }
  for (std::size_t row = 0; row < 3; ++row) {
    EXPECT_NEAR(grid.values()[row * 4], 2.0, 1e-12);  // |rotated|^2 = |x|^2 = 2
    EXPECT_NEAR(shifted.values()[row * 4], 2.0, 1e-12);
  }
}

TEST(RotaryPairs, VjpIsTheInverseRotationForAnyLeadingAxesOffsetAndStrides) {
  const RotaryTable table(4, 8, 100.0);
  expect_vjp_matches(
      "rotary_pairs [2, 2, 3, 4] at offset 2", filled({2, 2, 3, 4}),
      [&](const TensorValue& p) { return rotary_pairs(p, table, 2); },
      [&](const Tensor& p) { return rotated_by_loops(p, table, 2); });
  expect_vjp_matches(
      "rotary_pairs of [2, 3, 2, 4] permuted to [2, 2, 3, 4] (heads split)", filled({2, 3, 2, 4}),
      [&](const TensorValue& p) {
        return rotary_pairs(p.permute({0, 2, 1, 3}), table, 5);
      },
      [&](const Tensor& p) {
        return rotated_by_loops(p.view().permute({0, 2, 1, 3}).materialize(), table, 5);
      });
}

TEST(RotaryPairs, AcceptsEmptyLeadingAxesAndEmptyTokenAxesUpToTheCapacity) {
  const RotaryTable table(4, 6, 100.0);
  EXPECT_EQ(rotary_pairs(TensorValue::constant(Tensor::zeros({0, 3, 4})), table, 1).shape(),
            (Shape{0, 3, 4}));
  EXPECT_EQ(rotary_pairs(TensorValue::constant(Tensor::zeros({2, 0, 4})), table, 6).shape(),
            (Shape{2, 0, 4}));
  EXPECT_EQ(rotary_pairs(TensorValue::constant(Tensor::zeros({2, 2, 3, 4})), table, 1).shape(),
            (Shape{2, 2, 3, 4}));
}

TEST(RotaryTable, RefusesEachBadSpecificationInOrder) {
  auto kind_of = [](auto call) { return capture_error<DecoderOpError>(call)->kind(); };
  EXPECT_EQ(kind_of([] { RotaryTable(0, 6, 100.0); }), DecoderOpErrorKind::RotaryZeroWidth);
  EXPECT_EQ(kind_of([] { RotaryTable(3, 0, 100.0); }), DecoderOpErrorKind::RotaryOddWidth);
  EXPECT_EQ(kind_of([] { RotaryTable(4, 0, 0.0); }), DecoderOpErrorKind::RotaryZeroCapacity);
  EXPECT_EQ(kind_of([] { RotaryTable(4, 6, 0.0); }), DecoderOpErrorKind::RotaryInvalidBase);
  EXPECT_EQ(kind_of([] { RotaryTable(4, 6, std::numeric_limits<double>::infinity()); }),
            DecoderOpErrorKind::RotaryInvalidBase);
  // The smallest subnormal base: base^(-2p/100) overflows from pair 48 on.
  const auto huge = capture_error<DecoderOpError>(
      [] { RotaryTable(100, 1, std::numeric_limits<double>::denorm_min()); });
  EXPECT_EQ(huge->kind(), DecoderOpErrorKind::RotaryNonFiniteTable);
  EXPECT_EQ(huge->evidence().pair, 48u);
  EXPECT_STREQ(capture_error<DecoderOpError>([] { RotaryTable(3, 6, 100.0); })->what(),
               "a rotary table rotates adjacent feature pairs, so its width must be even, got 3");
}

TEST(RotaryPairs, RefusesRankWidthAndPositionRangeBeforeRecording) {
  const RotaryTable table(4, 3, 100.0);
  const TensorValue vector = TensorValue::parameter(Tensor::zeros({4}));
  const TensorValue narrow = TensorValue::parameter(Tensor::zeros({1, 2}));
  const TensorValue two = TensorValue::parameter(Tensor::zeros({2, 4}));
  const auto before = tape_state({vector, narrow, two});
  EXPECT_EQ(capture_error<DecoderOpError>([&] { rotary_pairs(vector, table, 0); })->kind(),
            DecoderOpErrorKind::RotaryInputRank);
  const auto width = capture_error<DecoderOpError>([&] { rotary_pairs(narrow, table, 0); });
  EXPECT_EQ(width->kind(), DecoderOpErrorKind::RotaryWidthMismatch);
  EXPECT_EQ(width->evidence().expected, 4u);
  const auto range = capture_error<DecoderOpError>([&] { rotary_pairs(two, table, 2); });
  EXPECT_EQ(range->kind(), DecoderOpErrorKind::RotaryPositionRange);
  EXPECT_STREQ(range->what(),
               "rotary_pairs positions from 2 for 2 tokens exceed the table's capacity 3");
  const auto overflow = capture_error<DecoderOpError>(
      [&] { rotary_pairs(two, table, std::numeric_limits<std::size_t>::max()); });
  EXPECT_EQ(overflow->kind(), DecoderOpErrorKind::RotaryPositionRange);
  EXPECT_EQ(tape_state({vector, narrow, two}), before);
}

}  // namespace
}  // namespace llm
