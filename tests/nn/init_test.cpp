// SplitMix64 against its published seed-0 stream, the exact mapping to
// doubles, Xavier scales and the chapter 17 seed-17 weights bit for bit, and
// the strong guarantee of every rejected request (generator unchanged).
#include "llm/nn/init.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::bits_of;
using testing::capture_error;

TEST(SplitMix64, MatchesTheSeedZeroReferenceStream) {
  SplitMix64 generator(0);
  EXPECT_EQ(generator.next_u64(), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(generator.next_u64(), 0x6e789e6aa1b965f4ULL);
  EXPECT_EQ(generator.next_u64(), 0x06c45d188009454fULL);
  EXPECT_EQ(generator.next_u64(), 0xf88bb8a8724c81ecULL);
}

TEST(SplitMix64, StateResumesAndCopiesReplay) {
  SplitMix64 generator(17);
  const std::uint64_t first = generator.next_u64();
  SplitMix64 copy = generator;
  SplitMix64 resumed(generator.state());
  const std::uint64_t next = copy.next_u64();
  EXPECT_NE(first, next);
  EXPECT_EQ(resumed.next_u64(), next);
  EXPECT_EQ(resumed.state(), copy.state());
  EXPECT_EQ(generator.state(), 17 + 0x9e3779b97f4a7c15ULL);
}

TEST(SplitMix64, UnitValuesAreMultiplesOfTwoToTheMinus53InTheHalfOpenInterval) {
  SplitMix64 generator(0);
  SplitMix64 raw(0);
  for (int i = 0; i < 10000; ++i) {
    const double unit = generator.next_unit();
    const std::uint64_t draw = raw.next_u64();
    EXPECT_EQ(unit, std::ldexp(static_cast<double>(draw >> 11), -53));
    ASSERT_GE(unit, 0.0);
    ASSERT_LT(unit, 1.0);
  }
}

TEST(XavierScale, MatchesTheFormula) {
  const XavierScale square = xavier_scale(2, 2);
  EXPECT_EQ(square.target_variance, 0.5);
  EXPECT_EQ(square.standard_deviation, std::sqrt(0.5));
  EXPECT_EQ(square.uniform_limit, std::sqrt(1.5));
  const XavierScale wider = xavier_scale(4, 2);
  EXPECT_EQ(wider.target_variance, 1.0 / 3.0);
  EXPECT_EQ(wider.uniform_limit, 1.0);
}

TEST(XavierUniform, SeedSeventeenGivesTheChapterWeightsBitForBit) {
  SplitMix64 generator(17);
  const Tensor weights = xavier_uniform(2, 2, generator);
  EXPECT_EQ(weights.shape(), (Shape{2, 2}));
  EXPECT_EQ(bits_of(weights),
            (std::vector<std::uint64_t>{0x3f744760bbbfc4e2ULL, 0xbfd10508068942adULL,
                                        0xbfdae98b1d44f6aeULL, 0xbfe5a45c1710f8d8ULL}));
  EXPECT_EQ(generator.state(), 17 + 4 * 0x9e3779b97f4a7c15ULL);
}

TEST(XavierUniform, SameSeedReproducesAndOneStreamSeparatesMatrices) {
  SplitMix64 left(17);
  SplitMix64 right(17);
  const Tensor a = xavier_uniform(2, 2, left);
  EXPECT_EQ(bits_of(a), bits_of(xavier_uniform(2, 2, right)));
  EXPECT_NE(bits_of(a), bits_of(xavier_uniform(2, 2, left)));
  SplitMix64 other(18);
  EXPECT_NE(bits_of(a), bits_of(xavier_uniform(2, 2, other)));
}

TEST(XavierUniform, ValuesStayInsideTheLimit) {
  SplitMix64 generator(9);
  const Tensor weights = xavier_uniform(3, 5, generator);
  const double limit = xavier_scale(3, 5).uniform_limit;
  for (double value : weights.values()) {
    EXPECT_GE(value, -limit);
    EXPECT_LT(value, limit);
  }
  EXPECT_EQ(generator.state(), 9 + 15 * 0x9e3779b97f4a7c15ULL);
}

TEST(XavierUniform, RejectedRequestsLeaveTheGeneratorUnchanged) {
  constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
  SplitMix64 generator(23);
  generator.next_u64();
  const std::uint64_t state = generator.state();
  EXPECT_EQ(capture_error<ParameterError>([&] { xavier_uniform(0, 2, generator); })->kind(),
            ParameterErrorKind::ZeroFanIn);
  EXPECT_EQ(capture_error<ParameterError>([&] { xavier_uniform(0, 0, generator); })->kind(),
            ParameterErrorKind::ZeroFanIn);
  EXPECT_EQ(capture_error<ParameterError>([&] { xavier_uniform(1, 0, generator); })->kind(),
            ParameterErrorKind::ZeroFanOut);
  const auto sum = capture_error<ParameterError>([&] { xavier_uniform(kMax, 1, generator); });
  EXPECT_EQ(sum->kind(), ParameterErrorKind::FanSumOverflow);
  EXPECT_EQ(sum->fan_in(), kMax);
  EXPECT_EQ(
      capture_error<ParameterError>([&] { xavier_uniform(kMax / 2 + 1, 2, generator); })->kind(),
      ParameterErrorKind::ShapeProductOverflow);
  // Fits size_t, not memory: the tensor library's AllocationFailed, nothing drawn.
  const auto memory =
      capture_error<TensorError>([&] { xavier_uniform(std::size_t{1} << 31, 1 << 30, generator); });
  EXPECT_EQ(memory->kind(), TensorErrorKind::AllocationFailed);
  EXPECT_EQ(generator.state(), state);
}

TEST(AddXavierUniform, ChecksNameAndUniquenessBeforeDrawing) {
  ParameterSet set;
  SplitMix64 generator(17);
  const TensorValue query =
      add_xavier_uniform(set, "decoder.block.0.attention.query.weight", 2, 2, generator);
  EXPECT_TRUE(query.is_parameter());
  EXPECT_EQ(bits_of(query.value()),
            (std::vector<std::uint64_t>{0x3f744760bbbfc4e2ULL, 0xbfd10508068942adULL,
                                        0xbfdae98b1d44f6aeULL, 0xbfe5a45c1710f8d8ULL}));
  const std::uint64_t state = generator.state();
  const auto invalid = capture_error<ParameterError>(
      [&] { add_xavier_uniform(set, "Decoder.weight", 2, 2, generator); });
  EXPECT_EQ(invalid->kind(), ParameterErrorKind::InvalidName);
  EXPECT_EQ(invalid->kind_name(), "invalid-name");
  const auto duplicate = capture_error<ParameterError>(
      [&] { add_xavier_uniform(set, "decoder.block.0.attention.query.weight", 2, 2, generator); });
  EXPECT_EQ(duplicate->kind(), ParameterErrorKind::DuplicateName);
  EXPECT_EQ(duplicate->index(), 0u);
  EXPECT_EQ(capture_error<ParameterError>([&] {
              add_xavier_uniform(set, "decoder.invalid.weight", 0, 2, generator);
            })->kind_name(),
            "zero-fan-in");
  EXPECT_EQ(generator.state(), state);
  EXPECT_EQ(set.size(), 1u);
}

}  // namespace
}  // namespace llm
