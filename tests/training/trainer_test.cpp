// Chapter 33: the training loop with selection on validation, on a small
// embedding + projection language model: the plan's checks, the six events
// of every update, evaluation that records no graph and changes no gradient,
// the earliest validation minimum with its optimizer state, the test
// partition refused before anything changes, and a bit-exact replay.
#include "llm/training/trainer.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "support/test_support.hpp"
#include "training/tiny_language_model.hpp"

namespace llm {
namespace {

using testing::bits_of;
using testing::capture_error;
using testing::epoch_of;
using testing::TinyLanguageModel;

const std::vector<std::vector<TokenId>> kTrain = {{0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1},
                                                  {2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3}};
const std::vector<std::vector<TokenId>> kValidation = {{0, 1, 2, 3, 4, 0, 1, 2, 3},
                                                       {0, 0, 0, 0, 0, 0, 0, 0, 0}};

struct Fixture {
  TinyLanguageModel model = TinyLanguageModel::initialized(5, 4, 33);
  MiniBatchEpoch updates = epoch_of(Partition::Train, kTrain, 2, BatchOrder::shuffled(33));
  MiniBatchEpoch train_evaluation = epoch_of(Partition::Train, kTrain, 5, BatchOrder::sequential());
  MiniBatchEpoch validation =
      epoch_of(Partition::Validation, kValidation, 4, BatchOrder::sequential());
  AdamW optimizer{
      AdamWConfig::create(0.04, 0.9, 0.999, 1e-8, 0.01),
      AdamWParameterGroups::create({"projection.weight", "token_embedding.weight"}, {})};
  TrainerConfig config = TrainerConfig::create(
      LearningRateSchedule::create({0.04, 0.04, 0.025, 0.025, 0.015, 0.015, 0.008, 0.008}),
      {0, 2, 4, 6, 8}, 0.35);

