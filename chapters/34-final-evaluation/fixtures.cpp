// Chapter 34's evidence (see fixtures.hpp).
#include "fixtures.hpp"

#include <algorithm>
#include <cmath>

#include "llm/training/trainable_decoder.hpp"

namespace ch34 {
namespace {

llm::MiniBatchEpoch test_epoch() {
  const std::vector<llm::BatchDocument> documents = {{"test-a", llm::Partition::Test, kTestA},
                                                     {"test-b", llm::Partition::Test, kTestB}};
  return llm::MiniBatchEpoch::build(
      llm::Partition::Test, documents, llm::CausalWindowConfig::create(2, 1),
      llm::MiniBatchConfig::create(kTestBatchSize, llm::BatchOrder::sequential()));
}

// -ln softmax(row)[target], shifted by the row maximum (chapter 12).
double row_nll(std::span<const double> row, TokenId target) {
  const double largest = *std::ranges::max_element(row);
  double sum = 0.0;
  for (double z : row) sum += std::exp(z - largest);
  return std::log(sum) - (row[target] - largest);
}

// Every slot of the test epoch under both models, one window at a time.
std::vector<TargetSlot> target_slots(const llm::MiniBatchEpoch& epoch,
                                     const llm::DecoderModel& decoder,
                                     const llm::BigramModel& bigram) {
  std::vector<TargetSlot> slots;
  const llm::NoGradScope no_graph;
  for (const llm::MiniBatch& batch : epoch.batches()) {
    const std::size_t t = batch.context_length();
    for (std::size_t row = 0; row < batch.width(); ++row) {
      const auto inputs = batch.inputs().subspan(row * t, t);
      const llm::Tensor logits = decoder.forward(inputs, llm::Shape{1, t}).value().materialize();
      const std::size_t v = decoder.config().vocabulary_size;
      for (std::size_t p = 0; p < t; ++p) {
        const TokenId target = batch.targets()[row * t + p];
        slots.push_back({batch.origins()[row].document_id, batch.origins()[row].start, p, inputs[p],
                         target, row_nll(logits.values().subspan(p * v, v), target),
                         -std::log(bigram.smoothed_probability(inputs[p], target))});
      }
    }
  }
  return slots;
}

}  // namespace

// region: final-evidence
FinalEvidence final_evidence() {
  FinalEvidence evidence;
  // 1. Selection (chapter 33), with the test epoch refused as an update epoch.
  const llm::TrainingRun run = ch33::run();
  const llm::DecoderModel decoder = ch33::initial_model();
  decoder.parameters().load(run.selected.parameters);
  evidence.selected_step = run.selected.step;
  evidence.selected_validation_loss = run.selected.validation_loss;
  try {
    llm::train_with_selection(llm::trainable_decoder(ch33::initial_model()),
                              ch33::fresh_optimizer(decoder), test_epoch(),
                              ch33::train_evaluation(), ch33::validation(), ch33::trainer_config());
  } catch (const llm::TrainingError& error) {
    evidence.selection_rejected_test = error.kind() == llm::TrainingErrorKind::WrongPartition;
  }

  // 2. The baseline, fitted on the same train documents and frozen (const).
  const std::vector<std::vector<TokenId>> train_documents = {ch33::kTrainA, ch33::kTrainB};
  const llm::BigramModel bigram = llm::BigramModel::fit(5, kBigramAlpha, train_documents);
  evidence.baseline_alpha = bigram.alpha();
  evidence.baseline_documents = bigram.fitted_documents();
  evidence.baseline_transitions = bigram.fitted_transitions();

  // 3. Every choice is made: check the claims, then open the gate once.
  const llm::MiniBatchEpoch test = test_epoch();
  evidence.provenance_matches =
      evidence.provenance.vocabulary == decoder.config().vocabulary_size &&
      evidence.provenance.vocabulary == bigram.vocabulary_size() &&
      evidence.provenance.context == decoder.config().block.context &&
      evidence.provenance.context == test.context_length();
  llm::FinalEvaluator evaluator = llm::FinalEvaluator::create(test);
  evidence.gate_openings_before = evaluator.gate_openings();
  evidence.report = evaluator.evaluate_once(llm::trainable_decoder(decoder), bigram);
  evidence.gate_openings_after = evaluator.gate_openings();
  try {
    evaluator.evaluate_once(llm::trainable_decoder(decoder), bigram);
  } catch (const llm::FinalEvaluationError& error) {
    evidence.second_opening = error.what();
  }

  const auto weighted = [](const llm::ModelScore& score) {
    return std::abs(score.total_nll / static_cast<double>(score.target_count) - score.mean_nll) <=
           1e-12;
  };
  evidence.token_weighted = weighted(evidence.report.model) && weighted(evidence.report.baseline);
  evidence.slots = target_slots(test, decoder, bigram);
  return evidence;
}
// endregion: final-evidence

}  // namespace ch34
