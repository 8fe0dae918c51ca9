// The typed error of the training loop of chapter 33 (area `training`): a
// learning-rate schedule, a clipping threshold, a validation plan or an epoch
// the loop cannot use, and a step that went wrong. Written in the one pattern
// of src/llm/error.hpp: the kinds, one table of names and messages, the
// evidence.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "llm/error.hpp"
#include "llm/tensor/shape.hpp"

namespace llm {

// region: training-error-kinds
/// What the training loop, its schedule or its clipping rejected.
enum class TrainingErrorKind {
  EmptySchedule,                 ///< a learning-rate schedule with no step
  InvalidScheduledRate,          ///< a scheduled rate that is not finite and > 0
  InvalidMaximumNorm,            ///< a clipping threshold that is not finite and > 0
  UnrepresentableClip,           ///< max_norm / scaled_root underflows to 0: no positive factor
  EmptyValidationSteps,          ///< a validation plan with no step
  ValidationMustStartAtZero,     ///< the first validation is not at step 0 (before any update)
  ValidationStepsNotIncreasing,  ///< validation steps not strictly increasing
  ValidationStepOutOfRange,      ///< a validation step after the schedule's last update
  ValidationMustEndAtFinalStep,  ///< the last validation is not at the schedule's last update
  OptimizerNotFresh,             ///< a run must start from an optimizer that has taken no step
  WrongPartition,                ///< an epoch of another partition than its role needs
  EmptyEpoch,                    ///< an epoch with no complete window
  ContextLengthMismatch,         ///< epochs of different window lengths
  ContextLengthExceeded,         ///< windows longer than the model's context
  TokenOutOfRange,               ///< a token ID the model's vocabulary does not hold
  NonScalarLoss,                 ///< the model's loss is not rank zero
  NonFiniteLoss,                 ///< a loss (or a mean of losses) is NaN or infinite
  EvaluationRecordedGraph,       ///< an evaluation recorded a graph: it could change gradients
  EvaluationChangedGradient,     ///< an evaluation changed a stored gradient
  OptimizerStepMismatch,         ///< the optimizer's step count is not the update's number
};
// endregion: training-error-kinds

/// The offending values of a TrainingError; a kind leaves the fields it does
/// not use empty or zero.
struct TrainingErrorEvidence {
  std::string_view role{};                ///< `update`, `train evaluation`, `validation selection`
  std::string_view expected_partition{};  ///< WrongPartition: what the role needs
  std::string_view actual_partition{};    ///< WrongPartition: what the epoch holds
  std::size_t step = 0;        ///< the scheduled or validation step concerned (1-based updates)
  std::size_t previous = 0;    ///< ValidationStepsNotIncreasing: the step before it
  std::size_t final_step = 0;  ///< the schedule's last update
  double value = 0.0;          ///< the rejected rate or threshold
  double scaled_root = 0.0;    ///< UnrepresentableClip: sqrt(sum (|g| / largest)^2)
  std::size_t expected = 0;    ///< the length, context, vocabulary or step required
  std::size_t actual = 0;      ///< what was found
  std::size_t index = 0;       ///< TokenOutOfRange: the flat position in its batch
  std::size_t batch = 0;       ///< TokenOutOfRange, EvaluationRecordedGraph: the batch
  Shape shape{};               ///< NonScalarLoss: the loss's shape
};

// region: training-error-table
/// The `training` area: each kind's stable name and message, in enum order.
struct TrainingErrorTraits {
  using Kind = TrainingErrorKind;                       ///< the area's kinds
  using Evidence = TrainingErrorEvidence;               ///< the offending values
  static constexpr std::string_view area = "training";  ///< Error::area()
  /// Each kind's stable name and message, in enum order.
  static constexpr std::array<ErrorKindSpec<Kind>, 20> kinds{{
      {Kind::EmptySchedule, "empty-schedule", "a learning-rate schedule needs at least one step"},
      {Kind::InvalidScheduledRate, "invalid-scheduled-rate",
       "the learning rate of update {step} must be finite and positive, got {value}"},
      {Kind::InvalidMaximumNorm, "invalid-maximum-norm",
       "the clipping threshold must be finite and positive, got {value}"},
      {Kind::UnrepresentableClip, "unrepresentable-clip",
       "clipping to {value} needs the factor {value} / {scaled_root}, which underflows to 0"},
      {Kind::EmptyValidationSteps, "empty-validation-steps",
       "validation needs at least step 0 and the final update"},
      {Kind::ValidationMustStartAtZero, "validation-must-start-at-zero",
       "validation must start at step 0 (before any update), got {step}"},
      {Kind::ValidationStepsNotIncreasing, "validation-steps-not-increasing",
       "validation steps must increase strictly, got {previous} then {step}"},
      {Kind::ValidationStepOutOfRange, "validation-step-out-of-range",
       "validation step {step} is after the final update {final_step}"},
      {Kind::ValidationMustEndAtFinalStep, "validation-must-end-at-final-step",
       "validation must end at the final update {final_step}, got {step}"},
      {Kind::OptimizerNotFresh, "optimizer-not-fresh",
       "a run starts from an optimizer at step 0, this one is at step {actual}"},
      {Kind::WrongPartition, "wrong-partition",
       "the {role} epoch must come from the {expected_partition} partition, not "
       "{actual_partition}"},
      {Kind::EmptyEpoch, "empty-epoch", "the {role} epoch has no complete window"},
      {Kind::ContextLengthMismatch, "context-length-mismatch",
       "the {role} epoch has windows of {actual} tokens, the update epoch of {expected}"},
      {Kind::ContextLengthExceeded, "context-length-exceeded",
       "the {role} epoch has windows of {actual} tokens, more than the model's context of "
       "{expected}"},
      {Kind::TokenOutOfRange, "token-out-of-range",
       "the {role} epoch holds token {actual} at position {index} of batch {batch}, outside the "
       "vocabulary of {expected}"},
      {Kind::NonScalarLoss, "non-scalar-loss", "the model's loss must be rank zero, got {shape}"},
      {Kind::NonFiniteLoss, "non-finite-loss", "the {role} loss became {value}"},
      {Kind::EvaluationRecordedGraph, "evaluation-recorded-graph",
       "evaluating batch {batch} of the {role} epoch recorded a graph"},
      {Kind::EvaluationChangedGradient, "evaluation-changed-gradient",
       "evaluating the {role} epoch changed a stored gradient"},
      {Kind::OptimizerStepMismatch, "optimizer-step-mismatch",
       "update {expected} left the optimizer at step {actual}"},
  }};
  /// One evidence field as the message prints it.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};
// endregion: training-error-table

/// An error of chapter 33's training loop (area `training`). Thrown before
/// anything it guards changes: a rejected schedule or plan builds nothing, a
/// rejected clip leaves every gradient as it was.
class TrainingError : public KindedError<TrainingErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw TrainingError(TrainingErrorKind::..., {.field = value});`
  explicit TrainingError(TrainingErrorKind kind, TrainingErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}
};

}  // namespace llm
