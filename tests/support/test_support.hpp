// Helpers shared by the GoogleTest suites: capture the typed error a call
// must throw, and compare tensors by value or by exact bits.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include "llm/tensor/shared_tensor.hpp"
#include "llm/tensor/tensor.hpp"

namespace llm::testing {

/// Thrown by capture_error when the call returns: GoogleTest reports the
/// exception as the test's failure, so a caller never reads a missing error.
struct CallDidNotThrow : std::logic_error {
  using std::logic_error::logic_error;
};

/// The `ErrorType` that `call` throws. If the call returns instead, the test
/// fails (CallDidNotThrow ends it). Any other exception propagates and fails
/// the test. The result is never empty; it is an optional so that callers
/// can still write ASSERT_TRUE(error).
template <class ErrorType, class Call>
std::optional<ErrorType> capture_error(Call&& call) {
  try {
    call();
  } catch (const ErrorType& error) {
    return error;
  }
  throw CallDidNotThrow("expected the call to throw, but it returned");
}

/// A tensor's values as a vector, for EXPECT_EQ against a literal list.
inline std::vector<double> values_of(const Tensor& tensor) {
  return {tensor.values().begin(), tensor.values().end()};
}

/// A shared tensor's values in row-major order (through any strides).
inline std::vector<double> values_of(const SharedTensor& tensor) {
  return values_of(tensor.materialize());
}

/// The exact bits of a tensor's values, for bit-for-bit comparisons.
inline std::vector<std::uint64_t> bits_of(const Tensor& tensor) {
  std::vector<std::uint64_t> bits;
  for (double value : tensor.values()) bits.push_back(std::bit_cast<std::uint64_t>(value));
  return bits;
}

/// The exact bits of a shared tensor's values in row-major order.
inline std::vector<std::uint64_t> bits_of(const SharedTensor& tensor) {
  return bits_of(tensor.materialize());
}

}  // namespace llm::testing
