// Exact bit snapshots for the demos' "gradients unchanged" evidence. A
// rejected request must leave every stored gradient as it was, bit for bit,
// so the demos compare the bits of each double, not its value: 0.0 and -0.0
// differ here, and a NaN equals itself.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "llm/tensor/tensor.hpp"

namespace demo {

/// The bits of one double.
inline std::uint64_t bits_of(double value) {
  return std::bit_cast<std::uint64_t>(value);
}

/// The bits of every value, in order.
inline std::vector<std::uint64_t> bits_of(std::span<const double> values) {
  std::vector<std::uint64_t> bits;
  for (double value : values) bits.push_back(bits_of(value));
  return bits;
}

/// The bits of every value of a tensor, in row-major order.
inline std::vector<std::uint64_t> bits_of(const llm::Tensor& tensor) {
  return bits_of(tensor.values());
}

/// The bits of every watched node's stored gradient, in order, empty for a
/// node that stores none. `Node` is a graph handle whose gradient() returns
/// an optional: llm::Scalar (a double) or llm::TensorValue (a tensor). Two
/// snapshots compare equal only if no stored gradient changed.
template <class Node>
auto gradient_bits(const std::vector<Node>& watched) {
  using Bits = decltype(bits_of(*std::declval<const Node&>().gradient()));
  std::vector<std::optional<Bits>> bits;
  for (const Node& node : watched) {
    const auto& gradient = node.gradient();
    bits.push_back(gradient ? std::optional<Bits>(bits_of(*gradient)) : std::nullopt);
  }
  return bits;
}

}  // namespace demo
