// Scoring the chapter 6 bigram model with the chapter 7 metrics: one target
// per adjacent pair inside each document, BOS never a target, EOS always
// one, no pair across documents, every token checked before any scoring, and
// the model left exactly as it was. Then chapter 7's baseline: the unigram
// reading of the same targets and the choice of alpha on validation, against
// numbers recomputed from the corpus files by an independent Python script.
#include "llm/evaluation/bigram_evaluation.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "book_corpus.hpp"
#include "llm/text/bpe_tokenizer.hpp"
#include "llm/text/bpe_trainer.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;

constexpr TokenId kBos = 0, kEos = 1, kA = 2, kB = 3, kC = 4;
const std::vector<std::vector<TokenId>> kTraining = {{kBos, kA, kA, kB, kEos},
                                                     {kBos, kA, kB, kEos}};

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
  EXPECT_EQ(
      capture_error<MetricError>([&] { score_bigram_documents(model, views(only_bos)); })->kind(),
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
  const auto error =
      capture_error<BigramError>([&] { score_bigram_documents(model, views(documents)); });
  EXPECT_EQ(error->kind(), BigramErrorKind::TokenOutOfRange);
  EXPECT_EQ(error->document(), 1u);
  EXPECT_EQ(error->position(), 1u);
  EXPECT_EQ(error->token(), 5u);
}

TEST(UnigramScoring, TheSameTargetsWithoutTheirContext) {
  const BigramModel model = BigramModel::fit(5, 1.0, kTraining);
  const LanguageModelMetrics metrics = score_unigram_documents(model, views(kTraining));
  EXPECT_EQ(metrics.target_count(), 7u) << "the bigram's targets, BOS still context only";
  // Targets A A B EOS, A B EOS with unigram probabilities 4/12, 3/12, 3/12.
  const double expected =
      3 * -std::log(4.0 / 12.0) + 2 * -std::log(3.0 / 12.0) + 2 * -std::log(3.0 / 12.0);
  EXPECT_NEAR(metrics.total_nll(), expected, 1e-12);
  const std::vector<std::vector<TokenId>> documents = {{kBos, kA, kEos}, {kBos, 5}};
  EXPECT_EQ(capture_error<BigramError>([&] {
              score_unigram_documents(model, views(documents));
            })->token(),
            5u);
}

// The chapter 7 protocol on the book's corpus: 8 merges learned from train,
// the bigram fitted on the 8 training documents only.
struct CorpusProtocol {
  CorpusPartitions partitions = book_corpus::partitions();
  BpeTokenizer tokenizer = BpeTokenizer::from_training(BpeTrainer(8).train(partitions));
  EncodedCorpusPartitions encoded = EncodedCorpusPartitions::encode(partitions, tokenizer);
  BigramModel model = fit_bigram_on_training_partition(tokenizer.vocabulary_size(), 1.0, encoded);
};

std::size_t pair_count(const std::vector<EncodedDocument>& documents) {
  std::size_t pairs = 0;
  for (const EncodedDocument& document : documents) pairs += document.token_ids.size() - 1;
  return pairs;
}

TEST(BigramPartitionProtocol, FitsOnTheTrainingDocumentsOnly) {
  const CorpusProtocol protocol;
  const auto& train = protocol.encoded.documents(Partition::Train);
  EXPECT_EQ(protocol.model.vocabulary_size(), 266u);
  EXPECT_EQ(protocol.model.fitted_documents(), train.size());
  EXPECT_EQ(protocol.model.fitted_documents(), 8u);
  EXPECT_EQ(protocol.model.fitted_transitions(), pair_count(train));
  EXPECT_EQ(protocol.model.fitted_transitions(), 1844u);
  // Counting the validation documents too would change the table.
  std::vector<std::span<const TokenId>> train_and_validation;
  for (Partition partition : {Partition::Train, Partition::Validation}) {
    for (const EncodedDocument& document : protocol.encoded.documents(partition)) {
      train_and_validation.emplace_back(document.token_ids);
    }
  }
  const BigramModel leaky = BigramModel::fit(266, 1.0, train_and_validation);
  EXPECT_NE(leaky.fitted_transitions(), protocol.model.fitted_transitions());
}

