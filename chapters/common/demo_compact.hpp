// How the Part V demos print tensors on their verified output lines, in the
// earlier Rust edition's compact format (no spaces, six decimals, Rust's
// `{:.6}` through llm::format_fixed):
//   compact_values({3.0, 4.0})             -> "[3.000000,4.000000]"
//   compact_list({"q.weight", "k.weight"}) -> "[q.weight,k.weight]"
//   compact_rows({{1.0, 0.5}, {2.0, 0.0}}) -> "[[1.000000,0.500000],[2.000000,0.000000]]"
//   compact_shape({1, 2, 3})               -> "[1,2,3]"
//   compact_tensor_line("input", x)        -> "input=shape:[2] values:[3.000000,4.000000]"
//   canonical_values({1e-17, -0.5})        -> "[0.000000,-0.500000]"
//   canonical_tensor(t)                    -> "shape:[1,2] values:[1.000000,0.000000]"
//   bool_text(true)                        -> "true"
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
#include <vector>

#include "llm/format.hpp"
#include "llm/tensor/shape.hpp"
#include "llm/tensor/tensor.hpp"

namespace demo {

/// `[f(a),f(b),...]`: each item as `format` writes it, comma-separated, no spaces.
template <class Items, class Format>
std::string compact_list(const Items& items, Format format) {
  std::string text = "[";
  bool first = true;
  for (const auto& item : items) {
    text += (first ? "" : ",") + std::string(format(item));
    first = false;
  }
  return text + "]";
}

/// `[a,b,c]`: the strings as they are.
inline std::string compact_list(const std::vector<std::string>& items) {
  return compact_list(items, [](const std::string& item) { return item; });
}

/// `[a,b,c]`: every value with `digits` decimals (llm::format_fixed).
inline std::string compact_values(std::span<const double> values, int digits = 6) {
  return compact_list(values, [digits](double value) { return llm::format_fixed(value, digits); });
}

/// A tensor's values in row-major order, as compact_values.
inline std::string compact_values(const llm::Tensor& tensor, int digits = 6) {
  return compact_values(tensor.values(), digits);
}

/// `[[a,b],[c,d]]`: each row as compact_values.
inline std::string compact_rows(const std::vector<std::vector<double>>& rows) {
  return compact_list(rows, [](const std::vector<double>& row) { return compact_values(row); });
}

/// `value`, or +0.0 when |value| < 0.5e-6 (it would print as 0.000000 or -0.000000).
inline double canonical_value(double value) {
  return (value < 0.5e-6 && value > -0.5e-6) ? 0.0 : value;
}

/// `[v0,v1,...]`, six decimals each, near-zero values as 0.000000.
inline std::string canonical_values(std::span<const double> values) {
  return compact_list(values,
                      [](double value) { return llm::format_fixed(canonical_value(value), 6); });
}

/// `[2,2]`; `[]` for rank zero.
inline std::string compact_shape(const llm::Shape& shape) {
  return compact_list(shape, [](std::size_t extent) { return std::to_string(extent); });
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
