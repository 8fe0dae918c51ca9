// Values as the chapter demos print them, for tests that pin a reference
// chapter's expected.txt: "[a,b,c]" with a fixed number of decimals (Rust's
// `{:.6}`, reproduced by llm::format_fixed).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "llm/format.hpp"
#include "llm/tensor/shape.hpp"
#include "llm/tensor/shared_tensor.hpp"
#include "llm/tensor/tensor.hpp"

namespace llm::testing {

/// `values` as "[v0,v1,...]", each with `digits` decimals.
inline std::string printed(std::span<const double> values, int digits = 6) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += ",";
    text += format_fixed(values[i], digits);
  }
  return text + "]";
}

/// A tensor's values in row-major order, printed as above.
inline std::string printed(const SharedTensor& tensor, int digits = 6) {
  const Tensor values = tensor.materialize();
  return printed(values.values(), digits);
}

/// As printed() after the reference demos of chapters 29-31 round to zero
/// first: a value with |v| < 0.5e-6 (a rounding residue of a quantity that is
/// exactly zero in real arithmetic, of either sign) prints as 0.000000.
inline std::string printed_canonical(const SharedTensor& tensor) {
  Tensor values = tensor.materialize();
  for (double& value : values.mutable_values()) {
    if (value == 0.0 || (value < 0.5e-6 && value > -0.5e-6)) value = 0.0;
  }
  return printed(values.values());
}

/// A shape as the demos print it: "[1,3,4]".
inline std::string printed_shape(const Shape& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ",";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

}  // namespace llm::testing
