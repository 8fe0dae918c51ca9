// The training loop with selection on validation (chapter 33).
#include "llm/training/trainer.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <utility>

namespace llm {

// region: trainer-config-create
TrainerConfig TrainerConfig::create(LearningRateSchedule schedule,
                                    std::vector<std::size_t> validation_steps,
                                    double max_gradient_norm) {
  if (!std::isfinite(max_gradient_norm) || max_gradient_norm <= 0.0) {
    throw TrainingError(TrainingErrorKind::InvalidMaximumNorm, {.value = max_gradient_norm});
  }
  if (validation_steps.empty()) throw TrainingError(TrainingErrorKind::EmptyValidationSteps, {});
  if (validation_steps.front() != 0) {
    throw TrainingError(TrainingErrorKind::ValidationMustStartAtZero,
                        {.step = validation_steps.front()});
  }
  const std::size_t final_step = schedule.steps();
  for (std::size_t i = 0; i < validation_steps.size(); ++i) {
    if (validation_steps[i] > final_step) {
      throw TrainingError(TrainingErrorKind::ValidationStepOutOfRange,
                          {.step = validation_steps[i], .final_step = final_step});
    }
    if (i > 0 && validation_steps[i] <= validation_steps[i - 1]) {
      throw TrainingError(TrainingErrorKind::ValidationStepsNotIncreasing,
                          {.step = validation_steps[i], .previous = validation_steps[i - 1]});
    }
  }
  if (validation_steps.back() != final_step) {
    throw TrainingError(TrainingErrorKind::ValidationMustEndAtFinalStep,
                        {.step = validation_steps.back(), .final_step = final_step});
  }
  return TrainerConfig(std::move(schedule), std::move(validation_steps), max_gradient_norm);
}
// endregion: trainer-config-create

namespace {

std::vector<std::uint64_t> gradient_bits(const ParameterSet& parameters) {
  std::vector<std::uint64_t> bits;
  for (const NamedParameter& entry : parameters) {
    for (double value : entry.parameter.gradient()->values()) {
      bits.push_back(std::bit_cast<std::uint64_t>(value));
    }
  }
  return bits;
}

double scalar_loss(const TensorValue& loss, std::string_view role) {
  const SharedTensor value = loss.value();
  if (value.rank() != 0)
    throw TrainingError(TrainingErrorKind::NonScalarLoss, {.shape = value.shape()});
  const double scalar = value.at({});
  if (!std::isfinite(scalar)) {
    throw TrainingError(TrainingErrorKind::NonFiniteLoss, {.role = role, .value = scalar});
  }
  return scalar;
}

// region: check-epoch
void check_epoch(std::string_view role, Partition partition, std::size_t context_length,
                 const TrainableModel& model, const MiniBatchEpoch& epoch) {
  if (epoch.partition() != partition) {
    throw TrainingError(TrainingErrorKind::WrongPartition,
                        {.role = role,
                         .expected_partition = partition_label(partition),
                         .actual_partition = partition_label(epoch.partition())});
  }
  if (epoch.window_count() == 0) throw TrainingError(TrainingErrorKind::EmptyEpoch, {.role = role});
  if (epoch.context_length() != context_length) {
    throw TrainingError(
        TrainingErrorKind::ContextLengthMismatch,
        {.role = role, .expected = context_length, .actual = epoch.context_length()});
  }
  if (epoch.context_length() > model.context) {
    throw TrainingError(
        TrainingErrorKind::ContextLengthExceeded,
        {.role = role, .expected = model.context, .actual = epoch.context_length()});
  }
  for (std::size_t batch = 0; batch < epoch.batches().size(); ++batch) {
    for (std::span<const TokenId> ids :
         {epoch.batches()[batch].inputs(), epoch.batches()[batch].targets()}) {
      for (std::size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] >= model.vocabulary_size) {
          throw TrainingError(TrainingErrorKind::TokenOutOfRange,
                              {.role = role,
                               .expected = model.vocabulary_size,
                               .actual = ids[i],
                               .index = i,
                               .batch = batch});
        }
      }
    }
  }
}
// endregion: check-epoch

LossCheckpoint measure(std::size_t step, const TrainableModel& model,
                       const MiniBatchEpoch& train_evaluation, const MiniBatchEpoch& validation) {
  return LossCheckpoint{
      step, evaluate_without_gradients(model, train_evaluation, "train evaluation"),
      evaluate_without_gradients(model, validation, "validation selection"), false};
}

}  // namespace

