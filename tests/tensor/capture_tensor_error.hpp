// Test support for the tensor suites: run a call that must throw a
// TensorError and hand the error back for its kind and evidence fields.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "llm/tensor/tensor.hpp"

namespace llm::testing {

/// The TensorError `call` throws, or nothing (with a test failure) if it returns.
template <class Call>
std::optional<TensorError> capture_tensor_error(Call&& call) {
  try {
    call();
  } catch (const TensorError& error) {
    return error;
  }
  ADD_FAILURE() << "expected a TensorError, but the call returned";
  return std::nullopt;
}

/// A tensor's values as a vector, for EXPECT_EQ against a literal list.
inline std::vector<double> values_of(const Tensor& tensor) {
  return {tensor.values().begin(), tensor.values().end()};
}

}  // namespace llm::testing
