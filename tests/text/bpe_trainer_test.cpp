// Chapter 3: overlapping pair counts, the numeric tie rule, left-to-right
// replacement, document barriers, and training on the train split only.
#include "llm/text/bpe_trainer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "book_corpus.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;
using Sequences = std::vector<std::vector<TokenId>>;

TEST(PairCounting, CountsOverlapsButReplacesWithoutOverlap) {
  const Sequences aaa = {bytes_to_tokens("aaa")};
  EXPECT_EQ(count_adjacent_pairs(aaa).at(TokenPair{97, 97}), 2u);
  const PairReplacement replaced = replace_pair_left_to_right(aaa[0], {97, 97}, 256);
  EXPECT_EQ(replaced.tokens, (std::vector<TokenId>{256, 97}));
  EXPECT_EQ(replaced.replacements, 1u);
  const PairReplacement four = replace_pair_left_to_right(bytes_to_tokens("aaaa"), {97, 97}, 256);
  EXPECT_EQ(four.tokens, (std::vector<TokenId>{256, 256}));
  EXPECT_EQ(four.replacements, 2u);
}

TEST(PairCounting, NeverCountsAcrossADocumentBoundary) {
  EXPECT_TRUE(count_adjacent_pairs(Sequences{{97}, {97}}).empty());
  EXPECT_TRUE(count_adjacent_pairs(Sequences{{97}, {98}}).empty());
  EXPECT_EQ(count_adjacent_pairs(Sequences{{97, 98}}).at(TokenPair{97, 98}), 1u);
  EXPECT_TRUE(count_adjacent_pairs(Sequences{}).empty());
  EXPECT_EQ(choose_most_frequent_pair({}), std::nullopt);
}

TEST(TieRule, PrefersTheSmallerLeftThenTheSmallerRightId) {
  // A crafted tie: three pairs with count 2 that differ in left, then right.
  // A rule that kept the first pair seen, the last, or compared (right, left)
  // would pick another one.
  const Sequences sequences = {{98, 97, 98, 97}, {97, 99, 120, 97, 99}, {97, 98}};
  const auto counts = count_adjacent_pairs(sequences);
  EXPECT_EQ(counts.at(TokenPair{98, 97}), 2u);
  EXPECT_EQ(counts.at(TokenPair{97, 99}), 2u);
  EXPECT_EQ(counts.at(TokenPair{97, 98}), 2u);
  const auto winner = choose_most_frequent_pair(counts);
  ASSERT_TRUE(winner);
  EXPECT_EQ(winner->first, (TokenPair{97, 98}));
  EXPECT_EQ(winner->second, 2u);
  // A larger count beats any numeric order.
  const auto larger = choose_most_frequent_pair({{{97, 98}, 2}, {{200, 201}, 3}});
  EXPECT_EQ(larger->first, (TokenPair{200, 201}));
}

TEST(LearnMerges, ReproducesTheTwoRoundWorkedTrace) {
  const BpeTraining training =
      learn_merges(2, {"train-aaa", "train-aba"}, {bytes_to_tokens("aaa"), bytes_to_tokens("aba")});
  ASSERT_EQ(training.rules().size(), 2u);
  EXPECT_EQ(training.rules()[0], (MergeRule{0, {97, 97}, 256, 2, 1}));
  EXPECT_EQ(training.rules()[1], (MergeRule{1, {97, 98}, 257, 1, 1}));
  EXPECT_EQ(training.final_sequences(), (Sequences{{256, 97}, {257, 97}}));
  EXPECT_EQ(training.vocabulary_size(), 258u);
  EXPECT_EQ(std::vector<std::uint8_t>(training.token_bytes(256)->begin(),
                                      training.token_bytes(256)->end()),
            (std::vector<std::uint8_t>{0x61, 0x61}));
  EXPECT_EQ(training.token_bytes(258), std::nullopt);
}

