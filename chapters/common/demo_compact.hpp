// How the Part V demos print tensors on their verified output lines, in the
// earlier Rust edition's compact format (no spaces, six decimals):
//   compact_values({3.0, 4.0})         -> "[3.000000,4.000000]"
//   compact_shape({1, 2, 3})           -> "[1,2,3]"
//   compact_tensor_line("input", x)    -> "input=shape:[2] values:[3.000000,4.000000]"
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "llm/format.hpp"
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

/// `true` or `false`.
inline const char* bool_text(bool value) {
  return value ? "true" : "false";
}

}  // namespace demo
