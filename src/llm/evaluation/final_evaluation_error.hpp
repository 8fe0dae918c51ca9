// The typed error of the final evaluation (area `final-evaluation`): a test
// epoch that is not one, a second opening of the test gate, a model and a
// baseline that do not score the same targets. Taught in chapter 34. Written
// in the one pattern of src/llm/error.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "llm/error.hpp"

namespace llm {

// region: final-evaluation-error-kinds
/// What the final evaluation refused.
enum class FinalEvaluationErrorKind {
  WrongTestPartition,   ///< the epoch is not from the test partition
  EmptyTestEpoch,       ///< the test epoch has no window
  AlreadyEvaluated,     ///< the test gate was opened before: it opens once
  VocabularyMismatch,   ///< the model and the baseline have different vocabularies
  ContextMismatch,      ///< the test windows are longer than the model's context
  TokenOutOfRange,      ///< a test token outside the vocabulary
  ParametersChanged,    ///< scoring changed a parameter value
  GradientsChanged,     ///< scoring changed a stored gradient
  TargetCountMismatch,  ///< the model and the baseline scored different numbers of targets
};
// endregion: final-evaluation-error-kinds

/// The offending values of a FinalEvaluationError.
struct FinalEvaluationErrorEvidence {
  std::string_view partition{};  ///< WrongTestPartition: the epoch's partition
  std::size_t expected = 0;      ///< the model's vocabulary, context or target count
  std::size_t actual = 0;        ///< the baseline's vocabulary, the windows' length, ...
  std::size_t batch = 0;         ///< TokenOutOfRange: the batch
  std::size_t index = 0;         ///< TokenOutOfRange: the flat position in it
};

/// The `final-evaluation` area: each kind's stable name and message, in enum order.
struct FinalEvaluationErrorTraits {
  using Kind = FinalEvaluationErrorKind;                        ///< the area's kinds
  using Evidence = FinalEvaluationErrorEvidence;                ///< the offending values
  static constexpr std::string_view area = "final-evaluation";  ///< Error::area()
  /// Each kind's stable name and message, in enum order.
  static constexpr std::array<ErrorKindSpec<Kind>, 9> kinds{{
      {Kind::WrongTestPartition, "wrong-test-partition",
       "the final evaluation needs the test partition, got {partition}"},
      {Kind::EmptyTestEpoch, "empty-test-epoch", "the test epoch has no complete window"},
      {Kind::AlreadyEvaluated, "already-evaluated",
       "the test partition was already scored: it is opened once, after every choice"},
      {Kind::VocabularyMismatch, "vocabulary-mismatch",
       "the model has {expected} tokens, the baseline {actual}"},
      {Kind::ContextMismatch, "context-mismatch",
       "the test windows have {actual} tokens, more than the model's context of {expected}"},
      {Kind::TokenOutOfRange, "token-out-of-range",
       "test token {actual} at position {index} of batch {batch} is outside the vocabulary of "
       "{expected}"},
      {Kind::ParametersChanged, "parameters-changed", "scoring the test epoch changed a parameter"},
      {Kind::GradientsChanged, "gradients-changed",
       "scoring the test epoch changed a stored gradient"},
      {Kind::TargetCountMismatch, "target-count-mismatch",
       "the model scored {expected} targets, the baseline {actual}"},
  }};
  /// One evidence field as the message prints it.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};

/// An error of chapter 34's final evaluation (area `final-evaluation`).
class FinalEvaluationError : public KindedError<FinalEvaluationErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw FinalEvaluationError(FinalEvaluationErrorKind::..., {.field = value});`
  explicit FinalEvaluationError(FinalEvaluationErrorKind kind,
                                FinalEvaluationErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}
};

}  // namespace llm
