// TEMPORARY stand-in for chapter 17's SplitMix64 (src/llm/nn, branch nn):
// replaced by that generator as soon as it is merged. Same stream: the state
// advances by the golden-ratio increment and each draw is the mixed state.
#pragma once

#include <cstdint>

namespace llm {

class ShuffleGenerator {
 public:
  explicit ShuffleGenerator(std::uint64_t seed) noexcept : state_(seed) {}
  std::uint64_t next_u64() noexcept {
    state_ += 0x9e3779b97f4a7c15ULL;
    std::uint64_t value = state_;
    value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ULL;
    value = (value ^ (value >> 27)) * 0x94d049bb133111ebULL;
    return value ^ (value >> 31);
  }

 private:
  std::uint64_t state_;
};

}  // namespace llm
