// Chapter 33 demo: the fixture decoder trained for eight scheduled,
// clipped AdamW updates, scored on train and validation at steps 0, 2, 4,
// 6 and 8, the earliest validation minimum selected. With --trace PATH it
// also writes every update, every checkpoint, the three-point contrast and
// a longer run whose selection comes before its last step, for the figures.
#include <exception>
#include <iostream>
#include <string>
#include <string_view>

#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"

namespace {

using demo::Json;
using llm::format_fixed;

const char* bool_text(bool value) {
  return value ? "true" : "false";
}

Json steps_json(const llm::TrainingRun& run) {
  Json steps = Json::array();
  for (const llm::TrainingStep& step : run.steps) {
    steps.push_back({{"step", step.step},
                     {"batch_index", step.batch_index},
                     {"learning_rate", step.learning_rate},
                     {"train_loss", step.train_loss},
                     {"norm_before", step.clip.norm_before},
                     {"norm_after", step.clip.norm_after},
                     {"clipped", step.clip.clipped},
                     {"multiplier", step.clip.multiplier}});
  }
  return steps;
}

Json checkpoints_json(const llm::TrainingRun& run) {
  Json checkpoints = Json::array();
  for (const llm::LossCheckpoint& checkpoint : run.checkpoints) {
    checkpoints.push_back({{"step", checkpoint.step},
                           {"train_loss", checkpoint.train.mean_loss},
                           {"validation_loss", checkpoint.validation.mean_loss},
                           {"train_tokens", checkpoint.train.token_count},
                           {"validation_tokens", checkpoint.validation.token_count},
                           {"selected", checkpoint.selected}});
  }
  return checkpoints;
}

}  // namespace

// region: learner-training-output
int main(int argc, char** argv) try {
  const auto trace_path = demo::trace_path(argc, argv);
  const ch33::LearnerEvidence evidence = ch33::learner_evidence();
  const llm::TrainingRun& run = evidence.run;
  const ch33::SelectionContrast contrast = ch33::selection_contrast();
  const llm::DecoderConfig config = ch33::model_config();
  const llm::MiniBatchEpoch updates = ch33::updates();

  std::cout << "chapter=33-training-selection\n";
  std::cout << "config=vocabulary:" << config.vocabulary_size
            << " model_width:" << config.block.model_width << " layers:" << config.layers
            << " heads:" << config.block.heads << " context:" << config.block.context
            << " parameters:" << evidence.parameter_count << " updates:" << run.steps.size()
            << " batch:" << updates.batches()[0].width()
            << " clip_norm:" << format_fixed(ch33::kMaxGradientNorm, 6) << '\n';
  std::string order;
  for (std::string_view event : llm::kUpdateEventOrder)
    order += (order.empty() ? "" : ">") + std::string(event);
  std::cout << "order=" << order << '\n';
  std::string schedule;
  for (const llm::TrainingStep& step : run.steps)
    schedule += (schedule.empty() ? "[" : ",") + format_fixed(step.learning_rate, 6);
  std::cout << "schedule=" << schedule << "]\n";
  bool clipped = false, finite = true;
  for (const llm::TrainingStep& step : run.steps) {
    clipped = clipped || step.clip.clipped;
    finite = finite && std::isfinite(step.clip.norm_before) && std::isfinite(step.train_loss);
  }
  for (const llm::LossCheckpoint& checkpoint : run.checkpoints) {
    std::cout << "checkpoint=step:" << checkpoint.step
              << " train_loss:" << format_fixed(checkpoint.train.mean_loss, 6)
              << " validation_loss:" << format_fixed(checkpoint.validation.mean_loss, 6)
              << " selected:" << bool_text(checkpoint.selected)
              << " train_graphs:" << checkpoint.train.recorded_graphs
              << " validation_graphs:" << checkpoint.validation.recorded_graphs << '\n';
  }
  std::cout << "selection=step:" << run.selected.step
            << " validation_loss:" << format_fixed(run.selected.validation_loss, 6)
            << " criterion:validation-only test_partition_rejected:"
            << bool_text(evidence.test_partition_rejected)
            << " snapshot:" << bool_text(evidence.snapshot) << '\n';
  std::cout << "clipping=observed:" << bool_text(clipped)
            << " max_norm:" << format_fixed(ch33::kMaxGradientNorm, 6)
            << " finite:" << bool_text(finite)
            << " nodes_preserved:" << bool_text(evidence.nodes_preserved)
            << " cleared:" << bool_text(evidence.cleared) << '\n';
  std::cout << "ownership=input_model_unchanged:" << bool_text(evidence.input_model_unchanged)
            << " input_optimizer_unchanged:" << bool_text(evidence.input_optimizer_unchanged)
            << " selected_restored:" << bool_text(evidence.selected_restored) << '\n';
  std::cout << "selection_contrast=training_only_step:" << contrast.training_only_step
            << " validation_step:" << contrast.validation_step << '\n';
  std::cout << "replay=bitwise:" << bool_text(evidence.replay_bitwise) << '\n';
  std::cout << "next=evaluate the frozen selected state through one local post-selection test "
               "gate\n";

  if (trace_path) {
    const llm::TrainingRun extended = ch33::extended_run();
    demo::write_trace(
        trace_path,
        {{"config",
          {{"vocabulary", config.vocabulary_size},
           {"model_width", config.block.model_width},
           {"heads", config.block.heads},
           {"feed_forward_width", config.block.feed_forward_width},
           {"context", config.block.context},
           {"parameters", evidence.parameter_count},
           {"max_norm", ch33::kMaxGradientNorm},
           {"update_windows", updates.window_count()},
           {"update_batches", updates.batches().size()},
           {"validation_windows", ch33::validation().window_count()}}},
         {"steps", steps_json(run)},
         {"checkpoints", checkpoints_json(run)},
         {"selected",
          {{"step", run.selected.step}, {"validation_loss", run.selected.validation_loss}}},
         {"test_rejection", evidence.test_rejection},
         {"contrast",
          {{"train", contrast.train_losses},
           {"validation", contrast.validation_losses},
           {"training_only_step", contrast.training_only_step},
           {"validation_step", contrast.validation_step}}},
         {"extended",
          {{"updates", ch33::kExtendedUpdates},
           {"rate", ch33::kExtendedRate},
           {"every", ch33::kExtendedEvery},
           {"steps", steps_json(extended)},
           {"checkpoints", checkpoints_json(extended)},
           {"selected",
            {{"step", extended.selected.step},
             {"validation_loss", extended.selected.validation_loss}}}}}});
  }
  return 0;
} catch (const std::exception& error) {
  std::cerr << "chapter 33 demo failed: " << error.what() << '\n';
  return 1;
}
// endregion: learner-training-output