// region: evaluate-without-gradients
Evaluation evaluate_without_gradients(const TrainableModel& model, const MiniBatchEpoch& epoch,
                                      std::string_view role) {
  if (epoch.window_count() == 0) throw TrainingError(TrainingErrorKind::EmptyEpoch, {.role = role});
  const std::vector<std::uint64_t> before = gradient_bits(model.parameters);
  Evaluation evaluation;
  double weighted_sum = 0.0;
  for (std::size_t index = 0; index < epoch.batches().size(); ++index) {
    const MiniBatch& batch = epoch.batches()[index];
    const TensorValue loss = [&] {
      const NoGradScope no_graph;  // no node keeps an operand: nothing to reverse
      return model.loss(batch);
    }();
    if (loss.tracks_gradient()) {
      throw TrainingError(TrainingErrorKind::EvaluationRecordedGraph,
                          {.role = role, .batch = index});
    }
    weighted_sum += scalar_loss(loss, role) * static_cast<double>(batch.token_count());
    evaluation.token_count += batch.token_count();
  }
  evaluation.batch_count = epoch.batches().size();
  evaluation.mean_loss = weighted_sum / static_cast<double>(evaluation.token_count);
  if (!std::isfinite(evaluation.mean_loss)) {
    throw TrainingError(TrainingErrorKind::NonFiniteLoss,
                        {.role = role, .value = evaluation.mean_loss});
  }
  if (gradient_bits(model.parameters) != before) {
    throw TrainingError(TrainingErrorKind::EvaluationChangedGradient, {.role = role});
  }
  return evaluation;
}
// endregion: evaluate-without-gradients

// region: update-step
TrainingStep update_step(const TrainableModel& model, AdamW& optimizer, const MiniBatch& batch,
                         std::size_t step, double learning_rate, double max_gradient_norm) {
  const ParameterSet& parameters = model.parameters;
  const TensorValue loss = model.loss(batch);                                   // forward
  loss.backward_with_seed(Tensor::scalar(1.0), Retention::Release);             // backward
  const double train_loss = scalar_loss(loss, "update");                        // finite-check
  const GradientClip clip = clip_gradient_norm(parameters, max_gradient_norm);  // clip
  if (optimizer.step(parameters, {.learning_rate = learning_rate}) != step) {   // adamw-step
    throw TrainingError(TrainingErrorKind::OptimizerStepMismatch,
                        {.expected = step, .actual = optimizer.step_count()});
  }
  parameters.zero_grad();  // zero-grad
  return TrainingStep{step,          0,          {batch.origins().begin(), batch.origins().end()},
                      learning_rate, train_loss, clip};
}
// endregion: update-step

// region: train-with-selection
TrainingRun train_with_selection(const TrainableModel& model, AdamW optimizer,
                                 const MiniBatchEpoch& updates,
                                 const MiniBatchEpoch& train_evaluation,
                                 const MiniBatchEpoch& validation, const TrainerConfig& config) {
  if (optimizer.step_count() != 0) {
    throw TrainingError(TrainingErrorKind::OptimizerNotFresh, {.actual = optimizer.step_count()});
  }
  const std::size_t context_length = updates.context_length();
  check_epoch("update", Partition::Train, context_length, model, updates);
  check_epoch("train evaluation", Partition::Train, context_length, model, train_evaluation);
  check_epoch("validation selection", Partition::Validation, context_length, model, validation);

  const ParameterSet& parameters = model.parameters;
  std::vector<TrainingStep> steps;
  std::vector<LossCheckpoint> checkpoints{measure(0, model, train_evaluation, validation)};
  SelectedState selected{0, checkpoints[0].validation.mean_loss, parameters.named_values(),
                         optimizer.state()};
  for (std::size_t step = 1; step <= config.schedule().steps(); ++step) {
    const std::size_t batch_index = (step - 1) % updates.batches().size();
    const MiniBatch& batch = updates.batches()[batch_index];
    steps.push_back(update_step(model, optimizer, batch, step,
                                *config.schedule().learning_rate(step),
                                config.max_gradient_norm()));
    steps.back().batch_index = batch_index;

    const std::vector<std::size_t>& planned = config.validation_steps();
    if (std::binary_search(planned.begin(), planned.end(), step)) {
      checkpoints.push_back(measure(step, model, train_evaluation, validation));
      const double validation_loss = checkpoints.back().validation.mean_loss;
      if (validation_loss < selected.validation_loss) {  // strict: ties keep the earlier step
        // Values are immutable: keeping the handles keeps this step's state, no copy.
        selected =
            SelectedState{step, validation_loss, parameters.named_values(), optimizer.state()};
      }
    }
  }
  for (LossCheckpoint& checkpoint : checkpoints)
    checkpoint.selected = checkpoint.step == selected.step;
  return TrainingRun{std::move(steps), std::move(checkpoints), std::move(selected),
                     parameters.named_values(), optimizer.state()};
}
// endregion: train-with-selection

}  // namespace llm