TEST(BigramPartitionProtocol, ScoresEachAllowedPartitionWithTheUnchangedModel) {
  const CorpusProtocol protocol;
  const std::uint64_t transitions = protocol.model.fitted_transitions();
  const std::vector<std::uint64_t> eos_row(protocol.model.counts_row(kEos).begin(),
                                           protocol.model.counts_row(kEos).end());
  const PartitionScore train =
      score_bigram_partition(protocol.model, protocol.encoded, ScoredPartition::Train);
  const PartitionScore validation =
      score_bigram_partition(protocol.model, protocol.encoded, ScoredPartition::Validation);
  EXPECT_EQ(train.partition, ScoredPartition::Train);
  EXPECT_EQ(train.document_count, 8u);
  EXPECT_EQ(train.metrics.target_count(), 1844u);
  EXPECT_EQ(validation.document_count, 2u);
  EXPECT_EQ(validation.metrics.target_count(),
            pair_count(protocol.encoded.documents(Partition::Validation)));
  EXPECT_EQ(validation.metrics.target_count(), 469u);
  EXPECT_TRUE(std::isfinite(validation.metrics.total_nll())) << "add-one gives every pair p > 0";
  EXPECT_GT(validation.metrics.mean_nll(), train.metrics.mean_nll());
  EXPECT_EQ(protocol.model.fitted_transitions(), transitions);
  EXPECT_EQ(std::vector<std::uint64_t>(protocol.model.counts_row(kEos).begin(),
                                       protocol.model.counts_row(kEos).end()),
            eos_row);
}

TEST(BigramPartitionProtocol, NoScoredPartitionReadsTheTestDocuments) {
  for (ScoredPartition partition : kScoredPartitions) {
    EXPECT_NE(corpus_partition(partition), Partition::Test);
  }
  EXPECT_EQ(scored_partition_label(ScoredPartition::Train), "train");
  EXPECT_EQ(scored_partition_label(ScoredPartition::Validation), "validation");
}

TEST(BigramPartitionProtocol, AModelSmallerThanTheTokenizerIsRefused) {
  const CorpusProtocol protocol;
  const auto error = capture_error<BigramError>(
      [&] { fit_bigram_on_training_partition(258, 1.0, protocol.encoded); });
  EXPECT_EQ(error->kind(), BigramErrorKind::TokenOutOfRange);
  EXPECT_GE(error->token(), 258u) << "a merge token the smaller vocabulary cannot hold";
}

// Recomputed from chapters/common/corpus/ by a separate Python script (BPE
// with eight merges, encoding, counts and add-alpha scores written anew):
// validation mean NLL of the bigram and of the unigram reading per alpha.
struct IndependentScore {
  double alpha, train, validation, unigram_validation;
};
constexpr IndependentScore kIndependent[] = {
    {1.0, 3.797831756065162, 4.010031694004388, 3.881170140022102},
    {0.5, 3.358669421187403, 3.634845479707903, 3.842927174505587},
    {0.2, 2.847603367435906, 3.212115852018039, 3.825023183040867},
    {0.1, 2.548593615964317, 2.980996935946282, 3.823807104196523},
    {0.05, 2.332345439822706, 2.832513434251908, 3.827597999701190},
    {0.02, 2.154510943509190, 2.742585337839217, 3.836263948009548},
    {0.01, 2.078775903482361, 2.731226246075765, 3.844111089730434},
    {0.005, 2.034999399370698, 2.749884427528089, 3.852468138925927},
    {0.002, 2.005578220914485, 2.800804606653011, 3.863884010668644},
    {0.001, 1.994964908026585, 2.850031451456994, 3.872649416974030},
};

