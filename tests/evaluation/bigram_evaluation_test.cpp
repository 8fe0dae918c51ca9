// Scoring the chapter 6 bigram model with the chapter 7 metrics: one target
// per adjacent pair inside each document, BOS never a target, EOS always
// one, no pair across documents, every token checked before any scoring, and
// the model left exactly as it was.
#include "llm/evaluation/bigram_evaluation.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <span>
#include <vector>

#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;

constexpr TokenId kBos = 0, kEos = 1, kA = 2, kB = 3, kC = 4;
const std::vector<std::vector<TokenId>> kTraining = {{kBos, kA, kA, kB, kEos}, {kBos, kA, kB, kEos}};

std::vector<std::span<const TokenId>> views(const std::vector<std::vector<TokenId>>& documents) {
  return {documents.begin(), documents.end()};
}

TEST(BigramScoring, OneTargetPerPairInsideEachDocument) {
  const BigramModel model = BigramModel::fit(5, 1.0, kTraining);
  const LanguageModelMetrics metrics = score_bigram_documents(model, views(kTraining));
  EXPECT_EQ(metrics.target_count(), 7u) << "4 + 3 pairs; joining would make 8";
  // BOS->A, A->A, A->B, B->EOS, then BOS->A, A->B, B->EOS, in this order.
  const double expected = -std::log(3.0 / 7.0) + -std::log(2.0 / 8.0) + -std::log(3.0 / 8.0) +
                          -std::log(3.0 / 7.0) + -std::log(3.0 / 7.0) + -std::log(3.0 / 8.0) +
                          -std::log(3.0 / 7.0);
  EXPECT_NEAR(metrics.total_nll(), expected, 1e-12);
  NllAccumulator by_hand;
  for (const auto& document : kTraining) {
    for (std::size_t t = 1; t < document.size(); ++t) {
      by_hand.add(model.smoothed_probability(document[t - 1], document[t]));
    }
  }
  EXPECT_EQ(metrics.total_nll(), by_hand.finish().total_nll());
  EXPECT_EQ(metrics.perplexity(), std::exp(metrics.total_nll() / 7.0));
}

TEST(BigramScoring, BosIsContextOnlyAndAnUnseenTransitionIsFinite) {
  const BigramModel model = BigramModel::fit(5, 1.0, kTraining);
  const std::vector<std::vector<TokenId>> held_out = {{kBos, kA, kC, kEos}};
  const LanguageModelMetrics metrics = score_bigram_documents(model, views(held_out));
  EXPECT_EQ(metrics.target_count(), 3u);
  const double expected = -std::log(3.0 / 7.0) + -std::log(1.0 / 8.0) + -std::log(1.0 / 5.0);
  EXPECT_NEAR(metrics.total_nll(), expected, 1e-12);
  const std::vector<std::vector<TokenId>> only_bos = {{kBos}, {}};
  EXPECT_EQ(capture_error<MetricError>([&] { score_bigram_documents(model, views(only_bos)); })->kind(),
            MetricErrorKind::EmptyTargets);
}

TEST(BigramScoring, DocumentsAreScoredApartAndTheModelIsNotRefitted) {
  const BigramModel model = BigramModel::fit(5, 1.0, kTraining);
  const std::vector<std::vector<TokenId>> joined = {{kBos, kA, kA, kB, kEos, kBos, kA, kB, kEos}};
  const LanguageModelMetrics apart = score_bigram_documents(model, views(kTraining));
  const LanguageModelMetrics together = score_bigram_documents(model, views(joined));
  EXPECT_EQ(together.target_count(), apart.target_count() + 1);
  EXPECT_NEAR(together.total_nll() - apart.total_nll(), -std::log(1.0 / 5.0), 1e-12)
      << "the joined sequence adds one EOS->BOS target, scored from the empty EOS row";
  EXPECT_EQ(model.fitted_transitions(), 7u);
  EXPECT_EQ(model.count(kEos, kBos), 0u);
}

TEST(BigramScoring, NamesTheFirstTokenOutsideTheVocabularyBeforeScoring) {
  const BigramModel model = BigramModel::fit(5, 1.0, kTraining);
  const std::vector<std::vector<TokenId>> documents = {{kBos, kA, kEos}, {kBos, 5, 6}};
  const auto error = capture_error<BigramError>([&] { score_bigram_documents(model, views(documents)); });
  EXPECT_EQ(error->kind(), BigramErrorKind::TokenOutOfRange);
  EXPECT_EQ(error->document(), 1u);
  EXPECT_EQ(error->position(), 1u);
  EXPECT_EQ(error->token(), 5u);
}

}  // namespace
}  // namespace llm
