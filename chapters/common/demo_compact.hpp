// How the Part V demos (chapters 29 and 30) print tensors on their verified
// output lines, in the earlier Rust edition's compact format:
//   compact_values({1.0, -0.5})  -> "[1.000000,-0.500000]"
//   compact_shape({1, 3, 4})     -> "[1,3,4]"
//   compact_tensor(t)            -> "shape:[1,2] values:[1.000000,0.000000]"
//   bool_text(true)              -> "true"
// Six decimals (Rust's `{:.6}`, llm::format_fixed). A value closer to zero
// than 0.5e-6 prints as 0.000000 whatever its sign: it is the rounding residue
// of a quantity that is exactly zero in real arithmetic (chapter 30's head-0
// query-weight gradient is about 1e-17), and the reference edition prints it
// that way too.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "llm/format.hpp"
#include "llm/tensor/shape.hpp"
#include "llm/tensor/tensor.hpp"

namespace demo {

/// `value`, or +0.0 when |value| < 0.5e-6 (it would print as 0.000000 or -0.000000).
inline double canonical_value(double value) {
  return (value < 0.5e-6 && value > -0.5e-6) ? 0.0 : value;
}

/// `[v0,v1,...]`, six decimals each, near-zero values as 0.000000.
inline std::string compact_values(std::span<const double> values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    text += (i == 0 ? "" : ",") + llm::format_fixed(canonical_value(values[i]), 6);
  }
  return text + "]";
}

/// `[d0,d1,...]`: a shape without spaces.
inline std::string compact_shape(const llm::Shape& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    text += (i == 0 ? "" : ",") + std::to_string(shape[i]);
  }
  return text + "]";
}

/// `shape:[d0,...] values:[v0,...]`: one tensor in row-major order.
inline std::string compact_tensor(const llm::Tensor& tensor) {
  return "shape:" + compact_shape(tensor.shape()) + " values:" + compact_values(tensor.values());
}

/// `true` or `false`.
inline const char* bool_text(bool value) {
  return value ? "true" : "false";
}

}  // namespace demo