TEST(BigramBaseline, ChoosesAlphaOnValidationAndMatchesAnIndependentRecount) {
  const CorpusProtocol protocol;
  const BigramBaseline baseline = select_bigram_baseline(266, protocol.encoded);
  ASSERT_EQ(baseline.sweep.size(), std::size(kIndependent));
  for (std::size_t k = 0; k < baseline.sweep.size(); ++k) {
    const SmoothingCandidate& candidate = baseline.sweep[k];
    EXPECT_EQ(candidate.alpha, kIndependent[k].alpha);
    EXPECT_NEAR(candidate.train.mean_nll(), kIndependent[k].train, 1e-12) << candidate.alpha;
    EXPECT_NEAR(candidate.validation.mean_nll(), kIndependent[k].validation, 1e-12);
    EXPECT_NEAR(candidate.unigram_validation.mean_nll(), kIndependent[k].unigram_validation, 1e-12);
    EXPECT_EQ(candidate.validation.target_count(), 469u);
  }
  EXPECT_EQ(baseline.sweep[baseline.chosen].alpha, 0.01);
  EXPECT_EQ(baseline.model.alpha(), 0.01);
  EXPECT_EQ(baseline.validation.metrics.mean_nll(),
            baseline.sweep[baseline.chosen].validation.mean_nll());
  EXPECT_NEAR(baseline.validation.metrics.perplexity(), 15.351700445032417, 1e-9);
  // Add-one: the bigram is worse than its own table without context.
  EXPECT_GT(baseline.sweep[0].validation.mean_nll(),
            baseline.sweep[0].unigram_validation.mean_nll());
  // The same frozen model, opened once on test, agrees with the recount too.
  const LanguageModelMetrics test = score_bigram_documents(
      baseline.model, document_token_views(protocol.encoded.documents(Partition::Test)));
  EXPECT_EQ(test.target_count(), 442u);
  EXPECT_NEAR(test.mean_nll(), 2.854495336047768, 1e-12);
}

TEST(BigramBaseline, DocumentViewsGiveTheSameChoiceWithoutTheTestPartition) {
  // Chapter 23 encodes train and validation only and selects alpha from them.
  const CorpusProtocol protocol;
  const auto train = document_token_views(protocol.encoded.documents(Partition::Train));
  const auto validation = document_token_views(protocol.encoded.documents(Partition::Validation));
  const BigramBaseline from_views = select_bigram_baseline(266, train, validation);
  const BigramBaseline from_partitions = select_bigram_baseline(266, protocol.encoded);
  EXPECT_EQ(from_views.chosen, from_partitions.chosen);
  EXPECT_EQ(from_views.model.alpha(), 0.01);
  EXPECT_EQ(from_views.validation.partition, ScoredPartition::Validation);
  EXPECT_EQ(from_views.validation.document_count, 2u);
  EXPECT_EQ(from_views.validation.metrics.mean_nll(),
            from_partitions.validation.metrics.mean_nll());
  for (std::size_t k = 0; k < from_views.sweep.size(); ++k) {
    EXPECT_EQ(from_views.sweep[k].train.mean_nll(), from_partitions.sweep[k].train.mean_nll());
    EXPECT_EQ(from_views.sweep[k].validation.mean_nll(),
              from_partitions.sweep[k].validation.mean_nll());
  }
}

TEST(BigramBaseline, TiesKeepTheEarlierAlphaAndBadGridsAreRefused) {
  const CorpusProtocol protocol;
  const std::vector<double> repeated = {0.05, 0.01, 0.01};
  EXPECT_EQ(select_bigram_baseline(266, protocol.encoded, repeated).chosen, 1u);
  const auto empty = capture_error<BigramError>(
      [&] { (void)select_bigram_baseline(266, protocol.encoded, std::span<const double>{}); });
  EXPECT_EQ(empty->kind(), BigramErrorKind::EmptyAlphaGrid);
  EXPECT_EQ(empty->kind_name(), "empty-alpha-grid");
  const std::vector<double> bad = {0.1, -1.0};
  const auto invalid =
      capture_error<BigramError>([&] { (void)select_bigram_baseline(266, protocol.encoded, bad); });
  EXPECT_EQ(invalid->kind(), BigramErrorKind::InvalidAlpha);
  EXPECT_EQ(invalid->alpha(), -1.0);
}

}  // namespace
}  // namespace llm
