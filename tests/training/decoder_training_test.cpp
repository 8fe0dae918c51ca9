// Chapter 33 on the decoder: the training fixture of the reference edition's
// chapter 33 (chapters/common/chapter33_fixture.hpp) trained through
// train_with_selection, every printed number of its expected output
// reproduced from our own run (six decimals, as the chapter prints them).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>
#include <vector>

#include "chapter33_fixture.hpp"
#include "llm/format.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

namespace fixture = ch33;
using testing::bits_of;
using testing::capture_error;

std::vector<std::uint64_t> value_bits(const ParameterSet& parameters) {
  std::vector<std::uint64_t> bits;
  for (const NamedParameter& entry : parameters) {
    for (std::uint64_t b : bits_of(entry.parameter.value())) bits.push_back(b);
  }
  return bits;
}

std::vector<std::uint64_t> value_bits(const std::vector<NamedValue>& values) {
  std::vector<std::uint64_t> bits;
  for (const NamedValue& value : values) {
    for (std::uint64_t b : bits_of(value.value)) bits.push_back(b);
  }
  return bits;
}

// A model of the same configuration holding `model`'s values as its own
// (new tape nodes): training it leaves `model` alone.
DecoderModel independent_copy(const DecoderModel& model) {
  SplitMix64 placeholder(0);
  const DecoderModel copy = DecoderModel::initialized(model.config(), placeholder);
  copy.parameters().load(model.parameters().named_values());
  return copy;
}

std::string checkpoint_line(const LossCheckpoint& checkpoint) {
  return "checkpoint=step:" + std::to_string(checkpoint.step) +
         " train_loss:" + format_fixed(checkpoint.train.mean_loss, 6) +
         " validation_loss:" + format_fixed(checkpoint.validation.mean_loss, 6) +
         " selected:" + (checkpoint.selected ? "true" : "false") +
         " train_graphs:" + std::to_string(checkpoint.train.recorded_graphs) +
         " validation_graphs:" + std::to_string(checkpoint.validation.recorded_graphs);
}

// config=vocabulary:5 model_width:4 layers:1 heads:2 context:2 parameters:144 updates:8 batch:2
// clip_norm:0.350000
// order=forward>backward>finite-check>clip>adamw-step>zero-grad
// schedule=[0.040000,0.040000,0.025000,0.025000,0.015000,0.015000,0.008000,0.008000]
TEST(DecoderTraining, TheFixtureIsChapter33s) {
  const DecoderModel model = fixture::initial_model();
  EXPECT_EQ(model.parameters().size(), 11u);
  EXPECT_EQ(model.parameter_count(), 144u);
  EXPECT_EQ(fixture::updates().window_count(), 20u);
  EXPECT_EQ(fixture::updates().batches().size(), 10u);
  EXPECT_EQ(fixture::updates().batches()[0].width(), 2u);
  EXPECT_EQ(fixture::train_evaluation().window_count(), 20u);
  EXPECT_EQ(fixture::validation().window_count(), 14u);
  EXPECT_EQ(format_fixed(fixture::kMaxGradientNorm, 6), "0.350000");
  std::string order;
  for (std::string_view event : kUpdateEventOrder)
    order += (order.empty() ? "" : ">") + std::string(event);
  EXPECT_EQ(order, "forward>backward>finite-check>clip>adamw-step>zero-grad");
  std::string schedule;
  const TrainerConfig config = fixture::trainer_config();  // rates() refers into it
  for (double rate : config.schedule().rates()) {
    schedule += (schedule.empty() ? "[" : ",") + format_fixed(rate, 6);
  }
  EXPECT_EQ(schedule + "]",
            "[0.040000,0.040000,0.025000,0.025000,0.015000,0.015000,0.008000,0.008000]");
}

// checkpoint=step:0 ... checkpoint=step:8 (five lines), selection=step:8 validation_loss:1.595297
TEST(DecoderTraining, ReproducesChapter33sCheckpointsAndSelection) {
  const TrainingRun run = fixture::run();
  std::vector<std::string> lines;
  for (const LossCheckpoint& checkpoint : run.checkpoints)
    lines.push_back(checkpoint_line(checkpoint));
  EXPECT_EQ(lines,
            (std::vector<std::string>{
                "checkpoint=step:0 train_loss:2.095016 validation_loss:1.918167 selected:false "
                "train_graphs:0 validation_graphs:0",
                "checkpoint=step:2 train_loss:1.562026 validation_loss:1.696310 selected:false "
                "train_graphs:0 validation_graphs:0",
                "checkpoint=step:4 train_loss:1.453259 validation_loss:1.687788 selected:false "
                "train_graphs:0 validation_graphs:0",
                "checkpoint=step:6 train_loss:1.369832 validation_loss:1.642599 selected:false "
                "train_graphs:0 validation_graphs:0",
                "checkpoint=step:8 train_loss:1.322897 validation_loss:1.595297 selected:true "
                "train_graphs:0 validation_graphs:0",
            }));
  EXPECT_EQ(run.selected.step, 8u);
  EXPECT_EQ(format_fixed(run.selected.validation_loss, 6), "1.595297");
  EXPECT_EQ(run.selected.optimizer.step_count, 8u);
  ASSERT_EQ(run.steps.size(), 8u);
  for (std::size_t t = 0; t < run.steps.size(); ++t) {
    EXPECT_EQ(run.steps[t].learning_rate, fixture::kLearningRates[t]);
  }
}

