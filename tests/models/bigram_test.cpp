// The chapter 6 bigram model: transitions counted once per document and never
// across documents, maximum-likelihood rows against add-alpha rows (every
// smoothed row sums to one), the reference's worked values, ties, and every
// error kind with its evidence and its place in the validation order. Then
// chapter 7's readings of the same table: without context (the unigram), and
// as a sampler whose seeded draws were worked out independently.
#include "llm/models/bigram.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;

constexpr TokenId kBos = 0, kEos = 1, kA = 2, kB = 3, kC = 4;
const std::vector<std::vector<TokenId>> kDocuments = {{kBos, kA, kA, kB, kEos},
                                                      {kBos, kA, kB, kEos}};

BigramModel worked_model(double alpha = 1.0) {
  return BigramModel::fit(5, alpha, kDocuments);
}

std::vector<std::uint64_t> row_of(const BigramModel& model, TokenId from) {
  const auto row = model.counts_row(from);
  return {row.begin(), row.end()};
}

double sum_of(const std::vector<double>& values) {
  double sum = 0.0;
  for (double value : values) sum += value;
  return sum;
}

TEST(BigramFit, CountsEachTransitionOnceWithoutCrossingDocuments) {
  const BigramModel model = worked_model();
  EXPECT_EQ(model.vocabulary_size(), 5u);
  EXPECT_EQ(model.fitted_documents(), 2u);
  EXPECT_EQ(model.fitted_transitions(), 7u);
  EXPECT_EQ(row_of(model, kBos), (std::vector<std::uint64_t>{0, 0, 2, 0, 0}));
  EXPECT_EQ(row_of(model, kEos), (std::vector<std::uint64_t>{0, 0, 0, 0, 0}));
  EXPECT_EQ(row_of(model, kA), (std::vector<std::uint64_t>{0, 0, 1, 2, 0}));
  EXPECT_EQ(row_of(model, kB), (std::vector<std::uint64_t>{0, 2, 0, 0, 0}));
  EXPECT_EQ(row_of(model, kC), (std::vector<std::uint64_t>{0, 0, 0, 0, 0}));
  EXPECT_EQ(model.row_total(kA), 3u);
  EXPECT_EQ(model.count(kEos, kBos), 0u) << "EOS must never be followed by the next document's BOS";
}

TEST(BigramFit, JoiningTheDocumentsWouldAddExactlyOneEosToBosTransition) {
  std::vector<TokenId> joined;
  for (const auto& document : kDocuments)
    joined.insert(joined.end(), document.begin(), document.end());
  const BigramModel separate = worked_model();
  const BigramModel together = BigramModel::fit(5, 1.0, std::vector<std::vector<TokenId>>{joined});
  EXPECT_EQ(together.fitted_transitions(), separate.fitted_transitions() + 1);
  for (TokenId from = 0; from < 5; ++from) {
    for (TokenId to = 0; to < 5; ++to) {
      const std::uint64_t extra = (from == kEos && to == kBos) ? 1 : 0;
      EXPECT_EQ(together.count(from, to), separate.count(from, to) + extra) << from << "->" << to;
    }
  }
}

TEST(BigramFit, CountsDoNotDependOnDocumentOrder) {
  const std::vector<std::vector<TokenId>> reversed = {kDocuments[1], kDocuments[0]};
  const BigramModel forward = worked_model();
  const BigramModel backward = BigramModel::fit(5, 1.0, reversed);
  for (TokenId from = 0; from < 5; ++from) EXPECT_EQ(row_of(forward, from), row_of(backward, from));
}

TEST(BigramFit, EmptyAndOneTokenDocumentsAddNoTransition) {
  const std::vector<std::vector<TokenId>> documents = {{}, {kA}};
  const BigramModel model = BigramModel::fit(5, 1.0, documents);
  EXPECT_EQ(model.fitted_documents(), 2u);
  EXPECT_EQ(model.fitted_transitions(), 0u);
  EXPECT_FALSE(model.maximum_likelihood_distribution(kA).has_value());
  EXPECT_EQ(model.smoothed_distribution(kA), std::vector<double>(5, 0.2));
}

TEST(BigramProbabilities, ZeroProbabilityInASeenRowIsNotAnUndefinedRow) {
  const BigramModel model = worked_model();
  const std::optional<double> a_to_c = model.maximum_likelihood_probability(kA, kC);
  ASSERT_TRUE(a_to_c.has_value());
  EXPECT_EQ(*a_to_c, 0.0);
  EXPECT_FALSE(model.maximum_likelihood_probability(kC, kA).has_value());
  EXPECT_FALSE(model.maximum_likelihood_distribution(kC).has_value());
  const std::optional<std::vector<double>> row_a = model.maximum_likelihood_distribution(kA);
  ASSERT_TRUE(row_a.has_value());
  EXPECT_EQ(*row_a, (std::vector<double>{0.0, 0.0, 1.0 / 3.0, 2.0 / 3.0, 0.0}));
}

