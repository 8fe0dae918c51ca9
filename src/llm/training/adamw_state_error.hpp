// The typed error of a rejected AdamW state (area `adamw-state`): what
// AdamW::from_state found wrong in a state it was asked to continue from, for
// example one read from a checkpoint file. Taught in chapter 35. Written in
// the one pattern of src/llm/error.hpp: the kinds, one table of names and
// messages, the evidence.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "llm/error.hpp"
#include "llm/tensor/shape.hpp"

namespace llm {

// region: adamw-state-error-kinds
/// What AdamW::from_state rejected, in the order it checks.
enum class AdamWStateErrorKind {
  InvalidBetaPower,      ///< a beta power is not exactly 1 at t = 0, or not finite in [0, 1) later
  MomentPresence,        ///< moments at t = 0, or none after a committed step
  EmptyParameterName,    ///< a moment entry has an empty name
  ShapeOverflow,         ///< a moment shape's element count does not fit size_t
  MomentLengthMismatch,  ///< a moment vector's length differs from its shape's element count
  NonFiniteMoment,       ///< a first or second moment holds NaN or an infinity
  NegativeSecondMoment,  ///< a second moment (an average of squares) is negative
  GroupsMismatch,        ///< the moments' names differ from the grouped names
};
// endregion: adamw-state-error-kinds

/// The offending values of an AdamWStateError; a kind leaves the fields it
/// does not use empty or zero.
struct AdamWStateErrorEvidence {
  std::string name{};             ///< the parameter (entry kinds), or `beta1` / `beta2`
  std::string_view moment{};      ///< NonFiniteMoment: `first` or `second`
  std::uint64_t step_count = 0;   ///< InvalidBetaPower, MomentPresence: t
  std::size_t entries = 0;        ///< MomentPresence: how many moment entries the state holds
  Shape shape{};                  ///< ShapeOverflow, MomentLengthMismatch: the entry's shape
  std::size_t expected = 0;       ///< MomentLengthMismatch: the shape's element count
  std::size_t first_length = 0;   ///< MomentLengthMismatch: first-moment values held
  std::size_t second_length = 0;  ///< MomentLengthMismatch: second-moment values held
  std::size_t index = 0;          ///< NonFiniteMoment, NegativeSecondMoment: flat element
  double value = 0.0;             ///< the offending power or moment
  std::vector<std::string> grouped_names{};  ///< GroupsMismatch: sorted grouped names
  std::vector<std::string> moment_names{};   ///< GroupsMismatch: sorted names owning moments
};

// region: adamw-state-error-table
/// The `adamw-state` area: each kind's stable name and message, in enum order.
struct AdamWStateErrorTraits {
  using Kind = AdamWStateErrorKind;                        ///< the area's kinds
  using Evidence = AdamWStateErrorEvidence;                ///< the offending values
  static constexpr std::string_view area = "adamw-state";  ///< Error::area()
  /// Each kind's stable name and message, in enum order.
  static constexpr std::array<ErrorKindSpec<Kind>, 8> kinds{{
      {Kind::InvalidBetaPower, "invalid-beta-power",
       "the {name} power must be exactly 1 at step 0 and finite in [0, 1) after it, got {value} "
       "at step {step_count}"},
      {Kind::MomentPresence, "moment-presence",
       "an AdamW state at step {step_count} cannot hold {entries} moment entries (moments exist "
       "exactly after the first step)"},
      {Kind::EmptyParameterName, "empty-parameter-name", "an AdamW moment entry has an empty name"},
      {Kind::ShapeOverflow, "shape-overflow",
       "the moments of '{name}' have shape {shape}, whose element count does not fit size_t"},
      {Kind::MomentLengthMismatch, "moment-length-mismatch",
       "the moments of '{name}' with shape {shape} need {expected} values each, got "
       "{first_length} first and {second_length} second"},
      {Kind::NonFiniteMoment, "non-finite-moment",
       "the {moment} moment of '{name}' at element {index} is {value}"},
      {Kind::NegativeSecondMoment, "negative-second-moment",
       "the second moment of '{name}' at element {index} is negative: {value}"},
      {Kind::GroupsMismatch, "groups-mismatch",
       "the parameter groups name {grouped_names} but the moments name {moment_names}"},
  }};
  /// One evidence field as the message prints it.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};
// endregion: adamw-state-error-table

/// An error of AdamW::from_state (area `adamw-state`), thrown before any
/// optimizer is built.
class AdamWStateError : public KindedError<AdamWStateErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw AdamWStateError(AdamWStateErrorKind::..., {.field = value});`
  explicit AdamWStateError(AdamWStateErrorKind kind, AdamWStateErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}
};

}  // namespace llm