// selection=... test_partition_rejected:true: the test partition is refused
// before anything runs, by role and partition.
TEST(DecoderTraining, TheTestPartitionIsRefusedBeforeAnyUpdate) {
  const DecoderModel model = fixture::initial_model();
  const auto before = value_bits(model.parameters());
  const MiniBatchEpoch test_probe =
      fixture::epoch(Partition::Test, "validation", fixture::kValidationA, fixture::kValidationB, 4,
                     BatchOrder::sequential());
  const auto error = capture_error<TrainingError>([&] {
    train_with_selection(trainable_decoder(model), fixture::fresh_optimizer(model), test_probe,
                         fixture::train_evaluation(), fixture::validation(),
                         fixture::trainer_config());
  });
  EXPECT_EQ(error->kind(), TrainingErrorKind::WrongPartition);
  EXPECT_EQ(error->evidence().role, "update");
  EXPECT_EQ(error->evidence().expected_partition, partition_label(Partition::Train));
  EXPECT_EQ(error->evidence().actual_partition, partition_label(Partition::Test));
  EXPECT_EQ(value_bits(model.parameters()), before);
}

// clipping=observed:true max_norm:0.350000 finite:true nodes_preserved:true cleared:true
TEST(DecoderTraining, ClippingActsAndTheLoopKeepsItsNodesAndClearsGradients) {
  const DecoderModel model = fixture::initial_model();
  std::vector<std::uint64_t> nodes;
  for (const NamedParameter& entry : model.parameters()) nodes.push_back(entry.parameter.node_id());
  const TrainingRun run = fixture::train(model);
  const bool observed =
      std::ranges::any_of(run.steps, [](const TrainingStep& step) { return step.clip.clipped; });
  EXPECT_TRUE(observed);
  for (const TrainingStep& step : run.steps) {
    EXPECT_TRUE(std::isfinite(step.clip.norm_before));
    EXPECT_TRUE(std::isfinite(step.train_loss));
    EXPECT_LE(step.clip.norm_after, fixture::kMaxGradientNorm);
  }
  std::vector<std::uint64_t> after;
  for (const NamedParameter& entry : model.parameters()) after.push_back(entry.parameter.node_id());
  EXPECT_EQ(after, nodes);  // updated in place: the same nodes, new versions
  for (const NamedParameter& entry : model.parameters()) {
    EXPECT_EQ(entry.parameter.version(), 8u) << entry.name;
    for (double g : entry.parameter.gradient()->values()) EXPECT_EQ(g, 0.0) << entry.name;
  }
}

// ownership=input_model_unchanged:true input_optimizer_unchanged:true selected_restored:true
TEST(DecoderTraining, TrainingACopyLeavesTheInputsAndTheSelectedStateRestores) {
  const DecoderModel input = fixture::initial_model();
  const AdamW optimizer = fixture::fresh_optimizer(input);
  const auto before = value_bits(input.parameters());
  const DecoderModel copy = independent_copy(input);
  const TrainingRun run = train_with_selection(trainable_decoder(copy), optimizer,
                                               fixture::updates(), fixture::train_evaluation(),
                                               fixture::validation(), fixture::trainer_config());
  EXPECT_EQ(value_bits(input.parameters()), before);
  EXPECT_EQ(optimizer.step_count(), 0u);
  EXPECT_TRUE(optimizer.parameter_names().empty());
  // The copy trains exactly as the input itself would.
  EXPECT_EQ(run.checkpoints, fixture::run().checkpoints);

  const DecoderModel restored = independent_copy(input);
  restored.parameters().load(run.selected.parameters);
  EXPECT_EQ(value_bits(restored.parameters()), value_bits(run.selected.parameters));
  const Evaluation validation =
      evaluate_without_gradients(trainable_decoder(restored), fixture::validation());
  EXPECT_EQ(std::bit_cast<std::uint64_t>(validation.mean_loss),
            std::bit_cast<std::uint64_t>(run.selected.validation_loss));
}

// replay=bitwise:true
TEST(DecoderTraining, ReplaysBitForBit) {
  const TrainingRun first = fixture::run();
  const TrainingRun second = fixture::run();
  EXPECT_EQ(first.steps, second.steps);
  EXPECT_EQ(first.checkpoints, second.checkpoints);
  EXPECT_EQ(first.selected.step, second.selected.step);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(first.selected.validation_loss),
            std::bit_cast<std::uint64_t>(second.selected.validation_loss));
  EXPECT_EQ(value_bits(first.selected.parameters), value_bits(second.selected.parameters));
  EXPECT_EQ(first.selected.optimizer, second.selected.optimizer);
  EXPECT_EQ(value_bits(first.final_parameters), value_bits(second.final_parameters));
  EXPECT_EQ(first.final_optimizer, second.final_optimizer);
}

}  // namespace
}  // namespace llm
