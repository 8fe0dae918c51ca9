// The typed error of parameters, parameter sets and initialization
// (area `parameter`). Taught in chapter 17.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "llm/error.hpp"

namespace llm {

// region: parameter-error-kinds
/// What a parameter name, a parameter set, an update or an initializer rejected.
enum class ParameterErrorKind {
  InvalidName,           ///< a name is empty, has an empty segment, or a byte outside a-z 0-9 _ .
  DuplicateName,         ///< a set already holds a parameter of that name
  SharedParameter,       ///< a set already holds the same tape node under another name
  UnknownName,           ///< a set holds no parameter of that name
  NotAParameter,         ///< a handle added to a set is not a tape parameter
  UpdateCountMismatch,   ///< an update or a snapshot does not have one entry per parameter
  SnapshotMismatch,      ///< a snapshot's names differ from the set's, in order
  RejectedValue,         ///< the tape rejected one new value (shape or finiteness)
  ZeroFanIn,             ///< an initializer was asked for fan-in 0
  ZeroFanOut,            ///< an initializer was asked for fan-out 0
  FanSumOverflow,        ///< fan-in + fan-out does not fit size_t
  ShapeProductOverflow,  ///< fan-in * fan-out does not fit size_t
  MissingValue,          ///< a load by name gives no value for one of the set's parameters
  UnexpectedValue,       ///< a load by name gives a value for a name the set does not hold
  DuplicateValue,        ///< a load by name gives two values under one name
  InvalidGradientScale,  ///< a gradient scale that is not finite and >= 0, or a divisor not > 0
  NonFiniteScaledGradient,  ///< scaling a stored gradient would overflow
};
// endregion: parameter-error-kinds

/// Stable kebab-case name of a kind, e.g. `duplicate-name`.
std::string_view parameter_error_kind_name(ParameterErrorKind kind);

/// An error of area `parameter`. Thrown only while validating: a set, a
/// generator and every parameter are bit-for-bit as before the call. Fields a
/// kind does not use are empty or zero.
class ParameterError : public Error {
 public:
  /// Which fact failed.
  ParameterErrorKind kind() const noexcept { return kind_; }
  /// The offending name (InvalidName, DuplicateName, UnknownName, SnapshotMismatch,
  /// RejectedValue, MissingValue, UnexpectedValue, DuplicateValue, NonFiniteScaledGradient).
  const std::string& name() const noexcept { return name_; }
  /// InvalidName: the byte offset of the fault (the name's length for a
  /// trailing dot). DuplicateName, SharedParameter: the position of the
  /// earlier parameter.
  /// SnapshotMismatch, RejectedValue, MissingValue: the parameter's position in the set.
  /// UnexpectedValue, DuplicateValue: the position in the loaded list.
  /// NonFiniteScaledGradient: the flat element.
  std::size_t index() const noexcept { return index_; }
  /// InvalidName: the offending byte, 0 for an empty name or segment.
  std::uint8_t byte() const noexcept { return byte_; }
  /// UpdateCountMismatch: entries required (the set's size).
  std::size_t expected() const noexcept { return expected_; }
  /// UpdateCountMismatch: entries supplied.
  std::size_t actual() const noexcept { return actual_; }
  /// The fan-in of an initializer request (ZeroFanOut ... ShapeProductOverflow).
  std::size_t fan_in() const noexcept { return fan_in_; }
  /// The fan-out of an initializer request (ZeroFanIn, FanSumOverflow, ShapeProductOverflow).
  std::size_t fan_out() const noexcept { return fan_out_; }
  /// RejectedValue: the tape error's kind name, e.g. `assign-shape-mismatch`.
  std::string_view cause_kind() const noexcept { return cause_kind_; }
  /// SharedParameter: the name the node already has in the set.
  const std::string& first_name() const noexcept { return first_name_; }
  /// InvalidGradientScale: the multiplier; NonFiniteScaledGradient: the
  /// gradient element that would overflow.
  double value() const noexcept { return value_; }
  /// InvalidGradientScale: the divisor (1 for a plain factor).
  double divisor() const noexcept { return divisor_; }

  static ParameterError invalid_name(std::string name, std::size_t index, std::uint8_t byte);
  static ParameterError duplicate_name(std::string name, std::size_t first);
  static ParameterError shared_parameter(std::string name, std::string first_name,
                                         std::size_t first);
  static ParameterError unknown_name(std::string name);
  static ParameterError not_a_parameter(std::string name);
  static ParameterError update_count_mismatch(std::size_t expected, std::size_t actual);
  static ParameterError snapshot_mismatch(std::string name, std::size_t index);
  static ParameterError rejected_value(std::string name, std::size_t index, const Error& cause);
  static ParameterError zero_fan_in(std::size_t fan_out);
  static ParameterError zero_fan_out(std::size_t fan_in);
  static ParameterError fan_sum_overflow(std::size_t fan_in, std::size_t fan_out);
  static ParameterError shape_product_overflow(std::size_t fan_in, std::size_t fan_out);
  static ParameterError missing_value(std::string name, std::size_t index);
  static ParameterError unexpected_value(std::string name, std::size_t index);
  static ParameterError duplicate_value(std::string name, std::size_t index);
  static ParameterError invalid_gradient_scale(double multiplier, double divisor);
  static ParameterError non_finite_scaled_gradient(std::string name, std::size_t index,
                                                   double gradient, double multiplier,
                                                   double divisor);

 private:
  ParameterError(ParameterErrorKind kind, const std::string& message);

  ParameterErrorKind kind_;
  std::string name_;
  std::size_t index_ = 0;
  std::uint8_t byte_ = 0;
  std::size_t expected_ = 0;
  std::size_t actual_ = 0;
  std::size_t fan_in_ = 0;
  std::size_t fan_out_ = 0;
  std::string_view cause_kind_;
  std::string first_name_;
  double value_ = 0.0;
  double divisor_ = 0.0;
};

}  // namespace llm
