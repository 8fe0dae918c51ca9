// Number formatting shared by error messages and the chapter demos.
//
// The book's printed numbers were first produced by an earlier Rust edition;
// these functions reproduce its three float formats exactly, so every machine
// and every edition prints the same text:
//   format_fixed(0.5)          -> "0.500000000000"       (Rust `{:.12}`)
//   format_scientific(0.0, 12) -> "0.000000000000e0"     (Rust `{:.12e}`)
//   format_shortest(0.1)       -> "0.1"                  (Rust `{:?}`)
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace llm {

/// Formats `value` with exactly `digits` digits after the decimal point.
///
/// Non-finite values print as `NaN`, `inf` and `-inf`.
/// Taught alongside the demos of chapters 13-16.
std::string format_fixed(double value, int digits = 12);

/// Formats `value` as `d.ddd...e<exponent>` with `digits` digits after the
/// point and an exponent without `+` sign or leading zeros (`8.3e-2`, `1.0e0`).
///
/// Non-finite values print as `NaN`, `inf` and `-inf`.
std::string format_scientific(double value, int digits);

/// Formats `value` with the fewest digits that read back to the same double.
///
/// Magnitudes in [1e-4, 1e16) and zero print in positional notation with at
/// least one fractional digit (`1.0`, `0.1`, `-0.0`); others in exponent
/// notation (`1e-20`, `1.5e16`). Non-finite values print as `NaN`, `inf`, `-inf`.
std::string format_shortest(double value);

/// Formats a list as `[a, b, c]` using format_shortest for each element.
std::string format_list(std::span<const double> values);

/// Formats a list of indices as `[a, b, c]`.
std::string format_list(std::span<const std::size_t> values);

/// Formats a list of coordinates as `[[a, b], [c, d]]`.
std::string format_list(const std::vector<std::vector<std::size_t>>& coordinates);

}  // namespace llm
