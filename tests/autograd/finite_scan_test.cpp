// The tape's finiteness scans (tensor_pass_support.hpp, tensor_finite_scan.cpp):
// every NaN and infinity is found wherever it sits (in a full vector block,
// in the tail, at either end), the sum test catches finite operands whose sum
// overflows, and the first non-finite index does not depend on the thread
// count or on which copy of the loop this CPU runs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <vector>

#include "llm/autograd/tensor_pass_support.hpp"
#include "llm/tensor/parallel.hpp"

namespace llm {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<double> finite_values(std::size_t count) {
  std::vector<double> values(count);
  for (std::size_t i = 0; i < count; ++i)
    values[i] = std::ldexp(1.0, static_cast<int>(i % 2000) - 1000);
  return values;
}

TEST(FiniteScan, FindsEveryNonFiniteValueWhereverItSits) {
  // 133 values: whole blocks of 32 (four 64-byte vectors), then a tail of 5.
  for (const double bad : {kInfinity, -kInfinity, kNaN}) {
    for (std::size_t at : {std::size_t{0}, std::size_t{31}, std::size_t{64}, std::size_t{127},
                           std::size_t{128}, std::size_t{132}}) {
      std::vector<double> values = finite_values(133);
      EXPECT_FALSE(tape_detail::contiguous_run_has_non_finite(values.data(), values.size()));
      values[at] = bad;
      EXPECT_TRUE(tape_detail::contiguous_run_has_non_finite(values.data(), values.size()))
          << bad << " at " << at;
      EXPECT_EQ(tape_detail::first_non_finite_in_run(values.data(), values.size()),
                std::optional<std::size_t>(at));
    }
  }
  EXPECT_FALSE(tape_detail::contiguous_run_has_non_finite(nullptr, 0));
}

TEST(FiniteScan, SumsTestTheSumNotTheOperands) {
  std::vector<double> left = finite_values(70), right = finite_values(70);
  EXPECT_FALSE(tape_detail::contiguous_sums_have_non_finite(left.data(), right.data(), 70));
  left[3] = std::numeric_limits<double>::max();
  right[3] = std::numeric_limits<double>::max();  // both finite, the sum is +inf
  EXPECT_TRUE(tape_detail::contiguous_sums_have_non_finite(left.data(), right.data(), 70));
  right[3] = -std::numeric_limits<double>::max();  // the sum is 0
  EXPECT_FALSE(tape_detail::contiguous_sums_have_non_finite(left.data(), right.data(), 70));
  right[69] = kNaN;  // in the tail
  EXPECT_TRUE(tape_detail::contiguous_sums_have_non_finite(left.data(), right.data(), 70));
}

TEST(FiniteScan, FirstIndexDoesNotDependOnTheThreadCount) {
  const std::size_t count = 3 * kMinimumPiece + 11;
  std::vector<double> values = finite_values(count);
  values[count - 1] = kNaN;                   // in the last piece
  values[2 * kMinimumPiece + 7] = kInfinity;  // in the last piece, earlier
  values[kMinimumPiece + 100] = -kInfinity;   // the first: in the second of three pieces
  for (std::size_t threads : {1, 2, 3}) {
    const std::size_t previous = set_thread_count(threads);
    EXPECT_EQ(tape_detail::first_non_finite_in_run(values.data(), count),
              std::optional<std::size_t>(kMinimumPiece + 100))
        << threads << " threads";
    set_thread_count(previous);
  }
}

}  // namespace
}  // namespace llm
