// The shared stride walker: merged runs, odometer offsets, empty and rank-zero shapes.
#include "llm/tensor/strided_walk.hpp"

#include <gtest/gtest.h>

#include <array>
#include <tuple>
#include <vector>

namespace llm {
namespace {

using WalkRun = std::tuple<std::size_t, std::size_t, std::size_t>;  // first offset, step, count

std::vector<WalkRun> runs_of(const Shape& shape, const Strides& strides, std::size_t base) {
  std::vector<WalkRun> runs;
  for_each_run<1>(shape, {strides}, {base},
                  [&](const std::array<std::size_t, 1>& at, const std::array<std::size_t, 1>& step,
                      std::size_t count) { runs.emplace_back(at[0], step[0], count); });
  return runs;
}

TEST(ForEachRun, MergesAContiguousShapeIntoOneRun) {
  EXPECT_EQ(runs_of({2, 3, 4}, {12, 4, 1}, 5), (std::vector<WalkRun>{{5, 1, 24}}));
}

TEST(ForEachRun, WalksATransposeRowByRowWithoutMerging) {
  // [3, 2] with strides [1, 3]: rows start at 0, 1, 2 and step by 3.
  EXPECT_EQ(runs_of({3, 2}, {1, 3}, 0), (std::vector<WalkRun>{{0, 3, 2}, {1, 3, 2}, {2, 3, 2}}));
}

TEST(ForEachRun, WalksAColumnSliceAsOneRunPerRow) {
  // Chapter 09's slice: [2, 2] with strides [3, 1] from base 1 skips offset 3.
  EXPECT_EQ(runs_of({2, 2}, {3, 1}, 1), (std::vector<WalkRun>{{1, 1, 2}, {4, 1, 2}}));
}

TEST(ForEachRun, DropsExtentOneAxesAndStopsOnAnEmptyShape) {
  EXPECT_EQ(runs_of({2, 1, 3}, {3, 100, 1}, 0), (std::vector<WalkRun>{{0, 1, 6}}));
  EXPECT_EQ(runs_of({2, 0, 3}, {0, 3, 1}, 0), (std::vector<WalkRun>{}));
  EXPECT_EQ(runs_of({}, {}, 4), (std::vector<WalkRun>{{4, 0, 1}}));
}

TEST(ForEachOffset, KeepsEveryOperandInStepThroughABroadcast) {
  // out[2, 3] row-major, left [3] broadcast (stride 0 on axis 0), right [2, 1] broadcast.
  std::vector<std::array<std::size_t, 3>> visited;
  for_each_offset<3>({2, 3}, {Strides{3, 1}, Strides{0, 1}, Strides{1, 0}}, {0, 0, 10},
                     [&](const std::array<std::size_t, 3>& at) { visited.push_back(at); });
  const std::vector<std::array<std::size_t, 3>> expected = {{0, 0, 10}, {1, 1, 10}, {2, 2, 10},
                                                            {3, 0, 11}, {4, 1, 11}, {5, 2, 11}};
  EXPECT_EQ(visited, expected);
}

TEST(ForEachOffset, CarriesThroughThreeOuterAxes) {
  std::vector<std::size_t> offsets;
  for_each_offset<1>({2, 2, 2, 2}, {Strides{1, 2, 4, 8}}, {0},
                     [&](const std::array<std::size_t, 1>& at) { offsets.push_back(at[0]); });
  // Row-major coordinate (a, b, c, d) reads offset a + 2b + 4c + 8d.
  const std::vector<std::size_t> expected = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};
  EXPECT_EQ(offsets, expected);
}

}  // namespace
}  // namespace llm
