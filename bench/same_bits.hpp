// Whether two tensors hold the same doubles bit for bit: our products are
// checked against the textbook loop before they are timed (the counter
// `bit_identical`).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include "llm/tensor/tensor.hpp"

namespace bench {

/// True when `a` and `b` have as many values and each pair has the same bits
/// (0.0 and -0.0 differ; a NaN equals itself).
inline bool same_bits(const llm::Tensor& a, const llm::Tensor& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (std::bit_cast<std::uint64_t>(a.values()[k]) !=
        std::bit_cast<std::uint64_t>(b.values()[k])) {
      return false;
    }
  }
  return true;
}

}  // namespace bench
