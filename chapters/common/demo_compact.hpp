// How the Part V demos print tensors on their verified output lines, in the
// earlier Rust edition's compact format (no spaces, six decimals, Rust's
// `{:.6}` through llm::format_fixed):
//   compact_values({3.0, 4.0})          -> "[3.000000,4.000000]"
//   compact_shape({1, 2, 3})            -> "[1,2,3]"
//   compact_tensor_line("input", x)     -> "input=shape:[2] values:[3.000000,4.000000]"
//   canonical_values({1e-17, -0.5})     -> "[0.000000,-0.500000]"
//   canonical_tensor(t)                 -> "shape:[1,2] values:[1.000000,0.000000]"
//   bool_text(true)                     -> "true"
// canonical_values is the form chapters 29-31 print: a value closer to zero
// than 0.5e-6 prints as 0.000000 whatever its sign. It is the rounding residue
// of a quantity that is exactly zero in real arithmetic (chapter 30's head-0
// query-weight gradient is about 1e-17), and the reference edition prints it
// that way too.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "llm/format.hpp"
#include "llm/tensor/shape.hpp"
#include "llm/tensor/tensor.hpp"

namespace demo {

/// `[a,b,c]`: every value with `digits` decimals (llm::format_fixed).
inline std::string compact_values(std::span<const double> values, int digits = 6) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i)
    text += (i == 0 ? "" : ",") + llm::format_fixed(values[i], digits);
  return text + "]";
}

/// A tensor's values in row-major order, as compact_values.
inline std::string compact_values(const llm::Tensor& tensor, int digits = 6) {
  return compact_values(tensor.values(), digits);
}

/// `value`, or +0.0 when |value| < 0.5e-6 (it would print as 0.000000 or -0.000000).
inline double canonical_value(double value) {
  return (value < 0.5e-6 && value > -0.5e-6) ? 0.0 : value;
}

/// `[v0,v1,...]`, six decimals each, near-zero values as 0.000000.
inline std::string canonical_values(std::span<const double> values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i)
    text += (i == 0 ? "" : ",") + llm::format_fixed(canonical_value(values[i]), 6);
  return text + "]";
}

/// `[2,2]`; `[]` for rank zero.
inline std::string compact_shape(const llm::Shape& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    text += (i == 0 ? "" : ",") + std::to_string(shape[i]);
  return text + "]";
}

/// `key=shape:[2] values:[3.000000,4.000000]`.
inline std::string compact_tensor_line(std::string_view key, const llm::Tensor& tensor) {
  return std::string(key) + "=shape:" + compact_shape(tensor.shape()) +
         " values:" + compact_values(tensor);
}

/// `shape:[d0,...] values:[v0,...]`: one tensor in row-major order, as canonical_values.
inline std::string canonical_tensor(const llm::Tensor& tensor) {
  return "shape:" + compact_shape(tensor.shape()) + " values:" + canonical_values(tensor.values());
}

/// `true` or `false`.
inline const char* bool_text(bool value) {
  return value ? "true" : "false";
}

}  // namespace demo
