// Test support for the tensor-tape suites: tensors from literals, exact bit
// snapshots of values, gradients and retention state, and capturing the typed
// error a call must throw.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <optional>
#include <vector>

#include "llm/autograd/tensor_value.hpp"
#include "llm/tensor/tensor.hpp"
#include "support/test_support.hpp"

namespace llm::testing {

inline Tensor tensor(Shape shape, std::vector<double> values) {
  return Tensor(std::move(shape), std::move(values));
}

/// Everything a failed call must leave untouched on a set of nodes: value
/// bits, gradient bits (empty for non-parameters), retention and version.
struct TapeState {
  std::vector<std::vector<std::uint64_t>> values;
  std::vector<std::optional<std::vector<std::uint64_t>>> gradients;
  std::vector<bool> released;
  std::vector<std::uint64_t> versions;
  bool operator==(const TapeState&) const = default;
};

inline TapeState tape_state(const std::vector<TensorValue>& nodes) {
  TapeState state;
  for (const TensorValue& node : nodes) {
    state.values.push_back(bits_of(node.value().materialize()));
    const std::optional<Tensor> gradient = node.gradient();
    state.gradients.push_back(gradient ? std::optional(bits_of(*gradient)) : std::nullopt);
    state.released.push_back(node.is_released());
    state.versions.push_back(node.version());
  }
  return state;
}

/// The chapter's worked example: x [2, 3] = 1..6, reshape [3, 2], transpose
/// back to [2, 3], bias [3] = [1, -1, 0] broadcast to [2, 3], add, multiply
/// the sum by itself, mean along axis 1: output [2] = [11, 18].
struct WorkedExample {
  TensorValue x = TensorValue::parameter(tensor({2, 3}, {1, 2, 3, 4, 5, 6}));
  TensorValue reshaped = x.reshape({3, 2});
  TensorValue transposed = reshaped.transpose(0, 1);
  TensorValue bias = TensorValue::parameter(tensor({3}, {1, -1, 0}));
  TensorValue broadcast = bias.broadcast_to({2, 3});
  TensorValue sum = transposed.add(broadcast);
  TensorValue square = sum.mul(sum);
  TensorValue output = square.mean_axis(1, KeepDim::No);
  Tensor seed = tensor({2}, {3, 6});

  std::vector<TensorValue> nodes() const {
    return {x, reshaped, transposed, bias, broadcast, sum, square, output};
  }
};

}  // namespace llm::testing
