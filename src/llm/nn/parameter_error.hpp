// The typed error of parameters, parameter sets and initialization
// (area `parameter`). Taught in chapter 17. Written in the one pattern of
// src/llm/error.hpp: the kinds, one table of names and messages, the evidence.
#pragma once

#include <array>
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

/// The offending values of a ParameterError; a kind leaves the fields it does
/// not use empty or zero.
struct ParameterErrorEvidence {
  /// The offending name (InvalidName, DuplicateName, SharedParameter, UnknownName,
  /// NotAParameter, SnapshotMismatch, RejectedValue, MissingValue, UnexpectedValue,
  /// DuplicateValue, NonFiniteScaledGradient).
  std::string name{};
  /// InvalidName: the byte offset of the fault (the name's length for a
  /// trailing dot). DuplicateName, SharedParameter: the position of the
  /// earlier parameter. SnapshotMismatch, RejectedValue, MissingValue: the
  /// parameter's position in the set. UnexpectedValue, DuplicateValue: the
  /// position in the loaded list. NonFiniteScaledGradient: the flat element.
  std::size_t index = 0;
  std::uint8_t byte = 0;     ///< InvalidName: the offending byte, 0 for an empty name or segment
  std::size_t expected = 0;  ///< UpdateCountMismatch: entries required (the set's size)
  std::size_t actual = 0;    ///< UpdateCountMismatch: entries supplied
  std::size_t fan_in = 0;    ///< the fan-in of an initializer request
  std::size_t fan_out = 0;   ///< the fan-out of an initializer request
  std::string_view cause_kind{};  ///< RejectedValue: the tape error's kind name
  std::string first_name{};       ///< SharedParameter: the name the node already has in the set
  std::string cause_message{};    ///< RejectedValue: the tape error's message
  /// InvalidGradientScale: the multiplier; NonFiniteScaledGradient: the
  /// gradient element that would overflow.
  double value = 0.0;
  double divisor = 0.0;     ///< InvalidGradientScale, NonFiniteScaledGradient: the divisor
  double multiplier = 0.0;  ///< NonFiniteScaledGradient: the multiplier
};