TEST(BigramProbabilities, AddOneRowsMatchTheWorkedExample) {
  const BigramModel model = worked_model();
  EXPECT_EQ(model.smoothing_denominator(kA), 8.0);
  EXPECT_EQ(model.smoothed_distribution(kA),
            (std::vector<double>{0.125, 0.125, 0.25, 0.375, 0.125}));
  EXPECT_EQ(model.smoothed_probability(kA, kC), 0.125);
  EXPECT_EQ(model.smoothing_denominator(kC), 5.0);
  EXPECT_EQ(model.smoothed_distribution(kC), std::vector<double>(5, 0.2));
}

TEST(BigramProbabilities, HalfPseudocountGivesElevenths) {
  // Exercise 6 of chapter 6: alpha = 1/2 gives denominator 3 + 5/2 = 11/2.
  const BigramModel model = worked_model(0.5);
  EXPECT_EQ(model.smoothing_denominator(kA), 5.5);
  const std::vector<double> row = model.smoothed_distribution(kA);
  const std::vector<double> expected = {1.0 / 11, 1.0 / 11, 3.0 / 11, 5.0 / 11, 1.0 / 11};
  for (std::size_t j = 0; j < row.size(); ++j) EXPECT_DOUBLE_EQ(row[j], expected[j]) << j;
}

TEST(BigramProbabilities, EverySmoothedRowSumsToOneAndEveryDefinedMleRowToo) {
  // The worked model and a larger one whose rows have unequal totals.
  const std::vector<std::vector<TokenId>> documents = {
      {0, 3, 4, 4, 4, 2, 6, 1}, {0, 6, 6, 5, 3, 1}, {0, 2, 1}, {0, 5, 5, 5, 5, 3, 4, 1}};
  for (const BigramModel& model :
       {worked_model(), worked_model(0.25), BigramModel::fit(7, 0.1, documents)}) {
    for (TokenId from = 0; from < model.vocabulary_size(); ++from) {
      const std::vector<double> smoothed = model.smoothed_distribution(from);
      EXPECT_NEAR(sum_of(smoothed), 1.0, 1e-12) << "row " << from;
      for (double probability : smoothed) EXPECT_GT(probability, 0.0);
      for (TokenId to = 0; to < model.vocabulary_size(); ++to) {
        EXPECT_EQ(model.smoothed_probability(from, to), smoothed[to]) << from << "->" << to;
      }
      if (const auto mle = model.maximum_likelihood_distribution(from)) {
        EXPECT_NEAR(sum_of(*mle), 1.0, 1e-12) << "row " << from;
      } else {
        EXPECT_EQ(model.row_total(from), 0u);
      }
    }
  }
}

TEST(BigramProbabilities, ReportsEveryTiedSuccessorInAscendingOrder) {
  const BigramModel model = worked_model();
  EXPECT_EQ(model.most_likely_next_tokens(kA), (std::vector<TokenId>{kB}));
  EXPECT_EQ(model.most_likely_next_tokens(kC), (std::vector<TokenId>{0, 1, 2, 3, 4}));
  EXPECT_EQ(model.most_likely_next_tokens(kB), (std::vector<TokenId>{kEos}));
}

TEST(BigramErrors, EmptyVocabularyIsCheckedFirst) {
  const auto error =
      capture_error<BigramError>([] { BigramModel::fit(0, std::nan(""), kDocuments); });
  EXPECT_EQ(error->kind(), BigramErrorKind::EmptyVocabulary);
  EXPECT_EQ(error->kind_name(), "empty-vocabulary");
  EXPECT_STREQ(error->what(), "a bigram model needs a vocabulary of at least one token, but V = 0");
}

TEST(BigramErrors, RejectsEveryAlphaThatIsNotFiniteAndPositive) {
  const double infinity = std::numeric_limits<double>::infinity();
  for (double alpha : {0.0, -0.0, -1.0, infinity, -infinity}) {
    const auto error = capture_error<BigramError>([&] { BigramModel::fit(5, alpha, kDocuments); });
    EXPECT_EQ(error->kind(), BigramErrorKind::InvalidAlpha) << alpha;
    EXPECT_EQ(error->alpha(), alpha);
    EXPECT_EQ(error->vocabulary_size(), 5u);
  }
  const auto nan =
      capture_error<BigramError>([] { BigramModel::fit(5, std::nan(""), kDocuments); });
  EXPECT_EQ(nan->kind(), BigramErrorKind::InvalidAlpha);
  EXPECT_TRUE(std::isnan(nan->alpha()));
  // Finite alpha whose smoothing mass alpha * V overflows.
  const auto mass = capture_error<BigramError>([] { BigramModel::fit(10, 1e308, kDocuments); });
  EXPECT_EQ(mass->kind(), BigramErrorKind::InvalidAlpha);
  EXPECT_STREQ(mass->what(),
               "the smoothing amount alpha must be finite and positive with a finite alpha * V, "
               "but alpha = 1e308 for V = 10");
}

