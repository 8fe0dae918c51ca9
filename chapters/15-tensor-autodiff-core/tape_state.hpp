// The exact state a rejected request must leave behind: the bits of every
// watched node's value and stored gradient, and whether its saved context
// was released. Two snapshots compare equal only if nothing changed.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <vector>

#include "llm/autograd/tensor_value.hpp"

namespace ch15 {

struct TapeState {
  std::vector<std::vector<std::uint64_t>> values;
  std::vector<std::optional<std::vector<std::uint64_t>>> gradients;
  std::vector<bool> released;
  bool operator==(const TapeState&) const = default;
};

inline std::vector<std::uint64_t> bits_of(const llm::Tensor& tensor) {
  std::vector<std::uint64_t> bits;
  for (double value : tensor.values()) bits.push_back(std::bit_cast<std::uint64_t>(value));
  return bits;
}

inline TapeState tape_state(const std::vector<llm::TensorValue>& watched) {
  TapeState state;
  for (const llm::TensorValue& node : watched) {
    state.values.push_back(bits_of(node.value()));
    const std::optional<llm::Tensor> gradient = node.gradient();
    state.gradients.push_back(gradient ? std::optional(bits_of(*gradient)) : std::nullopt);
    state.released.push_back(node.is_released());
  }
  return state;
}

}  // namespace ch15