/// The `parameter` area: each kind's stable name and message, in enum order.
struct ParameterErrorTraits {
  using Kind = ParameterErrorKind;                       ///< the area's kinds
  using Evidence = ParameterErrorEvidence;               ///< the offending values
  static constexpr std::string_view area = "parameter";  ///< Error::area()
  /// Each kind's stable name and message, in enum order. `{name_fault}` is
  /// the rule of the name grammar the name breaks, as one of three sentences.
  static constexpr std::array<ErrorKindSpec<Kind>, 17> kinds{{
      {Kind::InvalidName, "invalid-name", "{name_fault}"},
      {Kind::DuplicateName, "duplicate-name",
       "parameter name \"{name}\" is already taken by parameter {index} of the set"},
      {Kind::SharedParameter, "shared-parameter",
       "the parameter offered as \"{name}\" is already parameter {index} \"{first_name}\" of the "
       "set; list a shared (tied) parameter once"},
      {Kind::UnknownName, "unknown-name", "the set holds no parameter named \"{name}\""},
      {Kind::NotAParameter, "not-a-parameter",
       "the value offered as \"{name}\" is not a tape parameter (a tracked leaf with a gradient)"},
      {Kind::UpdateCountMismatch, "update-count-mismatch",
       "the set has {expected} parameters, but {actual} new values were given"},
      {Kind::SnapshotMismatch, "snapshot-mismatch",
       "the snapshot's parameter {index} is \"{name}\", which is not the set's parameter at that "
       "position"},
      {Kind::RejectedValue, "rejected-value",
       "the new value of parameter {index} \"{name}\" was rejected: {cause_message}"},
      {Kind::ZeroFanIn, "zero-fan-in", "fan-in must be at least 1, got 0"},
      {Kind::ZeroFanOut, "zero-fan-out", "fan-out must be at least 1, got 0"},
      {Kind::FanSumOverflow, "fan-sum-overflow",
       "fan-in {fan_in} plus fan-out {fan_out} does not fit size_t"},
      {Kind::ShapeProductOverflow, "shape-product-overflow",
       "a [{fan_in}, {fan_out}] matrix has more elements than size_t can count"},
      {Kind::MissingValue, "missing-value",
       "no value was given for parameter {index} \"{name}\" of the set"},
      {Kind::UnexpectedValue, "unexpected-value",
       "value {index} is named \"{name}\", but the set holds no parameter of that name"},
      {Kind::DuplicateValue, "duplicate-value",
       "value {index} repeats the name \"{name}\" of an earlier value"},
      {Kind::InvalidGradientScale, "invalid-gradient-scale",
       "a gradient scale needs a finite multiplier >= 0 and a finite divisor > 0, got {value} / "
       "{divisor}"},
      {Kind::NonFiniteScaledGradient, "non-finite-scaled-gradient",
       "scaling the gradient of \"{name}\" at element {index} ({value} / {divisor} * {multiplier}) "
       "overflows"},
  }};
  /// A field as the message prints it, or `name_fault`.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};

/// An error of area `parameter`. Thrown only while validating: a set, a
/// generator and every parameter are bit-for-bit as before the call. Fields a
/// kind does not use are empty or zero.
class ParameterError : public KindedError<ParameterErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw ParameterError(ParameterErrorKind::..., {.field = value});`
  explicit ParameterError(ParameterErrorKind kind, ParameterErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}

  /// The offending name (InvalidName, DuplicateName, UnknownName, SnapshotMismatch,
  /// RejectedValue, MissingValue, UnexpectedValue, DuplicateValue, NonFiniteScaledGradient).
  const std::string& name() const noexcept { return evidence().name; }
  /// InvalidName: the byte offset of the fault (the name's length for a
  /// trailing dot). DuplicateName, SharedParameter: the position of the
  /// earlier parameter.
  /// SnapshotMismatch, RejectedValue, MissingValue: the parameter's position in the set.
  /// UnexpectedValue, DuplicateValue: the position in the loaded list.
  /// NonFiniteScaledGradient: the flat element.
  std::size_t index() const noexcept { return evidence().index; }
  /// InvalidName: the offending byte, 0 for an empty name or segment.
  std::uint8_t byte() const noexcept { return evidence().byte; }
  /// UpdateCountMismatch: entries required (the set's size).
  std::size_t expected() const noexcept { return evidence().expected; }
  /// UpdateCountMismatch: entries supplied.
  std::size_t actual() const noexcept { return evidence().actual; }
  /// The fan-in of an initializer request (ZeroFanOut ... ShapeProductOverflow).
  std::size_t fan_in() const noexcept { return evidence().fan_in; }
  /// The fan-out of an initializer request (ZeroFanIn, FanSumOverflow, ShapeProductOverflow).
  std::size_t fan_out() const noexcept { return evidence().fan_out; }
  /// RejectedValue: the tape error's kind name, e.g. `assign-shape-mismatch`.
  std::string_view cause_kind() const noexcept { return evidence().cause_kind; }
  /// SharedParameter: the name the node already has in the set.
  const std::string& first_name() const noexcept { return evidence().first_name; }
  /// InvalidGradientScale: the multiplier; NonFiniteScaledGradient: the
  /// gradient element that would overflow.
  double value() const noexcept { return evidence().value; }
  /// InvalidGradientScale: the divisor (1 for a plain factor).
  double divisor() const noexcept { return evidence().divisor; }

  /// RejectedValue: the tape refused the new value of parameter `index`,
  /// `name`, with `cause` (its kind name and message become evidence).
  static ParameterError rejected_value(std::string name, std::size_t index, const Error& cause);
};

}  // namespace llm
