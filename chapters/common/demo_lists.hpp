// How the Part I demos print lists, strings and bytes on their verified
// output lines. The formats are those of the earlier Rust edition, whose
// output the book keeps byte for byte:
//   list_text({99, 97, 116})           -> "[99, 97, 116]"   (Rust `{:?}` of a Vec)
//   list_text({0, 41, 42}, ",")        -> "[0,41,42]"
//   joined({0, 41, 42}, ",")           -> "0,41,42"
//   hex_text({0x20, 0xd0})             -> "20,d0"
//   "[" + hex_text(bytes, ", ") + "]"  -> "[20, d0]"        (Rust `{:02x?}` of a slice)
//   quoted("red")                      -> "\"red\""         (Rust `{:?}` of a str)
//   quoted_list({"red", "fox"})        -> "[\"red\", \"fox\"]"
#pragma once

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace demo {

/// The values separated by `separator`, without brackets.
template <class T>
std::string joined(std::span<const T> values, std::string_view separator = ", ") {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i) {
    text += (i == 0 ? "" : std::string(separator)) + std::to_string(values[i]);
  }
  return text;
}

template <class T>
std::string joined(const std::vector<T>& values, std::string_view separator = ", ") {
  return joined(std::span<const T>(values), separator);
}

/// `[a, b, c]`, or `[a,b,c]` with separator ",".
template <class T>
std::string list_text(std::span<const T> values, std::string_view separator = ", ") {
  return "[" + joined(values, separator) + "]";
}

template <class T>
std::string list_text(const std::vector<T>& values, std::string_view separator = ", ") {
  return list_text(std::span<const T>(values), separator);
}

/// Bytes as two lowercase hexadecimal digits each, separated by `separator`.
inline std::string hex_text(std::span<const std::uint8_t> bytes, std::string_view separator = ",") {
  std::string text;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    char digits[3];
    std::snprintf(digits, sizeof digits, "%02x", static_cast<unsigned>(bytes[i]));
    text += (i == 0 ? "" : std::string(separator)) + digits;
  }
  return text;
}

/// A string in double quotes, with `"` and `\` escaped.
inline std::string quoted(std::string_view text, char quote = '"') {
  std::string out(1, quote);
  for (char c : text) {
    if (c == quote || c == '\\') out += '\\';
    out += c;
  }
  return out + quote;
}

/// `["a", "b"]`: each string quoted, separated by ", ".
inline std::string quoted_list(const std::vector<std::string>& strings) {
  std::string text = "[";
  for (std::size_t i = 0; i < strings.size(); ++i)
    text += (i == 0 ? "" : ", ") + quoted(strings[i]);
  return text + "]";
}

}  // namespace demo
