// The final evaluation (chapter 34): the selected model and a frozen bigram
// baseline scored once on the test partition, target for target.
//
// Selection (chapter 33) looked only at validation; the test partition is
// opened here, once, after every choice is made. The evaluator owns the test
// epoch and refuses a second opening. It scores the model without recording a
// graph and checks that no parameter value and no gradient changed; it scores
// the baseline on exactly the same (input, target) pairs, so the two mean
// NLLs compare like with like. Overlapping windows score a document's
// transition once per window that holds it; the report counts both units.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "llm/evaluation/final_evaluation_error.hpp"
#include "llm/evaluation/language_model_metrics.hpp"
#include "llm/models/bigram.hpp"
#include "llm/training/mini_batches.hpp"
#include "llm/training/trainer.hpp"

namespace llm {

// region: model-score
/// One model's score over the test targets, in nats.
struct ModelScore {
  double total_nll = 0.0;        ///< the sum of -ln p over the targets
  std::size_t target_count = 0;  ///< N, the targets scored
  double mean_nll = 0.0;         ///< total_nll / N
  double perplexity = 0.0;       ///< exp(mean_nll)
};
// endregion: model-score

// region: final-evaluation-report
/// What the one opening of the test gate measured.
struct FinalEvaluationReport {
  std::vector<std::string> document_ids;  ///< test documents in first-seen order
  std::size_t window_count = 0;           ///< windows of the test epoch
  std::size_t batch_count = 0;            ///< batches of the test epoch
  std::size_t target_count = 0;           ///< window target slots: every (window, position)
  /// FNV-1a 64 over every row in batch order: document ID, 0xff, the
  /// window's start (u64 LE), then each (input, target) pair (u32 LE each).
  std::string window_slot_fingerprint;
  std::size_t document_transition_count = 0;  ///< distinct (document, target position)
  /// Entry m - 1: how many document transitions are scored by m windows.
  std::vector<std::size_t> transition_multiplicity_counts;
  ModelScore model;                   ///< the trained model's score
  ModelScore baseline;                ///< the bigram baseline's score on the same targets
  std::size_t recorded_graphs = 0;    ///< tape nodes the scoring recorded (0: no gradient)
  bool parameters_unchanged = false;  ///< every parameter bit for bit as before
  bool gradients_unchanged = false;   ///< every stored gradient bit for bit as before

  /// baseline.mean_nll - model.mean_nll (positive: the model is better).
  double gap() const noexcept { return baseline.mean_nll - model.mean_nll; }
};
// endregion: final-evaluation-report

// region: final-evaluator-class
/// The owner of the test epoch and its one-time gate.
class FinalEvaluator {
 public:
  /// @throws FinalEvaluationError WrongTestPartition, EmptyTestEpoch.
  static FinalEvaluator create(MiniBatchEpoch test_epoch);

  /// One owner, one gate: an evaluator cannot be copied (a copy would be a
  /// second, unopened gate on the same data), only moved.
  FinalEvaluator(const FinalEvaluator&) = delete;
  FinalEvaluator& operator=(const FinalEvaluator&) = delete;
  /// Takes over `other`'s gate and data.
  FinalEvaluator(FinalEvaluator&&) noexcept = default;
  /// Takes over `other`'s gate and data.
  FinalEvaluator& operator=(FinalEvaluator&&) noexcept = default;

  /// Scores `model` and `baseline` on the test epoch, once. Checks the
  /// gate, then the vocabularies, then the context, without opening the
  /// gate; from the token check on, the gate counts as opened even if a
  /// later check fails.
  /// @throws FinalEvaluationError AlreadyEvaluated, VocabularyMismatch,
  ///         ContextMismatch, TokenOutOfRange, ParametersChanged,
  ///         GradientsChanged, TargetCountMismatch; TrainingError from scoring.
  FinalEvaluationReport evaluate_once(const TrainableModel& model, const BigramModel& baseline);

  /// How often the gate was opened: 0 before evaluate_once, 1 after.
  std::size_t gate_openings() const noexcept { return gate_openings_; }

 private:
  explicit FinalEvaluator(MiniBatchEpoch epoch) : epoch_(std::move(epoch)) {}
  MiniBatchEpoch epoch_;
  std::size_t gate_openings_ = 0;
};
// endregion: final-evaluator-class

}  // namespace llm
