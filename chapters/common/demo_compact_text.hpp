// How the Part V demos print tensors on their verified output lines, in the
// compact format of the earlier Rust edition (whose output they keep byte for
// byte): a shape as `[1,2,2]`, values as `[0.000000,-3.000000]` with six
// decimals (Rust `{:.6}`, llm::format_fixed), an exact zero of either sign
// as `0.000000`, and -inf as `-inf`.
#pragma once

#include <span>
#include <string>

#include "llm/format.hpp"
#include "llm/tensor/tensor.hpp"

namespace demo {

/// `[1,2,2]`; `[]` for rank zero.
inline std::string compact_shape(const llm::Shape& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    text += (i == 0 ? "" : ",") + std::to_string(shape[i]);
  return text + "]";
}

/// `[0.000000,6.000000,-inf]`: six decimals, -0.0 printed as 0.000000.
inline std::string compact_values(std::span<const double> values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double value = values[i] == 0.0 ? 0.0 : values[i];
    text += (i == 0 ? "" : ",") + llm::format_fixed(value, 6);
  }
  return text + "]";
}

inline std::string compact_values(const llm::Tensor& tensor) {
  return compact_values(tensor.values());
}

/// `shape:[1,2,2] values:[...]`, the edition's one-tensor field.
inline std::string compact_tensor(const llm::Tensor& tensor) {
  return "shape:" + compact_shape(tensor.shape()) + " values:" + compact_values(tensor);
}

/// `true` or `false`.
inline const char* bool_text(bool value) {
  return value ? "true" : "false";
}

}  // namespace demo
