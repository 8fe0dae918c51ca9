// Chapter 33's evidence (see fixtures.hpp).
#include "fixtures.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>

namespace ch33 {
namespace {

std::vector<std::uint64_t> value_bits(const std::vector<llm::NamedValue>& values) {
  std::vector<std::uint64_t> bits;
  for (const llm::NamedValue& value : values) {
    const llm::Tensor tensor = value.value.materialize();
    for (double x : tensor.values()) bits.push_back(std::bit_cast<std::uint64_t>(x));
  }
  return bits;
}

std::vector<std::uint64_t> node_ids(const llm::DecoderModel& model) {
  std::vector<std::uint64_t> ids;
  for (const llm::NamedParameter& entry : model.parameters())
    ids.push_back(entry.parameter.node_id());
  return ids;
}

bool gradients_zero(const llm::DecoderModel& model) {
  for (const llm::NamedParameter& entry : model.parameters()) {
    const auto& gradient = entry.parameter.gradient();
    if (!gradient) continue;
    for (double g : gradient->values()) {
      if (g != 0.0) return false;
    }
  }
  return true;
}

bool same_run(const llm::TrainingRun& a, const llm::TrainingRun& b) {
  return a.steps == b.steps && a.checkpoints == b.checkpoints &&
         a.selected.step == b.selected.step &&
         std::bit_cast<std::uint64_t>(a.selected.validation_loss) ==
             std::bit_cast<std::uint64_t>(b.selected.validation_loss) &&
         value_bits(a.selected.parameters) == value_bits(b.selected.parameters) &&
         a.selected.optimizer == b.selected.optimizer &&
         value_bits(a.final_parameters) == value_bits(b.final_parameters) &&
         a.final_optimizer == b.final_optimizer;
}

}  // namespace

// region: independent-copy
/// A model of the same configuration holding `model`'s values in new tape
/// nodes: training it leaves `model` alone.
llm::DecoderModel independent_copy(const llm::DecoderModel& model) {
  llm::SplitMix64 placeholder(0);  // every drawn value is replaced below
  const llm::DecoderModel copy = llm::DecoderModel::initialized(model.config(), placeholder);
  copy.parameters().load(model.parameters().named_values());
  return copy;
}
// endregion: independent-copy

// region: learner-evidence
LearnerEvidence learner_evidence() {
  const llm::DecoderModel input = initial_model();
  const llm::AdamW optimizer = fresh_optimizer(input);
  const std::vector<std::uint64_t> input_bits = value_bits(input.parameters().named_values());

  // The test partition offered as the update epoch is refused before any update.
  const llm::MiniBatchEpoch test_probe = epoch(llm::Partition::Test, "validation", kValidationA,
                                               kValidationB, 4, llm::BatchOrder::sequential());
  bool test_rejected = false;
  std::string test_rejection;
  try {
    llm::train_with_selection(llm::trainable_decoder(input), optimizer, test_probe,
                              train_evaluation(), validation(), trainer_config());
  } catch (const llm::TrainingError& error) {
    test_rejected = error.kind() == llm::TrainingErrorKind::WrongPartition;
    test_rejection = error.what();
  }

  // The run updates the model it is given: give it a copy.
  const llm::DecoderModel working = independent_copy(input);
  const std::vector<std::uint64_t> nodes = node_ids(working);
  llm::TrainingRun run =
      llm::train_with_selection(llm::trainable_decoder(working), optimizer, updates(),
                                train_evaluation(), validation(), trainer_config());
  const bool snapshot = run.selected.optimizer.step_count == run.selected.step &&
                        std::ranges::count_if(run.checkpoints, [&](const llm::LossCheckpoint& c) {
                          return c.selected && c.step == run.selected.step;
                        }) == 1;

  // The selected values, loaded into a fresh model, score the selected loss bit for bit.
  const llm::DecoderModel restored = independent_copy(input);
  restored.parameters().load(run.selected.parameters);
  const llm::Evaluation check =
      llm::evaluate_without_gradients(llm::trainable_decoder(restored), validation());
  const bool selected_restored =
      std::bit_cast<std::uint64_t>(check.mean_loss) ==
          std::bit_cast<std::uint64_t>(run.selected.validation_loss) &&
      value_bits(restored.parameters().named_values()) == value_bits(run.selected.parameters);

  const bool replay_bitwise = same_run(run, ch33::run());
  return LearnerEvidence{
      .run = std::move(run),
      .parameter_count = input.parameter_count(),
      .test_partition_rejected = test_rejected,
      .test_rejection = test_rejection,
      .snapshot = snapshot,
      .nodes_preserved = node_ids(working) == nodes,
      .cleared = gradients_zero(working),
      .input_model_unchanged = value_bits(input.parameters().named_values()) == input_bits,
      .input_optimizer_unchanged =
          optimizer.step_count() == 0 && optimizer.parameter_names().empty(),
      .selected_restored = selected_restored,
      .replay_bitwise = replay_bitwise};
}
// endregion: learner-evidence

// region: selection-contrast
std::size_t earliest_minimum(std::span<const double> losses) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < losses.size(); ++i) {
    if (losses[i] < losses[best]) best = i;  // strict: a tie keeps the earlier index
  }
  return best;
}

SelectionContrast selection_contrast() {
  SelectionContrast contrast{{2.0, 1.5, 1.2}, {2.0, 1.3, 1.4}, 0, 0};
  contrast.training_only_step = earliest_minimum(contrast.train_losses);
  contrast.validation_step = earliest_minimum(contrast.validation_losses);
  return contrast;
}
// endregion: selection-contrast

// region: extended-run
llm::TrainingRun extended_run() {
  std::vector<std::size_t> scored;
  for (std::size_t step = 0; step <= kExtendedUpdates; step += kExtendedEvery)
    scored.push_back(step);
  const llm::TrainerConfig config = llm::TrainerConfig::create(
      llm::LearningRateSchedule::create(std::vector<double>(kExtendedUpdates, kExtendedRate)),
      scored, kMaxGradientNorm);
  const llm::DecoderModel model = initial_model();
  return llm::train_with_selection(llm::trainable_decoder(model), fresh_optimizer(model), updates(),
                                   train_evaluation(), validation(), config);
}
// endregion: extended-run

}  // namespace ch33
