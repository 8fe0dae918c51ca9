// Chapter 34: the final evaluation. The test epoch's counts and
// fingerprint and the frozen bigram's score are chapter 34's printed
// numbers (they do not depend on the decoder); the gate opens once, scoring
// changes no parameter and no gradient, and both models score the same
// targets.
#include "llm/evaluation/final_evaluation.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "llm/format.hpp"
#include "support/test_support.hpp"
#include "training/tiny_language_model.hpp"

namespace llm {
namespace {

using testing::capture_error;
using testing::TinyLanguageModel;

const std::vector<TokenId> kTrainA = {0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1};
const std::vector<TokenId> kTrainB = {2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3};
const std::vector<TokenId> kTestA = {4, 3, 2, 1, 0, 4, 3, 2, 1};
const std::vector<TokenId> kTestB = {3, 2, 1, 0, 4, 3, 2};

MiniBatchEpoch test_epoch(Partition partition = Partition::Test) {
  const std::vector<BatchDocument> documents = {{"test-a", partition, kTestA},
                                                {"test-b", partition, kTestB}};
  return MiniBatchEpoch::build(partition, documents, CausalWindowConfig::create(2, 1),
                               MiniBatchConfig::create(4, BatchOrder::sequential()));
}

BigramModel baseline() {
  const std::vector<std::vector<TokenId>> training = {kTrainA, kTrainB};
  return BigramModel::fit(5, 1.0, training);
}

// test=documents:2 windows:12 batches:3 targets:24 ... fingerprint:fnv1a64:dac4bb4d76beeb59
// bigram=mean_nll:2.236735 perplexity:9.362710 total_nll:53.681634
TEST(FinalEvaluation, TheTestEpochAndTheBaselineScoreAsChapter34Prints) {
  const BigramModel bigram = baseline();
  EXPECT_EQ(bigram.fitted_documents(), 2u);
  EXPECT_EQ(bigram.fitted_transitions(), 22u);  // baseline=... transitions:22
  FinalEvaluator evaluator = FinalEvaluator::create(test_epoch());
  EXPECT_EQ(evaluator.gate_openings(), 0u);
  const TinyLanguageModel model = TinyLanguageModel::initialized(5, 4, 34);
  const FinalEvaluationReport report = evaluator.evaluate_once(model.trainable(2), bigram);
  EXPECT_EQ(evaluator.gate_openings(), 1u);
  EXPECT_EQ(report.document_ids, (std::vector<std::string>{"test-a", "test-b"}));
  EXPECT_EQ(report.window_count, 12u);
  EXPECT_EQ(report.batch_count, 3u);
  EXPECT_EQ(report.target_count, 24u);
  EXPECT_EQ(report.window_slot_fingerprint, "fnv1a64:dac4bb4d76beeb59");
  EXPECT_EQ(format_fixed(report.baseline.mean_nll, 6), "2.236735");
  EXPECT_EQ(format_fixed(report.baseline.perplexity, 6), "9.362710");
  EXPECT_EQ(format_fixed(report.baseline.total_nll, 6), "53.681634");
  EXPECT_EQ(report.baseline.target_count, 24u);
  EXPECT_EQ(report.model.target_count, 24u);  // same_targets:true
  EXPECT_EQ(report.recorded_graphs, 0u);
  EXPECT_TRUE(report.parameters_unchanged && report.gradients_unchanged);
  EXPECT_EQ(report.model.perplexity, std::exp(report.model.mean_nll));
  EXPECT_DOUBLE_EQ(report.model.total_nll, report.model.mean_nll * 24.0);
  // Windows of two tokens overlap: test-a's 8 transitions (positions 1..8) and
  // test-b's 6; the first and last of each are in one window, the rest in two.
  EXPECT_EQ(report.document_transition_count, 14u);
  EXPECT_EQ(report.transition_multiplicity_counts, (std::vector<std::size_t>{4, 10}));
}

TEST(FinalEvaluation, TheGateOpensOnce) {
  FinalEvaluator evaluator = FinalEvaluator::create(test_epoch());
  const TinyLanguageModel model = TinyLanguageModel::initialized(5, 4, 34);
  evaluator.evaluate_once(model.trainable(2), baseline());
  EXPECT_EQ(capture_error<FinalEvaluationError>([&] {
              evaluator.evaluate_once(model.trainable(2), baseline());
            })->kind(),
            FinalEvaluationErrorKind::AlreadyEvaluated);
  EXPECT_EQ(evaluator.gate_openings(), 1u);
}

TEST(FinalEvaluation, RefusalsBeforeTheGateLeaveItClosed) {
  EXPECT_EQ(capture_error<FinalEvaluationError>([] {
              FinalEvaluator::create(test_epoch(Partition::Validation));
            })->kind(),
            FinalEvaluationErrorKind::WrongTestPartition);
  FinalEvaluator evaluator = FinalEvaluator::create(test_epoch());
  const TinyLanguageModel wide = TinyLanguageModel::initialized(6, 4, 34);
  EXPECT_EQ(capture_error<FinalEvaluationError>([&] {
              evaluator.evaluate_once(wide.trainable(2), baseline());
            })->kind(),
            FinalEvaluationErrorKind::VocabularyMismatch);
  const TinyLanguageModel model = TinyLanguageModel::initialized(5, 4, 34);
  EXPECT_EQ(capture_error<FinalEvaluationError>([&] {
              evaluator.evaluate_once(model.trainable(1), baseline());
            })->kind(),
            FinalEvaluationErrorKind::ContextMismatch);
  EXPECT_EQ(evaluator.gate_openings(), 0u);
}

}  // namespace
}  // namespace llm
