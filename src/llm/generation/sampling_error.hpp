// The typed error of sampling and generation (area `sampling`): a logit row,
// a temperature or top-k, a prompt or a stop token that cannot define the
// next token. Taught in chapter 36. Every sampling function checks before it
// draws, so a throw leaves the generator's state unchanged. Written in the
// one pattern of src/llm/error.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "llm/error.hpp"

namespace llm {

// region: sampling-error-kinds
/// What sampling or a generation loop rejected.
enum class SamplingErrorKind {
  EmptyLogits,            ///< a logit row with no class
  VocabularyTooLarge,     ///< more classes than 32-bit token IDs can name
  NonFiniteLogit,         ///< a logit is NaN or infinite
  InvalidTemperature,     ///< a temperature that is not finite and > 0
  InvalidTopK,            ///< top-k outside 1..V
  InvalidProbabilitySum,  ///< the probabilities do not sum to 1 within 1e-12 (a bug guard)
  EmptyPrompt,            ///< generation from no token
  PromptTooLong,          ///< a prompt longer than the model's context
  PromptTokenOutOfRange,  ///< a prompt token ID >= V
  StopTokenOutOfRange,    ///< an end-of-sequence token ID >= V
  LogitCountMismatch,     ///< the model returned a row of another length than V
};
// endregion: sampling-error-kinds

/// The offending values of a SamplingError; a kind leaves the fields it does
/// not use empty or zero.
struct SamplingErrorEvidence {
  std::size_t classes = 0;  ///< the vocabulary size V (the row length expected)
  std::size_t index = 0;    ///< NonFiniteLogit: the token; PromptTokenOutOfRange: the position
  std::uint64_t token = 0;  ///< the offending token ID
  std::size_t top_k = 0;    ///< InvalidTopK
  std::size_t length = 0;   ///< PromptTooLong: prompt tokens; LogitCountMismatch: row length
  std::size_t context = 0;  ///< PromptTooLong: the model's context capacity
  double value = 0.0;       ///< the offending logit, temperature or probability sum
};

// region: sampling-error-table
/// The `sampling` area: each kind's stable name and message, in enum order.
struct SamplingErrorTraits {
  using Kind = SamplingErrorKind;                       ///< the area's kinds
  using Evidence = SamplingErrorEvidence;               ///< the offending values
  static constexpr std::string_view area = "sampling";  ///< Error::area()
  /// Each kind's stable name and message, in enum order.
  static constexpr std::array<ErrorKindSpec<Kind>, 11> kinds{{
      {Kind::EmptyLogits, "empty-logits", "sampling needs at least one logit"},
      {Kind::VocabularyTooLarge, "vocabulary-too-large",
       "{classes} classes do not fit 32-bit token IDs"},
      {Kind::NonFiniteLogit, "non-finite-logit", "the logit of token {index} is {value}"},
      {Kind::InvalidTemperature, "invalid-temperature",
       "the temperature must be finite and positive, got {value}"},
      {Kind::InvalidTopK, "invalid-top-k", "top-k must be in 1..{classes}, got {top_k}"},
      {Kind::InvalidProbabilitySum, "invalid-probability-sum",
       "the sampling probabilities sum to {value}, not 1"},
      {Kind::EmptyPrompt, "empty-prompt", "generation needs a prompt of at least one token"},
      {Kind::PromptTooLong, "prompt-too-long",
       "the prompt has {length} tokens, more than the context of {context}"},
      {Kind::PromptTokenOutOfRange, "prompt-token-out-of-range",
       "prompt token {token} at position {index} is outside the vocabulary of {classes}"},
      {Kind::StopTokenOutOfRange, "stop-token-out-of-range",
       "the end-of-sequence token {token} is outside the vocabulary of {classes}"},
      {Kind::LogitCountMismatch, "logit-count-mismatch",
       "the model returned {length} logits for a vocabulary of {classes}"},
  }};
  /// One evidence field as the message prints it.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};
// endregion: sampling-error-table

/// An error of chapter 36's sampling or of a generation loop (area
/// `sampling`), thrown before any draw: the generator is unchanged.
class SamplingError : public KindedError<SamplingErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw SamplingError(SamplingErrorKind::..., {.field = value});`
  explicit SamplingError(SamplingErrorKind kind, SamplingErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}
};

}  // namespace llm
