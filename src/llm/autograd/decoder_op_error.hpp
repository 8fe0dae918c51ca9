// The typed error of the tape operations Part V adds (area
// `decoder-operation`): scale, sub, div and rsqrt (chapter 25), rms_norm
// (chapter 25), softmax and causal_softmax (chapters 27-28), and the rotary
// table and rotary_pairs (chapter 29). Written in the one pattern of
// src/llm/error.hpp: the kinds, one table of names and messages, the evidence.
//
// Every kind is a fact the operation checks before it computes anything, so a
// refusal records nothing and changes no value, gradient or graph state. Shape
// facts a tensor kernel already checks (an invalid or empty softmax axis, two
// shapes that do not broadcast) stay TensorError, thrown by that kernel.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "llm/error.hpp"
#include "llm/tensor/shape.hpp"

namespace llm {

// region: decoder-op-error-kinds
/// What a Part V tape operation (or the rotary table) rejected.
enum class DecoderOpErrorKind {
  NonFiniteFactor,            ///< scale() by a NaN or an infinity
  RsqrtNonPositiveInput,      ///< rsqrt() met x <= 0, where x^(-1/2) is infinite or undefined
  DivisionByZero,             ///< div() met a divisor equal to zero
  RmsNormInputRank,           ///< rms_norm() input of rank zero: no feature axis
  RmsNormGainRank,            ///< rms_norm() gain that is not rank one [D]
  RmsNormEmptyWidth,          ///< rms_norm() over zero features (D = 0): no mean square
  RmsNormWidthMismatch,       ///< rms_norm() input's last extent differs from the gain's D
  RmsNormInvalidEpsilon,      ///< rms_norm() epsilon that is negative, NaN or infinite
  RmsNormZeroEnergyRow,       ///< rms_norm() with epsilon 0 met a row whose mean square is 0
  RmsNormOverflow,            ///< rms_norm() met a row whose mean square overflows to infinity
  CausalSoftmaxRank,          ///< causal_softmax() scores of rank below two
  CausalMoreQueriesThanKeys,  ///< Tq > Tk: the first queries would see no key at all
  RotaryZeroWidth,            ///< a rotary table of width 0
  RotaryOddWidth,             ///< a rotary table of odd width: features rotate in pairs
  RotaryZeroCapacity,         ///< a rotary table with room for no position
  RotaryInvalidBase,          ///< a rotary base that is not finite and positive
  RotaryNonFiniteTable,       ///< a frequency or angle of the table overflows
  RotaryInputRank,            ///< rotary_pairs() input of rank below two [..., T, D]
  RotaryWidthMismatch,        ///< rotary_pairs() input width differs from the table's
  RotaryPositionRange,        ///< offset + T exceeds the table's capacity (or overflows)
};
// endregion: decoder-op-error-kinds

/// The offending values of a DecoderOpError; a kind leaves the fields it does
/// not use empty or zero.
struct DecoderOpErrorEvidence {
  Shape shape{};                          ///< the offending operand's shape
  std::vector<std::size_t> coordinate{};  ///< the first offending element
  double value = 0.0;                     ///< the offending number (input, factor, epsilon, base)
  std::size_t expected = 0;               ///< the width required
  std::size_t row = 0;                    ///< RmsNormZeroEnergyRow, RmsNormOverflow: the row
  std::size_t queries = 0;                ///< Tq of causal scores
  std::size_t keys = 0;                   ///< Tk of causal scores
  std::size_t width = 0;                  ///< a rotary table's requested width
  std::size_t position = 0;               ///< RotaryNonFiniteTable: the position
  std::size_t pair = 0;                   ///< RotaryNonFiniteTable: the pair (0 for a frequency)
  std::size_t offset = 0;                 ///< RotaryPositionRange: the first position
  std::size_t tokens = 0;                 ///< RotaryPositionRange: T
  std::size_t capacity = 0;               ///< RotaryPositionRange: the table's capacity
};

// region: decoder-op-error-table
/// The `decoder-operation` area: each kind's stable name and message, in enum order.
struct DecoderOpErrorTraits {
  using Kind = DecoderOpErrorKind;                               ///< the area's kinds
  using Evidence = DecoderOpErrorEvidence;                       ///< the offending values
  static constexpr std::string_view area = "decoder-operation";  ///< Error::area()
  /// Each kind's stable name and message, in enum order.
  static constexpr std::array<ErrorKindSpec<Kind>, 20> kinds{{
      {Kind::NonFiniteFactor, "non-finite-factor", "scale needs a finite factor, got {value}"},
      {Kind::RsqrtNonPositiveInput, "rsqrt-non-positive-input",
       "rsqrt needs positive inputs, but the value at coordinate {coordinate} of shape {shape} "
       "is {value}"},
      {Kind::DivisionByZero, "division-by-zero",
       "div's divisor is zero at coordinate {coordinate} of its shape {shape}"},
      {Kind::RmsNormInputRank, "rms-norm-input-rank",
       "rms_norm needs an input with a feature axis [..., D], got a rank-zero value"},
      {Kind::RmsNormGainRank, "rms-norm-gain-rank",
       "rms_norm needs a rank-one gain [D], got shape {shape}"},
      {Kind::RmsNormEmptyWidth, "rms-norm-empty-width",
       "rms_norm needs at least one feature, got a gain of shape {shape}"},
      {Kind::RmsNormWidthMismatch, "rms-norm-width-mismatch",
       "rms_norm input's last extent must be the gain's width {expected}, got shape {shape}"},
      {Kind::RmsNormInvalidEpsilon, "rms-norm-invalid-epsilon",
       "rms_norm epsilon must be finite and at least 0, got {value}"},
      {Kind::RmsNormZeroEnergyRow, "rms-norm-zero-energy-row",
       "rms_norm with epsilon 0 met row {row} of shape {shape} whose mean square is 0"},
      {Kind::RmsNormOverflow, "rms-norm-overflow",
       "rms_norm's mean square of row {row} of shape {shape} overflows"},
      {Kind::CausalSoftmaxRank, "causal-softmax-rank",
       "causal_softmax needs scores [..., Tq, Tk] of rank at least 2, got shape {shape}"},
      {Kind::CausalMoreQueriesThanKeys, "causal-more-queries-than-keys",
       "a causal mask needs Tq <= Tk (query i sees keys 0..Tk-Tq+i), got {queries} queries and "
       "{keys} keys"},
      {Kind::RotaryZeroWidth, "rotary-zero-width",
       "a rotary table needs a feature width of at least 2, got 0"},
      {Kind::RotaryOddWidth, "rotary-odd-width",
       "a rotary table rotates adjacent feature pairs, so its width must be even, got {width}"},
      {Kind::RotaryZeroCapacity, "rotary-zero-capacity",
       "a rotary table needs room for at least one position, got capacity 0"},
      {Kind::RotaryInvalidBase, "rotary-invalid-base",
       "a rotary table needs a finite base above 0, got {value}"},
      {Kind::RotaryNonFiniteTable, "rotary-non-finite-table",
       "the rotary table entry at position {position}, pair {pair} is not finite"},
      {Kind::RotaryInputRank, "rotary-input-rank",
       "rotary_pairs needs an input [..., T, D] of rank at least 2, got shape {shape}"},
      {Kind::RotaryWidthMismatch, "rotary-width-mismatch",
       "rotary_pairs input's last extent must be the table's width {expected}, got shape {shape}"},
      {Kind::RotaryPositionRange, "rotary-position-range",
       "rotary_pairs positions from {offset} for {tokens} tokens exceed the table's capacity "
       "{capacity}"},
  }};
  /// Each evidence field as the message prints it.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};
// endregion: decoder-op-error-table

/// An error of a Part V tape operation (area `decoder-operation`), thrown
/// before anything is computed or recorded: every value, gradient and graph
/// state is bit for bit as before the call.
class DecoderOpError : public KindedError<DecoderOpErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw DecoderOpError(DecoderOpErrorKind::..., {.field = value});`
  explicit DecoderOpError(DecoderOpErrorKind kind, DecoderOpErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}
};

}  // namespace llm
