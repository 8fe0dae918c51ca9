// Rust-compatible float text: see format.hpp for the three formats.
#include "llm/format.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <system_error>

namespace llm {
namespace {

// Returns the spelling of a non-finite value, or an empty string for finite ones.
std::string non_finite_text(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  return {};
}

// printf with a buffer sized by a first measuring call.
template <typename... Args>
std::string printf_string(const char* format, Args... args) {
  const int length = std::snprintf(nullptr, 0, format, args...);
  std::string text(static_cast<std::size_t>(length) + 1, '\0');
  std::snprintf(text.data(), text.size(), format, args...);
  text.pop_back();
  return text;
}

}  // namespace

std::string format_fixed(double value, int digits) {
  if (std::string special = non_finite_text(value); !special.empty()) return special;
  return printf_string("%.*f", digits, value);
}

std::string format_scientific(double value, int digits) {
  if (std::string special = non_finite_text(value); !special.empty()) return special;
  // printf writes "8.333e-02"; Rust writes "8.333e-2": keep the mantissa and
  // re-spell the exponent without sign padding.
  const std::string text = printf_string("%.*e", digits, value);
  const std::size_t e = text.find('e');
  const int exponent = std::atoi(text.c_str() + e + 1);
  return text.substr(0, e) + "e" + std::to_string(exponent);
}

std::string format_shortest(double value) {
  if (std::string special = non_finite_text(value); !special.empty()) return special;
  // to_chars in scientific form gives the shortest round-trip digits,
  // e.g. "-1.25e-03": split it into sign, digit string and decimal exponent.
  char buffer[64];
  const auto result =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  const std::string_view text(buffer, static_cast<std::size_t>(result.ptr - buffer));
  const bool negative = text.front() == '-';
  const std::size_t e = text.find('e');
  std::string digits;
  for (char c : text.substr(negative ? 1 : 0, e - (negative ? 1 : 0))) {
    if (c != '.') digits.push_back(c);
  }
  const int exponent = std::atoi(std::string(text.substr(e + 1)).c_str());
  const std::string sign = negative ? "-" : "";

  const double magnitude = std::fabs(value);
  if (magnitude != 0.0 && (magnitude < 1e-4 || magnitude >= 1e16)) {
    std::string mantissa = digits.substr(0, 1);
    if (digits.size() > 1) mantissa += "." + digits.substr(1);
    return sign + mantissa + "e" + std::to_string(exponent);
  }
  if (exponent < 0) {
    return sign + "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
  }
  const std::size_t integer_digits = static_cast<std::size_t>(exponent) + 1;
  if (digits.size() <= integer_digits) {
    return sign + digits + std::string(integer_digits - digits.size(), '0') + ".0";
  }
  return sign + digits.substr(0, integer_digits) + "." + digits.substr(integer_digits);
}

std::string format_list(std::span<const double> values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += ", ";
    text += format_shortest(values[i]);
  }
  return text + "]";
}

std::string format_list(std::span<const std::size_t> values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(values[i]);
  }
  return text + "]";
}

std::string format_list(const std::vector<std::vector<std::size_t>>& coordinates) {
  std::string text = "[";
  for (std::size_t i = 0; i < coordinates.size(); ++i) {
    if (i > 0) text += ", ";
    text += format_list(std::span<const std::size_t>(coordinates[i]));
  }
  return text + "]";
}

}  // namespace llm