TEST(BigramErrors, TableTooLargeWhenVTimesVOverflowsOrCannotBeAllocated) {
  const std::vector<std::vector<TokenId>> none;
  const std::size_t overflowing = std::size_t{1} << (std::numeric_limits<std::size_t>::digits / 2);
  const auto overflow =
      capture_error<BigramError>([&] { BigramModel::fit(overflowing, 1.0, none); });
  EXPECT_EQ(overflow->kind(), BigramErrorKind::TableTooLarge);
  EXPECT_EQ(overflow->vocabulary_size(), overflowing);
  const std::size_t too_many_cells = overflowing >> 1;  // V * V fits in size_t, but not in memory
  const auto allocation =
      capture_error<BigramError>([&] { BigramModel::fit(too_many_cells, 1.0, none); });
  EXPECT_EQ(allocation->kind(), BigramErrorKind::TableTooLarge);
}

TEST(BigramErrors, FitNamesTheFirstTokenOutsideTheVocabulary) {
  const std::vector<std::vector<TokenId>> documents = {{0, 2, 1}, {0, 9, 7, 1}, {5}};
  const auto error = capture_error<BigramError>([&] { BigramModel::fit(5, 1.0, documents); });
  EXPECT_EQ(error->kind(), BigramErrorKind::TokenOutOfRange);
  EXPECT_EQ(error->token(), 9u);
  EXPECT_EQ(error->document(), 1u);
  EXPECT_EQ(error->position(), 1u);
  EXPECT_STREQ(error->what(),
               "token ID 9 at position 1 of document 1 is outside the vocabulary of 5 tokens");
  // A lone token is checked even though it forms no transition.
  const std::vector<std::vector<TokenId>> lone = {{5}};
  EXPECT_EQ(capture_error<BigramError>([&] { BigramModel::fit(5, 1.0, lone); })->token(), 5u);
}

TEST(BigramErrors, EveryQueryRejectsATokenOutsideTheVocabulary) {
  const BigramModel model = worked_model();
  const auto current = capture_error<BigramError>([&] { (void)model.smoothed_probability(5, kA); });
  EXPECT_EQ(current->kind(), BigramErrorKind::TokenOutOfRange);
  EXPECT_EQ(current->token(), 5u);
  EXPECT_STREQ(current->what(), "current token ID 5 is outside the vocabulary of 5 tokens");
  const auto next =
      capture_error<BigramError>([&] { (void)model.maximum_likelihood_probability(kC, 5); });
  EXPECT_STREQ(next->what(), "next token ID 5 is outside the vocabulary of 5 tokens");
  const std::vector<std::function<void()>> queries = {
      [&] { (void)model.count(5, 0); },
      [&] { (void)model.count(0, 5); },
      [&] { (void)model.counts_row(5); },
      [&] { (void)model.row_total(5); },
      [&] { (void)model.maximum_likelihood_distribution(5); },
      [&] { (void)model.smoothing_denominator(5); },
      [&] { (void)model.smoothed_probability(0, 5); },
      [&] { (void)model.smoothed_distribution(5); },
      [&] { (void)model.most_likely_next_tokens(5); },
  };
  for (const auto& query : queries) {
    EXPECT_EQ(capture_error<BigramError>(query)->kind(), BigramErrorKind::TokenOutOfRange);
  }
}

TEST(BigramUnigramReading, SumsTheContextOutOfTheCounts) {
  const BigramModel model = worked_model();
  // Targets of the two documents: A A B EOS and A B EOS; BOS is never one.
  const std::vector<std::uint64_t> expected = {0, 2, 3, 2, 0};
  for (TokenId next = 0; next < 5; ++next) {
    EXPECT_EQ(model.unigram_count(next), expected[next]) << next;
  }
  // (count + 1) / (7 + 5): the same table, the row forgotten.
  EXPECT_DOUBLE_EQ(model.unigram_probability(kA), 4.0 / 12.0);
  EXPECT_DOUBLE_EQ(model.unigram_probability(kEos), 3.0 / 12.0);
  EXPECT_DOUBLE_EQ(model.unigram_probability(kBos), 1.0 / 12.0);
  EXPECT_DOUBLE_EQ(model.unigram_probability(kC), 1.0 / 12.0);
  double sum = 0.0;
  for (TokenId next = 0; next < 5; ++next) sum += model.unigram_probability(next);
  EXPECT_NEAR(sum, 1.0, 1e-15);
  const BigramModel half = worked_model(0.5);
  EXPECT_DOUBLE_EQ(half.unigram_probability(kB), 2.5 / 9.5);
}

