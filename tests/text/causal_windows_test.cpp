// Chapter 5: shifted input/target pairs inside one document, the
// too-short suffix, and the encoded partitions of the book's corpus (no
// window ever crosses a document or a partition).
#include "llm/text/causal_windows.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "book_corpus.hpp"
#include "llm/text/encoded_corpus.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;
using Ids = std::vector<TokenId>;

Ids ids(std::span<const TokenId> span) {
  return {span.begin(), span.end()};
}

TEST(CausalWindowConfig, RejectsZeroSizesAndAnUncountableContext) {
  EXPECT_EQ(capture_error<CausalWindowError>([] { CausalWindowConfig::create(0, 1); })->kind(),
            CausalWindowErrorKind::ZeroContextLength);
  EXPECT_EQ(capture_error<CausalWindowError>([] { CausalWindowConfig::create(3, 0); })->kind(),
            CausalWindowErrorKind::ZeroStride);
  const auto overflow = capture_error<CausalWindowError>(
      [] { CausalWindowConfig::create(std::numeric_limits<std::size_t>::max(), 1); });
  EXPECT_EQ(overflow->kind(), CausalWindowErrorKind::ContextLengthOverflow);
}

TEST(CausalWindows, ShiftTheTargetByOneInsideTheWorkedDocument) {
  const Ids document = {0, 41, 42, 43, 44, 1};
  const auto config = CausalWindowConfig::create(3, 1);
  EXPECT_EQ(config.required_source_tokens(), 4u);
  const std::vector<CausalWindow> pairs = config.windows(document);
  ASSERT_EQ(pairs.size(), 3u);
  EXPECT_EQ(ids(pairs[0].input), (Ids{0, 41, 42}));
  EXPECT_EQ(ids(pairs[0].target), (Ids{41, 42, 43}));
  EXPECT_EQ(ids(pairs[2].input), (Ids{42, 43, 44}));
  EXPECT_EQ(ids(pairs[2].target), (Ids{43, 44, 1}));
  for (const CausalWindow& pair : pairs) {
    for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(pair.target[i], document[pair.start + i + 1]);
  }
  const auto tail = config.incomplete_tail(document);
  ASSERT_TRUE(tail);
  EXPECT_EQ(tail->start, 3u);
  EXPECT_EQ(ids(tail->tokens), (Ids{43, 44, 1}));
}

TEST(CausalWindows, StrideSkipsStartsAndShortDocumentsMakeNoPair) {
  const Ids document = {0, 41, 42, 43, 44, 1};
  const auto stride_two = CausalWindowConfig::create(3, 2);
  const auto pairs = stride_two.windows(document);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[1].start, 2u);
  EXPECT_EQ(ids(stride_two.incomplete_tail(document)->tokens), (Ids{44, 1}));

  const auto config = CausalWindowConfig::create(3, 1);
  const Ids short_document = {0, 61, 1};
  EXPECT_EQ(config.window_count(short_document.size()), 0u);
  EXPECT_EQ(ids(config.incomplete_tail(short_document)->tokens), short_document);
  EXPECT_EQ(config.incomplete_tail(Ids{}), std::nullopt);
  // Empty content still has BOS -> EOS.
  const auto one = CausalWindowConfig::create(1, 1);
  ASSERT_EQ(one.windows(Ids{0, 1}).size(), 1u);
  EXPECT_EQ(ids(one.windows(Ids{0, 1})[0].target), (Ids{1}));
  // An exact fit leaves no empty suffix, even with a huge stride.
  const auto far = CausalWindowConfig::create(3, std::numeric_limits<std::size_t>::max());
  EXPECT_EQ(far.window_count(4), 1u);
  EXPECT_EQ(far.incomplete_tail(Ids{0, 1, 2, 3}), std::nullopt);
  EXPECT_EQ(CausalWindowConfig::create(3, 5).incomplete_tail(Ids{0, 1, 2, 3}), std::nullopt);
}

TEST(CausalWindows, NeverJoinTwoDocuments) {
  // Flattening [0,10,1] and [0,20,1] would make the pair [10,1] -> [1,0].
  const auto config = CausalWindowConfig::create(2, 1);
  for (const Ids& document : {Ids{0, 10, 1}, Ids{0, 20, 1}}) {
    for (const CausalWindow& pair : config.windows(document)) {
      EXPECT_NE(ids(pair.target), (Ids{1, 0}));
      EXPECT_EQ(pair.input[0], document[pair.start]);
    }
  }
}

TEST(EncodedCorpus, KeepsDocumentsSeparateWithinTheirPartitions) {
  const CorpusPartitions partitions = book_corpus::partitions();
  const BpeTokenizer tokenizer = BpeTokenizer::from_training(BpeTrainer(8).train(partitions));
  const auto encoded = EncodedCorpusPartitions::encode(partitions, tokenizer);
  const auto config = CausalWindowConfig::create(3, 1);
  for (Partition partition : kPartitions) {
    const auto& documents = encoded.documents(partition);
    ASSERT_EQ(documents.size(), partitions.documents(partition).size());
    for (std::size_t i = 0; i < documents.size(); ++i) {
      const EncodedDocument& document = documents[i];
      EXPECT_EQ(document.id, partitions.documents(partition)[i].id);
      EXPECT_EQ(document.partition, partition);
      EXPECT_EQ(tokenizer.decode_document_utf8(document.token_ids),
                partitions.documents(partition)[i].text);
      // Every window lies inside this document's tokens, and only one BOS and
      // one EOS exist in it: at its two ends.
      const TokenId* begin = document.token_ids.data();
      const TokenId* end = begin + document.token_ids.size();
      for (const CausalWindow& pair : document.windows(config)) {
        EXPECT_GE(pair.input.data(), begin);
        EXPECT_LE(pair.target.data() + pair.target.size(), end);
        for (std::size_t j = 0; j < 3; ++j) {
          EXPECT_NE(pair.input[j], kEosTokenId);
          EXPECT_NE(pair.target[j], kBosTokenId);
        }
      }
    }
  }
}

TEST(EncodedCorpus, BookCorpusTokenAndPairCountsAreTheChapterFiveTotals) {
  // The book's corpus was written so that these totals equal the reference
  // edition's: chapters 5 and 7 print them.
  const CorpusPartitions partitions = book_corpus::partitions();
  const auto encoded = EncodedCorpusPartitions::encode(
      partitions, BpeTokenizer::from_training(BpeTrainer(8).train(partitions)));
  EXPECT_EQ(encoded.token_count(Partition::Train), 1852u);
  EXPECT_EQ(encoded.token_count(Partition::Validation), 471u);
  EXPECT_EQ(encoded.token_count(Partition::Test), 444u);
  const auto config = CausalWindowConfig::create(3, 1);
  EXPECT_EQ(encoded.window_count(Partition::Train, config), 1828u);
  EXPECT_EQ(encoded.window_count(Partition::Validation, config), 465u);
  EXPECT_EQ(encoded.window_count(Partition::Test, config), 438u);
}

}  // namespace
}  // namespace llm
