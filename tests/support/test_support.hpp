// Helpers shared by the GoogleTest suites: capture the typed error a call
// must throw, and compare tensors by value or by exact bits.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <optional>
#include <vector>

#include "llm/tensor/tensor.hpp"

namespace llm::testing {

/// The `ErrorType` that `call` throws, or nothing (with a test failure) if it
/// returns. Any other exception propagates and fails the test.
template <class ErrorType, class Call>
std::optional<ErrorType> capture_error(Call&& call) {
  try {
    call();
  } catch (const ErrorType& error) {
    return error;
  }
  ADD_FAILURE() << "expected the call to throw, but it returned";
  return std::nullopt;
}

/// A tensor's values as a vector, for EXPECT_EQ against a literal list.
inline std::vector<double> values_of(const Tensor& tensor) {
  return {tensor.values().begin(), tensor.values().end()};
}

/// The exact bits of a tensor's values, for bit-for-bit comparisons.
inline std::vector<std::uint64_t> bits_of(const Tensor& tensor) {
  std::vector<std::uint64_t> bits;
  for (double value : tensor.values()) bits.push_back(std::bit_cast<std::uint64_t>(value));
  return bits;
}

}  // namespace llm::testing