TEST(LearnMerges, JoinsByteExpansionsNotIdsAndStopsWhenNoPairIsLeft) {
  const BpeTraining training = learn_merges(5, {"only"}, {bytes_to_tokens("aaaa")});
  ASSERT_EQ(training.rules().size(), 2u);  // (97,97) then (256,256); then one token is left
  EXPECT_EQ(training.rules()[1].pair, (TokenPair{256, 256}));
  const auto bytes = *training.token_bytes(257);
  EXPECT_EQ(std::vector<std::uint8_t>(bytes.begin(), bytes.end()),
            (std::vector<std::uint8_t>{0x61, 0x61, 0x61, 0x61}));
  EXPECT_EQ(training.requested_merges(), 5u);
  EXPECT_EQ(learn_merges(0, {"only"}, {bytes_to_tokens("ab")}).rules().size(), 0u);
}

TEST(LearnMerges, RejectsBadInputsBeforeLearning) {
  const auto count = capture_error<BpeTrainingError>([] { learn_merges(1, {"a", "b"}, {{97}}); });
  EXPECT_EQ(count->kind(), BpeTrainingErrorKind::DocumentCountMismatch);
  EXPECT_EQ(count->document_count(), 2u);
  const auto byte = capture_error<BpeTrainingError>([] { learn_merges(1, {"a"}, {{97, 300}}); });
  EXPECT_EQ(byte->kind(), BpeTrainingErrorKind::InitialTokenNotByte);
  EXPECT_EQ(byte->position(), 1u);
  EXPECT_EQ(byte->token_id(), 300u);
  const auto many =
      capture_error<BpeTrainingError>([] { learn_merges(kMaxMergeCount + 1, {}, {}); });
  EXPECT_EQ(many->kind(), BpeTrainingErrorKind::TooManyMerges);
  EXPECT_EQ(many->max_merges(), kMaxMergeCount);
}

TEST(BpeTrainer, LearnsFromTheTrainingPartitionOnlyAndRepeats) {
  const CorpusPartitions partitions = book_corpus::partitions();
  const BpeTraining first = BpeTrainer(8).train(partitions);
  EXPECT_EQ(first, BpeTrainer(8).train(partitions));
  EXPECT_EQ(first.training_document_ids(), partitions.document_ids(Partition::Train));
  ASSERT_EQ(first.rules().size(), 8u);
  EXPECT_EQ(first.vocabulary_size(), 264u);
  for (const MergeRule& rule : first.rules()) {
    EXPECT_EQ(rule.token_id, 256 + rule.rank);
    EXPECT_GE(rule.candidate_count, rule.replacement_count);
  }
  // The same pairs never win twice.
  std::vector<TokenPair> pairs;
  for (const MergeRule& rule : first.rules()) pairs.push_back(rule.pair);
  std::sort(pairs.begin(), pairs.end());
  EXPECT_EQ(std::adjacent_find(pairs.begin(), pairs.end()), pairs.end());
}

TEST(BpeTrainer, BookCorpusRanksIncludeTwoRealTies) {
  // The book's train split: rank 3 and 4 tie at 51 (decided by the right
  // ID), ranks 6 and 7 tie at 33 (decided by the left ID).
  const BpeTraining training = BpeTrainer(8).train(book_corpus::partitions());
  const std::vector<MergeRule> expected = {
      {0, {32, 208}, 256, 91, 91},  {1, {208, 176}, 257, 64, 64}, {2, {209, 130}, 258, 58, 58},
      {3, {208, 181}, 259, 51, 51}, {4, {208, 190}, 260, 51, 51}, {5, {209, 128}, 261, 36, 36},
      {6, {101, 32}, 262, 33, 33},  {7, {208, 184}, 263, 33, 33},
  };
  EXPECT_EQ(training.rules(), expected);
}

TEST(BpeTrainer, ZeroRoundsKeepTheInitialBytes) {
  const CorpusPartitions partitions = book_corpus::partitions();
  const BpeTraining training = BpeTrainer(0).train(partitions);
  EXPECT_TRUE(training.rules().empty());
  EXPECT_EQ(training.final_sequences()[0],
            bytes_to_tokens(partitions.training_documents()[0].text));
}

}  // namespace
}  // namespace llm
