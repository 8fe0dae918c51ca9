// The exact state a rejected request must leave behind on a set of nodes:
// the bits of every value and stored gradient, whether the node's saved
// context was released, and its version. Two snapshots compare equal only if
// nothing changed. The same four facts the tape's own tests compare.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "demo_bits.hpp"
#include "llm/autograd/tensor_value.hpp"

namespace ch15 {

/// One snapshot, one entry per watched node in each field.
struct TapeState {
  std::vector<std::vector<std::uint64_t>> values;
  std::vector<std::optional<std::vector<std::uint64_t>>> gradients;  ///< empty: not a parameter
  std::vector<bool> released;
  std::vector<std::uint64_t> versions;  ///< assign() increments it
  bool operator==(const TapeState&) const = default;
};

/// The state of `watched` now.
inline TapeState tape_state(const std::vector<llm::TensorValue>& watched) {
  TapeState state;
  state.gradients = demo::gradient_bits(watched);
  for (const llm::TensorValue& node : watched) {
    state.values.push_back(demo::bits_of(node.value().materialize()));
    state.released.push_back(node.is_released());
    state.versions.push_back(node.version());
  }
  return state;
}

}  // namespace ch15
