// The evidence chapter 33 prints: the fixture of chapters/common/
// chapter33_fixture.hpp trained once on a copy of the initial model, the
// test partition offered and refused, the selected state restored, a second
// run compared bit for bit; the training-only versus validation choice on a
// three-point history; and a longer run whose validation minimum comes
// before its last step.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "chapter33_fixture.hpp"

namespace ch33 {

/// Everything the demo's report lines state, measured on the run.
struct LearnerEvidence {
  llm::TrainingRun run;                    ///< the run on a copy of the initial model
  std::size_t parameter_count = 0;         ///< scalars of the decoder
  bool test_partition_rejected = false;    ///< a Test update epoch refused (WrongPartition)
  std::string test_rejection;              ///< its message
  bool snapshot = false;                   ///< parameters and optimizer captured at the same step
  bool nodes_preserved = false;            ///< the trained model kept its parameter nodes
  bool cleared = false;                    ///< every gradient is zero after the run
  bool input_model_unchanged = false;      ///< the initial model's values, bit for bit
  bool input_optimizer_unchanged = false;  ///< the optimizer passed in never stepped
  bool selected_restored = false;  ///< a fresh model loaded with the selection scores its loss
  bool replay_bitwise = false;     ///< a second run equals the first bit for bit
};

/// Runs the fixture twice and gathers the evidence.
LearnerEvidence learner_evidence();

/// The earliest index holding the smallest value (ties keep the earlier).
std::size_t earliest_minimum(std::span<const double> losses);

/// The contrast of a three-checkpoint history: what a training-loss choice
/// and a validation-loss choice pick.
struct SelectionContrast {
  std::vector<double> train_losses;
  std::vector<double> validation_losses;
  std::size_t training_only_step = 0;
  std::size_t validation_step = 0;
};
SelectionContrast selection_contrast();

/// The longer run: kExtendedUpdates updates at a constant kExtendedRate,
/// scored every kExtendedEvery steps, on the same data and model.
inline constexpr std::size_t kExtendedUpdates = 40;
inline constexpr double kExtendedRate = 0.04;
inline constexpr std::size_t kExtendedEvery = 4;
llm::TrainingRun extended_run();

}  // namespace ch33
