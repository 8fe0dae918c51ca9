// The training loop with model selection on validation (chapter 33).
//
// Every update runs the same six events in the same order:
//     forward > backward > finite-check > clip > adamw-step > zero-grad
// the forward pass computes the batch's mean loss, the backward pass
// (releasing the graph) adds its gradients, the loss is checked finite, the
// global gradient norm is clipped, AdamW steps with the schedule's rate, and
// every gradient is cleared for the next batch. At the planned validation
// steps (step 0, before any update, and the last update among them), the
// whole train and validation epochs are scored without recording a graph.
// The selected state is the earliest validation minimum: the parameters and
// the optimizer state at that step. The test partition is refused.
//
// The loop knows a model only through TrainableModel: its parameter set and
// a function from a batch to its mean loss. Chapter 33 passes the decoder.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <string_view>
#include <vector>

#include "llm/autograd/tensor_value.hpp"
#include "llm/nn/parameter_set.hpp"
#include "llm/training/adamw.hpp"
#include "llm/training/gradient_clipping.hpp"
#include "llm/training/learning_rate_schedule.hpp"
#include "llm/training/mini_batches.hpp"
#include "llm/training/training_error.hpp"

namespace llm {

// region: update-event-order
/// The events of one update, in the order the loop runs them.
inline constexpr std::array<std::string_view, 6> kUpdateEventOrder = {
    "forward", "backward", "finite-check", "clip", "adamw-step", "zero-grad"};
// endregion: update-event-order

// region: trainer-config
/// The plan of one run: a rate per update, when to validate, and the
/// clipping threshold.
class TrainerConfig {
 public:
  /// Checks, in this order: max_gradient_norm finite and > 0; at least one
  /// validation step; the first at step 0; each later one at most the last
  /// update and greater than the one before; the last one the last update.
  /// @throws TrainingError InvalidMaximumNorm, EmptyValidationSteps,
  ///         ValidationMustStartAtZero, ValidationStepOutOfRange,
  ///         ValidationStepsNotIncreasing, ValidationMustEndAtFinalStep.
  static TrainerConfig create(LearningRateSchedule schedule,
                              std::vector<std::size_t> validation_steps, double max_gradient_norm);

  /// The learning rate of every step.
  const LearningRateSchedule& schedule() const noexcept { return schedule_; }
  /// Steps after which both epochs are scored (0 = before any update).
  const std::vector<std::size_t>& validation_steps() const noexcept { return validation_steps_; }
  /// The clipping threshold c.
  double max_gradient_norm() const noexcept { return max_gradient_norm_; }

 private:
  TrainerConfig(LearningRateSchedule schedule, std::vector<std::size_t> validation_steps,
                double max_gradient_norm)
      : schedule_(std::move(schedule)),
        validation_steps_(std::move(validation_steps)),
        max_gradient_norm_(max_gradient_norm) {}
  LearningRateSchedule schedule_;
  std::vector<std::size_t> validation_steps_;
  double max_gradient_norm_;
};
// endregion: trainer-config

// region: trainable-model
/// A model as the loop sees it.
struct TrainableModel {
  ParameterSet parameters;  ///< what AdamW updates (the model's own handles)
  /// The mean next-token loss [] of one batch, recorded on the tape when
  /// gradients are tracked (chapter 32's DecoderModel::loss).
  std::function<TensorValue(const MiniBatch& batch)> loss;
  std::size_t vocabulary_size = 0;  ///< token IDs must be below it
  std::size_t context = 0;          ///< windows may not be longer
};
// endregion: trainable-model

// region: evaluation-result
/// One token-weighted mean loss over a whole epoch.
struct Evaluation {
  double mean_loss = 0.0;           ///< sum over batches of loss * tokens, divided by tokens
  std::size_t token_count = 0;      ///< target tokens scored
  std::size_t batch_count = 0;      ///< batches scored
  std::size_t recorded_graphs = 0;  ///< losses that tracked a gradient (always 0)