TEST(BigramSampling, InvertsTheCumulativeMassesOfTheRow) {
  // Row A with alpha = 1 has masses [1, 1, 2, 3, 1] out of 8, so a draw u
  // picks BOS on [0, 1/8), EOS on [1/8, 2/8), A on [2/8, 4/8), B on
  // [4/8, 7/8) and C on [7/8, 1). Each boundary belongs to the token above it.
  const BigramModel model = worked_model();
  const std::vector<std::pair<double, TokenId>> cases = {
      {0.0, kBos},  {0.124, kBos}, {0.125, kEos}, {0.2499, kEos}, {0.25, kA},
      {0.4999, kA}, {0.5, kB},     {0.874, kB},   {0.875, kC},    {0.999999, kC}};
  for (const auto& [unit, expected] : cases) {
    EXPECT_EQ(model.sample_next_token(kA, unit), expected) << unit;
  }
  // The empty row C is uniform: fifths.
  EXPECT_EQ(model.sample_next_token(kC, 0.39), kEos);
  EXPECT_EQ(model.sample_next_token(kC, 0.41), kA);
}

TEST(BigramSampling, DrawsFollowTheSmoothedRow) {
  const BigramModel model = worked_model();
  SplitMix64 generator(2024);
  std::map<TokenId, int> seen;
  constexpr int kDraws = 80000;
  for (int i = 0; i < kDraws; ++i) ++seen[model.sample_next_token(kA, generator.next_unit())];
  const std::vector<double> row = model.smoothed_distribution(kA);
  for (TokenId next = 0; next < 5; ++next) {
    // Five standard deviations of a binomial share at most 0.0089 here.
    EXPECT_NEAR(static_cast<double>(seen[next]) / kDraws, row[next], 0.009) << next;
  }
}

TEST(BigramSampling, SeededSequencesMatchAnIndependentDerivation) {
  // Worked out with exact fractions from the published SplitMix64 stream:
  // seed 11 draws 0.3162, 0.2624, 0.6380, 0.5046 and writes A A B EOS, the
  // first training document; seed 0 wanders through unseen transitions.
  const BigramModel model = worked_model();
  SplitMix64 eleven(11);
  EXPECT_EQ(sample_bigram_sequence(model, kBos, kEos, 12, eleven),
            (std::vector<TokenId>{kA, kA, kB, kEos}));
  SplitMix64 zero(0);
  EXPECT_EQ(sample_bigram_sequence(model, kBos, kEos, 12, zero),
            (std::vector<TokenId>{kC, kA, kBos, kC, kBos, kA, kEos}));
  SplitMix64 replay(0);
  for (int i = 0; i < 7; ++i) replay.next_unit();
  EXPECT_EQ(zero.state(), replay.state()) << "one draw per token";
  SplitMix64 capped(0);
  EXPECT_EQ(sample_bigram_sequence(model, kBos, kEos, 3, capped),
            (std::vector<TokenId>{kC, kA, kBos}));
}

TEST(BigramSampling, RefusesABadDrawOrTokenBeforeDrawing) {
  const BigramModel model = worked_model();
  for (double unit : {1.0, -1e-300, std::nan(""), std::numeric_limits<double>::infinity()}) {
    const auto error = capture_error<BigramError>([&] { (void)model.sample_next_token(kA, unit); });
    EXPECT_EQ(error->kind(), BigramErrorKind::InvalidDraw) << unit;
    EXPECT_EQ(error->kind_name(), "invalid-draw");
  }
  EXPECT_STREQ(capture_error<BigramError>([&] { (void)model.sample_next_token(kA, 1.0); })->what(),
               "a sampling draw must lie in [0, 1), but it is 1.0");
  SplitMix64 generator(5);
  const std::uint64_t before = generator.state();
  const auto start = capture_error<BigramError>(
      [&] { (void)sample_bigram_sequence(model, 5, kEos, 4, generator); });
  EXPECT_EQ(start->kind(), BigramErrorKind::TokenOutOfRange);
  EXPECT_EQ(start->token(), 5u);
  (void)capture_error<BigramError>(
      [&] { (void)sample_bigram_sequence(model, kBos, 9, 4, generator); });
  EXPECT_EQ(generator.state(), before) << "a refused request draws nothing";
  EXPECT_EQ(capture_error<BigramError>([&] { (void)model.unigram_probability(5); })->kind(),
            BigramErrorKind::TokenOutOfRange);
}

}  // namespace
}  // namespace llm
