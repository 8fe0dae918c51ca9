// Random and tiling windows over one token sequence (chapter 40).
#include "llm/training/random_windows.hpp"

#include <algorithm>
#include <cstdint>

#include "llm/training/train_run_config.hpp"  // TrainRunError

namespace llm {

// region: uniform-below
std::size_t uniform_below(std::size_t n, SplitMix64& generator) noexcept {
  // Reject the lowest (2^64 mod n) draws: what remains is a whole number of
  // copies of [0, n), so the remainder is uniform.
  const std::uint64_t bound = n;
  const std::uint64_t rejected_below = (0 - bound) % bound;
  std::uint64_t draw = generator.next_u64();
  while (draw < rejected_below) draw = generator.next_u64();
  return static_cast<std::size_t>(draw % bound);
}
// endregion: uniform-below

namespace {

[[noreturn]] void too_few_tokens(std::size_t tokens, std::size_t context) {
  throw TrainRunError(TrainRunErrorKind::TooFewTokens, {.tokens = tokens, .context = context});
}

// Copies the window at `offset` into row `row` of `batch` (already sized).
void copy_window(std::span<const TokenId> tokens, std::size_t offset, std::size_t row,
                 WindowBatch& batch) {
  const std::size_t t = batch.context;
  std::copy_n(tokens.begin() + static_cast<std::ptrdiff_t>(offset), t,
              batch.inputs.begin() + static_cast<std::ptrdiff_t>(row * t));
  std::copy_n(tokens.begin() + static_cast<std::ptrdiff_t>(offset + 1), t,
              batch.targets.begin() + static_cast<std::ptrdiff_t>(row * t));
}

WindowBatch empty_batch(std::size_t rows, std::size_t context) {
  WindowBatch batch;
  batch.batch = rows;
  batch.context = context;
  batch.offsets.resize(rows);
  batch.inputs.resize(rows * context);
  batch.targets.resize(rows * context);
  return batch;
}

}  // namespace

// region: sample-windows
WindowBatch sample_windows(std::span<const TokenId> tokens, std::size_t batch, std::size_t context,
                           SplitMix64& generator) {
  if (tokens.size() <= context) too_few_tokens(tokens.size(), context);
  WindowBatch windows = empty_batch(batch, context);
  for (std::size_t row = 0; row < batch; ++row) {
    const std::size_t offset = uniform_below(tokens.size() - context, generator);
    windows.offsets[row] = offset;
    copy_window(tokens, offset, row, windows);
  }
  return windows;
}
// endregion: sample-windows

WindowBatch windows_at(std::span<const TokenId> tokens, std::span<const std::size_t> offsets,
                       std::size_t context) {
  for (std::size_t offset : offsets) {
    if (offset >= tokens.size() || tokens.size() - offset < context + 1) {
      too_few_tokens(offset >= tokens.size() ? 0 : tokens.size() - offset, context);
    }
  }
  WindowBatch windows = empty_batch(offsets.size(), context);
  for (std::size_t row = 0; row < offsets.size(); ++row) {
    windows.offsets[row] = offsets[row];
    copy_window(tokens, offsets[row], row, windows);
  }
  return windows;
}

std::vector<std::size_t> tiling_offsets(std::size_t tokens, std::size_t context) {
  std::vector<std::size_t> offsets;
  if (context == 0) return offsets;
  for (std::size_t offset = 0; offset + context + 1 <= tokens; offset += context) {
    offsets.push_back(offset);
  }
  return offsets;
}

}  // namespace llm
