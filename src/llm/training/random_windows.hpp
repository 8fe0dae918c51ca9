// Batches of windows cut from one long token sequence (chapter 40), the way
// nanoGPT's train.py draws them in get_batch: B offsets uniform in
// [0, N - T), each giving an input row tokens[o, o + T) and a target row
// tokens[o + 1, o + T + 1). Unlike chapter 21's epochs over documents, the
// windows overlap and repeat: an update sees a random sample of the text,
// not a pass through it.
//
// The offsets come from a SplitMix64 generator (chapter 17) the caller owns,
// so a run that stores the generator's state in its checkpoint draws the same
// batches after a resume as it would have without the interruption.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "llm/nn/splitmix64.hpp"
#include "llm/token_id.hpp"

namespace llm {

// region: window-batch
/// B windows of T tokens and their next-token targets, row-major [B, T].
struct WindowBatch {
  std::size_t batch = 0;             ///< B, the rows
  std::size_t context = 0;           ///< T, the tokens per row
  std::vector<std::size_t> offsets;  ///< [B]: where each row starts in the sequence
  std::vector<TokenId> inputs;       ///< [B, T]: tokens[o, o + T)
  std::vector<TokenId> targets;      ///< [B, T]: tokens[o + 1, o + T + 1)
};
// endregion: window-batch

// region: random-windows
/// A uniform draw in [0, n) (n >= 1) from `generator`, by rejection of the
/// lowest 2^64 mod n draws, so that every value is equally likely.
std::size_t uniform_below(std::size_t n, SplitMix64& generator) noexcept;

/// `batch` windows of `context` tokens at offsets drawn one by one with
/// uniform_below(N - T), as nanoGPT's `torch.randint(len(data) - block_size,
/// (batch_size,))` draws them. Advances `generator` by at least `batch` draws.
/// @throws TrainRunError TooFewTokens when N <= T (no window has a target
///         after it); `generator` is then unchanged.
WindowBatch sample_windows(std::span<const TokenId> tokens, std::size_t batch, std::size_t context,
                           SplitMix64& generator);

/// The windows at `offsets`, in that order.
/// @throws TrainRunError TooFewTokens when an offset leaves less than T + 1
///         tokens (its target row would run past the end).
WindowBatch windows_at(std::span<const TokenId> tokens, std::span<const std::size_t> offsets,
                       std::size_t context);

/// The offsets 0, T, 2T, ... of every non-overlapping window whose targets
/// fit in N tokens (k T + T + 1 <= N): a pass over a whole partition in which
/// every token but the first few is predicted once.
std::vector<std::size_t> tiling_offsets(std::size_t tokens, std::size_t context);
// endregion: random-windows

}  // namespace llm
