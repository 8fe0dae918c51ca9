// SplitMix64: the book's one random stream, exactly specified so that every
// machine draws the same numbers. Header-only and free of tensors, so Part I
// (the bigram's samples, chapter 7) can use it as well as initialization
// (chapter 17, which teaches it), shuffling (chapter 21) and sampling.
#pragma once

#include <cstdint>

namespace llm {

// region: splitmix64
/// SplitMix64 (Steele, Lea and Flood, 2014): a 64-bit state that advances by a
/// fixed odd constant, each draw a bijective mix of the new state. Tiny,
/// dependency-free and exactly specified, so every machine draws the same
/// numbers; not cryptographically secure. Copying a generator copies its
/// state, so a copy replays the same draws.
class SplitMix64 {
 public:
  /// A generator whose first draw advances `seed` (the raw state).
  explicit constexpr SplitMix64(std::uint64_t seed) noexcept : state_(seed) {}
  /// The state the next draw will advance; SplitMix64(state()) resumes here.
  constexpr std::uint64_t state() const noexcept { return state_; }

  /// The next 64-bit draw: state += 0x9e3779b97f4a7c15, then two
  /// xor-shift-multiply rounds and a final xor-shift of the new state.
  constexpr std::uint64_t next_u64() noexcept {
    state_ += 0x9e3779b97f4a7c15ULL;  // unsigned: wraps modulo 2^64
    std::uint64_t mixed = state_;
    mixed = (mixed ^ (mixed >> 30)) * 0xbf58476d1ce4e5b9ULL;
    mixed = (mixed ^ (mixed >> 27)) * 0x94d049bb133111ebULL;
    return mixed ^ (mixed >> 31);
  }

  /// A double in [0, 1): the draw's top 53 bits times 2^-53. Every result is
  /// a multiple of 2^-53, exactly representable, so no rounding happens.
  constexpr double next_unit() noexcept {
    return static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
  }

 private:
  std::uint64_t state_;
};
// endregion: splitmix64

}  // namespace llm
