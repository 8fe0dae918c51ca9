// Chapter 40's batches: windows at uniform offsets in [0, N - T) from a
// seeded stream (nanoGPT's get_batch), targets shifted by one, and the
// tiling pass over a whole partition.
#include "llm/training/random_windows.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "llm/training/train_run_config.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;

std::vector<TokenId> counting(std::size_t n) {
  std::vector<TokenId> tokens(n);
  std::iota(tokens.begin(), tokens.end(), TokenId{0});
  return tokens;
}

TEST(RandomWindows, RowsAreWindowsAndTargetsShiftByOne) {
  const std::vector<TokenId> tokens = counting(100);
  SplitMix64 generator(7);
  const WindowBatch batch = sample_windows(tokens, 3, 5, generator);
  ASSERT_EQ(batch.offsets.size(), 3u);
  for (std::size_t row = 0; row < 3; ++row) {
    const std::size_t offset = batch.offsets[row];
    EXPECT_LT(offset, 95u);
    for (std::size_t t = 0; t < 5; ++t) {
      EXPECT_EQ(batch.inputs[row * 5 + t], offset + t);
      EXPECT_EQ(batch.targets[row * 5 + t], offset + t + 1);
    }
  }
}

TEST(RandomWindows, OffsetsAreTheSeededUniformDraws) {
  const std::vector<TokenId> tokens = counting(100);
  SplitMix64 generator(7);
  SplitMix64 replay(7);
  const WindowBatch batch = sample_windows(tokens, 4, 5, generator);
  for (std::size_t row = 0; row < 4; ++row) {
    EXPECT_EQ(batch.offsets[row], uniform_below(95, replay));
  }
  EXPECT_EQ(generator.state(), replay.state());  // the stream a checkpoint stores
  // The first draw of seed 7, by hand: 95 divides no power of two, so the
  // rejection threshold 2^64 mod 95 is tiny and the first draw is kept.
  SplitMix64 by_hand(7);
  EXPECT_EQ(batch.offsets[0], by_hand.next_u64() % 95);
}

TEST(RandomWindows, EveryOffsetIsReachable) {
  const std::vector<TokenId> tokens = counting(8);  // offsets 0 .. 4 for T = 3
  SplitMix64 generator(1);
  std::vector<int> seen(5, 0);
  for (int i = 0; i < 500; ++i) ++seen[sample_windows(tokens, 1, 3, generator).offsets[0]];
  for (int count : seen) EXPECT_GT(count, 60);  // 100 expected each
}

TEST(RandomWindows, TooFewTokensLeavesTheGeneratorUnchanged) {
  const std::vector<TokenId> tokens = counting(5);
  SplitMix64 generator(3);
  const auto error = capture_error<TrainRunError>([&] { sample_windows(tokens, 2, 5, generator); });
  EXPECT_EQ(error->kind(), TrainRunErrorKind::TooFewTokens);
  EXPECT_EQ(error->evidence().tokens, 5u);
  EXPECT_EQ(generator.state(), 3u);
}

TEST(TilingOffsets, CoverAPartitionWithoutOverlap) {
  // Tiny Shakespeare's validation partition at nanoGPT's context.
  const std::vector<std::size_t> offsets = tiling_offsets(111'540, 64);
  ASSERT_EQ(offsets.size(), 1742u);
  EXPECT_EQ(offsets.back(), 1741u * 64u);
  EXPECT_EQ(tiling_offsets(65, 64), std::vector<std::size_t>{0});
  EXPECT_TRUE(tiling_offsets(64, 64).empty());
  const std::vector<TokenId> tokens = counting(11);
  const std::vector<std::size_t> at = {5, 0};
  const WindowBatch batch = windows_at(tokens, at, 5);
  EXPECT_EQ(batch.inputs, (std::vector<TokenId>{5, 6, 7, 8, 9, 0, 1, 2, 3, 4}));
  EXPECT_EQ(batch.targets, (std::vector<TokenId>{6, 7, 8, 9, 10, 1, 2, 3, 4, 5}));
  const std::vector<std::size_t> past_end = {6};
  EXPECT_EQ(capture_error<TrainRunError>([&] { windows_at(tokens, past_end, 5); })->kind(),
            TrainRunErrorKind::TooFewTokens);
}

}  // namespace
}  // namespace llm
