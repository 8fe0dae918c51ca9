// How the demos print a tensor on one line of their verified output:
// `shape=2x3 values=1.000000000000,2.000000000000,...`, the shape written
// with `x` between extents and every value with twelve decimals (Rust's
// `{:.12}`, llm::format_fixed) in row-major order.
#pragma once

#include <span>
#include <string>

#include "llm/format.hpp"
#include "llm/tensor/tensor.hpp"

namespace demo {

/// A shape as the demos print it: `2x3`, `3`, or `scalar` for rank zero.
inline std::string shape_label(const llm::Shape& shape) {
  if (shape.empty()) return "scalar";
  std::string text;
  for (std::size_t extent : shape) text += (text.empty() ? "" : "x") + std::to_string(extent);
  return text;
}

/// Every value with twelve decimals, comma-separated, in the order given.
inline std::string fixed_values_text(std::span<const double> values) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i)
    text += (i == 0 ? "" : ",") + llm::format_fixed(values[i]);
  return text;
}

/// `[a,b,c]`, each value with `digits` decimals and a negative zero printed
/// as 0 (the earlier edition's vectors, chapters 37-38).
inline std::string fixed_list(std::span<const double> values, int digits) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += ',';
    text += llm::format_fixed(values[i] == 0.0 ? 0.0 : values[i], digits);
  }
  return text + "]";
}

/// Every value with twelve decimals, comma-separated, in row-major order.
inline std::string values_text(const llm::Tensor& tensor) {
  return fixed_values_text(tensor.values());
}

/// `shape=<shape_label> values=<values_text>`: one tensor on one output line.
inline std::string tensor_text(const llm::Tensor& tensor) {
  return "shape=" + shape_label(tensor.shape()) + " values=" + values_text(tensor);
}

}  // namespace demo