  TrainingRun run() const {
    return train_with_selection(model.trainable(2), optimizer, updates, train_evaluation,
                                validation, config);
  }
};

std::vector<std::uint64_t> value_bits(const std::vector<NamedValue>& values) {
  std::vector<std::uint64_t> bits;
  for (const NamedValue& value : values) {
    for (std::uint64_t b : bits_of(value.value)) bits.push_back(b);
  }
  return bits;
}

TEST(TrainerConfig, RejectsEveryFaultyPlanInOrder) {
  const auto schedule = LearningRateSchedule::create({0.1, 0.05});
  const auto kind = [&](std::vector<std::size_t> steps, double norm) {
    return capture_error<TrainingError>([&] { TrainerConfig::create(schedule, steps, norm); })
        ->kind();
  };
  EXPECT_EQ(kind({0, 2}, 0.0), TrainingErrorKind::InvalidMaximumNorm);
  EXPECT_EQ(kind({}, 1.0), TrainingErrorKind::EmptyValidationSteps);
  EXPECT_EQ(kind({1, 2}, 1.0), TrainingErrorKind::ValidationMustStartAtZero);
  EXPECT_EQ(kind({0, 3}, 1.0), TrainingErrorKind::ValidationStepOutOfRange);
  EXPECT_EQ(kind({0, 1, 1, 2}, 1.0), TrainingErrorKind::ValidationStepsNotIncreasing);
  EXPECT_EQ(kind({0, 1}, 1.0), TrainingErrorKind::ValidationMustEndAtFinalStep);
  EXPECT_NO_THROW(TrainerConfig::create(schedule, {0, 2}, 1.0));
}

TEST(Trainer, RunsEveryPlannedUpdateAndSelectsTheValidationMinimum) {
  const Fixture fixture;
  const auto initial = value_bits(fixture.model.parameters.named_values());
  const TrainingRun run = fixture.run();

  ASSERT_EQ(run.steps.size(), 8u);
  for (std::size_t t = 0; t < 8; ++t) {
    EXPECT_EQ(run.steps[t].step, t + 1);
    EXPECT_EQ(run.steps[t].learning_rate, fixture.config.schedule().rates()[t]);
    EXPECT_EQ(run.steps[t].batch_index, t % 10);
    EXPECT_TRUE(std::isfinite(run.steps[t].train_loss));
  }
  bool clipped = false;
  for (const TrainingStep& step : run.steps) {
    clipped |= step.clip.clipped;
    EXPECT_LE(step.clip.norm_after, 0.35);
  }
  EXPECT_TRUE(clipped);  // the threshold is low enough to act

  ASSERT_EQ(run.checkpoints.size(), 5u);
  std::size_t best = 0;
  for (std::size_t i = 0; i < run.checkpoints.size(); ++i) {
    EXPECT_EQ(run.checkpoints[i].step, fixture.config.validation_steps()[i]);
    EXPECT_EQ(run.checkpoints[i].train.recorded_graphs, 0u);
    EXPECT_EQ(run.checkpoints[i].validation.token_count, 14u * 2);
    if (run.checkpoints[i].validation.mean_loss < run.checkpoints[best].validation.mean_loss) {
      best = i;
    }
  }
  EXPECT_LT(run.checkpoints.back().train.mean_loss, run.checkpoints.front().train.mean_loss);
  EXPECT_EQ(run.selected.step, run.checkpoints[best].step);
  EXPECT_TRUE(run.checkpoints[best].selected);
  EXPECT_EQ(run.selected.optimizer.step_count, run.selected.step);
  EXPECT_EQ(run.final_optimizer.step_count, 8u);
  // The loop updated the model's own parameters; the optimizer passed in is untouched.
  EXPECT_NE(value_bits(fixture.model.parameters.named_values()), initial);
  EXPECT_EQ(value_bits(fixture.model.parameters.named_values()), value_bits(run.final_parameters));
  EXPECT_EQ(fixture.optimizer.step_count(), 0u);
  for (const NamedParameter& entry : fixture.model.parameters) {  // zero-grad ran last
    for (double g : entry.parameter.gradient()->values()) EXPECT_EQ(g, 0.0);
  }
}

// The selected parameters, loaded into a fresh model, score exactly the
// validation loss recorded at their step.
TEST(Trainer, TheSelectedStateReproducesItsValidationLoss) {
  const Fixture fixture;
  const TrainingRun run = fixture.run();
  const TinyLanguageModel fresh = TinyLanguageModel::initialized(5, 4, 1);
  fresh.parameters.load(run.selected.parameters);
  const Evaluation evaluation =
      evaluate_without_gradients(fresh.trainable(2), fixture.validation, "validation");
  EXPECT_EQ(std::bit_cast<std::uint64_t>(evaluation.mean_loss),
            std::bit_cast<std::uint64_t>(run.selected.validation_loss));
}

TEST(Trainer, ReplaysBitForBit) {
  const TrainingRun first = Fixture().run();
  const TrainingRun second = Fixture().run();
  EXPECT_EQ(first.steps, second.steps);
  EXPECT_EQ(first.checkpoints, second.checkpoints);
  EXPECT_EQ(value_bits(first.final_parameters), value_bits(second.final_parameters));
  EXPECT_EQ(first.final_optimizer, second.final_optimizer);
}

TEST(Trainer, EvaluationIsTokenWeightedAndLeavesGradientsAlone) {
  const Fixture fixture;
  const TrainableModel model = fixture.model.trainable(2);
  // A stored gradient that evaluation must not touch.
  const TensorValue loss = model.loss(fixture.updates.batches()[0]);
  loss.backward();
  const auto gradient = bits_of(*fixture.model.embedding.table().gradient());
  const Evaluation evaluation = evaluate_without_gradients(model, fixture.validation);
  EXPECT_EQ(bits_of(*fixture.model.embedding.table().gradient()), gradient);
  double weighted = 0.0;
  for (const MiniBatch& batch : fixture.validation.batches()) {
    const NoGradScope scope;
    weighted += model.loss(batch).value().at({}) * static_cast<double>(batch.token_count());
  }
  EXPECT_EQ(evaluation.mean_loss, weighted / 28.0);
  EXPECT_EQ(evaluation.batch_count, 4u);  // 14 windows in batches of 4
}

TEST(Trainer, ABadRunIsRefusedBeforeAnythingChanges) {
  Fixture fixture;
  const auto initial = value_bits(fixture.model.parameters.named_values());
  const MiniBatchEpoch test = epoch_of(Partition::Test, kValidation, 4, BatchOrder::sequential());
  const auto refused = [&](auto&& call) {
    const auto error = capture_error<TrainingError>(call);
    EXPECT_EQ(value_bits(fixture.model.parameters.named_values()), initial);
    return error->kind();
  };
  const TrainableModel model = fixture.model.trainable(2);
  EXPECT_EQ(refused([&] {
              train_with_selection(model, fixture.optimizer, test, fixture.train_evaluation,
                                   fixture.validation, fixture.config);
            }),
            TrainingErrorKind::WrongPartition);  // test_partition_rejected
  EXPECT_EQ(refused([&] {
              train_with_selection(model, fixture.optimizer, fixture.updates,
                                   fixture.train_evaluation, test, fixture.config);
            }),
            TrainingErrorKind::WrongPartition);
  EXPECT_EQ(refused([&] {
              train_with_selection(fixture.model.trainable(1), fixture.optimizer, fixture.updates,
                                   fixture.train_evaluation, fixture.validation, fixture.config);
            }),
            TrainingErrorKind::ContextLengthExceeded);
  const MiniBatchEpoch wide =
      epoch_of(Partition::Validation, {{0, 1, 2, 7, 1}}, 4, BatchOrder::sequential());
  EXPECT_EQ(refused([&] {
              train_with_selection(model, fixture.optimizer, fixture.updates,
                                   fixture.train_evaluation, wide, fixture.config);
            }),
            TrainingErrorKind::TokenOutOfRange);
  AdamW used = fixture.optimizer;
  update_step(model, used, fixture.updates.batches()[0], 1, 0.01, 1.0);
  const auto after_one = value_bits(fixture.model.parameters.named_values());
  const auto error = capture_error<TrainingError>([&] {
    train_with_selection(model, used, fixture.updates, fixture.train_evaluation, fixture.validation,
                         fixture.config);
  });
  EXPECT_EQ(error->kind(), TrainingErrorKind::OptimizerNotFresh);
  EXPECT_EQ(value_bits(fixture.model.parameters.named_values()), after_one);
}

}  // namespace
}  // namespace llm
