// The three Rust-compatible number formats the book prints.
#include "llm/format.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace llm {
namespace {

constexpr double nan_value = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_value = std::numeric_limits<double>::infinity();

TEST(FormatFixed, PrintsTwelveFractionalDigits) {
  EXPECT_EQ(format_fixed(0.5), "0.500000000000");
  EXPECT_EQ(format_fixed(2.7752687964716), "2.775268796472");
  EXPECT_EQ(format_fixed(-0.3776357644806), "-0.377635764481");
  EXPECT_EQ(format_fixed(10.25), "10.250000000000");
  EXPECT_EQ(format_fixed(1.0, 3), "1.000");
}

TEST(FormatFixed, SpellsNonFiniteValuesLikeRust) {
  EXPECT_EQ(format_fixed(nan_value), "NaN");
  EXPECT_EQ(format_fixed(inf_value), "inf");
  EXPECT_EQ(format_fixed(-inf_value), "-inf");
}

TEST(FormatScientific, WritesTheExponentWithoutSignPaddingOrPlus) {
  EXPECT_EQ(format_scientific(0.0, 12), "0.000000000000e0");
  EXPECT_EQ(format_scientific(1.0 / 12.0, 12), "8.333333333333e-2");
  EXPECT_EQ(format_scientific(1e-6, 12), "1.000000000000e-6");
  EXPECT_EQ(format_scientific(2.0, 12), "2.000000000000e0");
  EXPECT_EQ(format_scientific(1.5e300, 3), "1.500e300");
  EXPECT_EQ(format_scientific(-2.5e-5, 2), "-2.50e-5");
}

TEST(FormatScientific, ShowsTheStoredDoubleWithSeventeenDigits) {
  EXPECT_EQ(format_scientific(1.0000000000000000555e-1, 17), "1.00000000000000006e-1");
  EXPECT_EQ(format_scientific(0.5, 17), "5.00000000000000000e-1");
  EXPECT_EQ(format_scientific(1e-5, 17), "1.00000000000000008e-5");
}

TEST(FormatScientific, SpellsNonFiniteValuesLikeRust) {
  EXPECT_EQ(format_scientific(nan_value, 12), "NaN");
  EXPECT_EQ(format_scientific(inf_value, 12), "inf");
  EXPECT_EQ(format_scientific(-inf_value, 12), "-inf");
}

TEST(FormatShortest, UsesTheFewestRoundTripDigits) {
  EXPECT_EQ(format_shortest(0.1), "0.1");
  EXPECT_EQ(format_shortest(1.0), "1.0");
  EXPECT_EQ(format_shortest(-2.0), "-2.0");
  EXPECT_EQ(format_shortest(0.0), "0.0");
  EXPECT_EQ(format_shortest(-0.0), "-0.0");
  EXPECT_EQ(format_shortest(123456.75), "123456.75");
  EXPECT_EQ(format_shortest(0.0001), "0.0001");
}

TEST(FormatShortest, SwitchesToExponentNotationOutsideTheMiddleRange) {
  EXPECT_EQ(format_shortest(1e-20), "1e-20");
  EXPECT_EQ(format_shortest(1e-5), "1e-5");
  EXPECT_EQ(format_shortest(1e16), "1e16");
  EXPECT_EQ(format_shortest(1.5e16), "1.5e16");
  EXPECT_EQ(format_shortest(-2.5e-7), "-2.5e-7");
  EXPECT_EQ(format_shortest(1e15), "1000000000000000.0");
}

TEST(FormatShortest, SpellsNonFiniteValuesLikeRust) {
  EXPECT_EQ(format_shortest(nan_value), "NaN");
  EXPECT_EQ(format_shortest(inf_value), "inf");
  EXPECT_EQ(format_shortest(-inf_value), "-inf");
}

TEST(FormatList, FormatsValuesIndicesAndCoordinates) {
  const std::vector<double> values = {0.0, 1.0, -1.0, 2.0, 0.0, -2.0};
  EXPECT_EQ(format_list(std::span<const double>(values)), "[0.0, 1.0, -1.0, 2.0, 0.0, -2.0]");
  const std::vector<std::size_t> targets = {0, 2};
  EXPECT_EQ(format_list(std::span<const std::size_t>(targets)), "[0, 2]");
  EXPECT_EQ(format_list(std::vector<std::vector<std::size_t>>{{0, 0}, {0, 1}, {1, 0}, {1, 2}}),
            "[[0, 0], [0, 1], [1, 0], [1, 2]]");
  EXPECT_EQ(format_list(std::span<const double>()), "[]");
}

}  // namespace
}  // namespace llm