  /// Field-by-field equality.
  bool operator==(const Evaluation&) const = default;
};

/// Scores every batch of `epoch` under a NoGradScope, weighting each batch's
/// mean loss by its token count, and checks that no graph was recorded and
/// no stored gradient changed.
/// @throws TrainingError EmptyEpoch, NonScalarLoss, NonFiniteLoss,
///         EvaluationRecordedGraph, EvaluationChangedGradient; and what the loss throws.
Evaluation evaluate_without_gradients(const TrainableModel& model, const MiniBatchEpoch& epoch,
                                      std::string_view role = "evaluation");
// endregion: evaluation-result

// region: training-run-result
/// The train and validation scores after one planned step.
struct LossCheckpoint {
  std::size_t step = 0;   ///< updates done before the scoring (0: none)
  Evaluation train;       ///< the training epoch's score
  Evaluation validation;  ///< the validation epoch's score
  bool selected = false;  ///< the earliest validation minimum

  /// Field-by-field equality.
  bool operator==(const LossCheckpoint&) const = default;
};

/// What one update did.
struct TrainingStep {
  std::size_t step = 0;               ///< 1-based
  std::size_t batch_index = 0;        ///< which batch of the update epoch
  std::vector<WindowOrigin> windows;  ///< the batch's rows
  double learning_rate = 0.0;         ///< the schedule's rate
  double train_loss = 0.0;            ///< the batch's mean loss before the update
  GradientClip clip;                  ///< the global norm and what clipping did

  /// Field-by-field equality.
  bool operator==(const TrainingStep&) const = default;
};

/// The state selection chose: parameters and optimizer at the same step.
struct SelectedState {
  std::size_t step = 0;                ///< the step selection chose
  double validation_loss = 0.0;        ///< its validation loss
  std::vector<NamedValue> parameters;  ///< shared values (immutable), in set order
  AdamWState optimizer;                ///< AdamW::from_state continues it
};

/// Everything one run produced.
struct TrainingRun {
  std::vector<TrainingStep> steps;           ///< one per update
  std::vector<LossCheckpoint> checkpoints;   ///< one per planned scoring
  SelectedState selected;                    ///< the state selection chose
  std::vector<NamedValue> final_parameters;  ///< after the last update
  AdamWState final_optimizer;                ///< after the last update
};
// endregion: training-run-result

// region: update-step-declaration
/// One update on `batch` as update number `step`, the six events of
/// kUpdateEventOrder in order: loss, backward (releasing the graph), the
/// loss checked finite, clip to `max_gradient_norm`, one AdamW step at
/// `learning_rate`, every gradient cleared. A resumed run calls it for the
/// updates that are left (the checkpoint test does).
/// @throws TrainingError NonScalarLoss, NonFiniteLoss, InvalidMaximumNorm,
///         UnrepresentableClip, OptimizerStepMismatch; AdamWError from the step.
TrainingStep update_step(const TrainableModel& model, AdamW& optimizer, const MiniBatch& batch,
                         std::size_t step, double learning_rate, double max_gradient_norm);
// endregion: update-step-declaration

// region: train-with-selection-declaration
/// Runs every planned update on `model` (its parameters are updated in
/// place and hold the last update's values afterwards) with a copy of
/// `optimizer`, which must not have stepped yet. Update t uses batch
/// (t - 1) mod |batches| of `updates`. Checks before the first update, in
/// this order: a fresh optimizer; each epoch (updates, train evaluation,
/// validation) from the right partition (train, train, validation), not
/// empty, of the update epoch's window length, within the model's context,
/// with every token below its vocabulary.
/// @throws TrainingError OptimizerNotFresh, WrongPartition, EmptyEpoch,
///         ContextLengthMismatch, ContextLengthExceeded, TokenOutOfRange
///         (nothing has changed); during the run NonScalarLoss,
///         NonFiniteLoss, UnrepresentableClip, OptimizerStepMismatch, the
///         evaluation kinds; AdamWError from a step.
TrainingRun train_with_selection(const TrainableModel& model, AdamW optimizer,
                                 const MiniBatchEpoch& updates,
                                 const MiniBatchEpoch& train_evaluation,
                                 const MiniBatchEpoch& validation, const TrainerConfig& config);
// endregion: train-with-selection-declaration

}  // namespace llm
