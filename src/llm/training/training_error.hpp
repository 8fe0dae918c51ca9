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
};
// endregion: training-error-kinds

/// The offending values of a TrainingError; a kind leaves the fields it does
/// not use empty or zero.
struct TrainingErrorEvidence {
  std::size_t step = 0;        ///< the scheduled or validation step concerned (1-based updates)
  std::size_t previous = 0;    ///< ValidationStepsNotIncreasing: the step before it
  std::size_t final_step = 0;  ///< the schedule's last update
  double value = 0.0;          ///< the rejected rate or threshold
  double scaled_root = 0.0;    ///< UnrepresentableClip: sqrt(sum (|g| / largest)^2)
};

// region: training-error-table
/// The `training` area: each kind's stable name and message, in enum order.
struct TrainingErrorTraits {
  using Kind = TrainingErrorKind;
  using Evidence = TrainingErrorEvidence;
  static constexpr std::string_view area = "training";
  static constexpr std::array<ErrorKindSpec<Kind>, 9> kinds{{
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
  using KindedError::KindedError;
};

}  // namespace llm
