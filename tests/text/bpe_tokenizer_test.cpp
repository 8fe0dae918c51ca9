// Chapter 4: the token ID layout, ranked encoding, byte-exact round trips on
// every corpus document and on random bytes (4-byte scalars and malformed
// UTF-8 included), strict document decoding, and the checked merge table.
#include "llm/text/bpe_tokenizer.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "book_corpus.hpp"
#include "llm/text/text_units.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;
using Ids = std::vector<TokenId>;
using Bytes = std::vector<std::uint8_t>;

BpeTokenizer book_tokenizer() {
  return BpeTokenizer::from_training(BpeTrainer(8).train(book_corpus::partitions()));
}

Bytes bytes(std::string_view text) {
  return {text.begin(), text.end()};
}

TEST(TokenizerLayout, FixesControlByteAndMergeRanges) {
  const BpeTokenizer tokenizer = book_tokenizer();
  const TokenizerLayout& layout = tokenizer.layout();
  EXPECT_EQ(layout.version(), 1u);
  EXPECT_EQ(kBosTokenId, 0u);
  EXPECT_EQ(kEosTokenId, 1u);
  EXPECT_EQ(layout.byte_token_id(0), 2u);
  EXPECT_EQ(layout.byte_token_id(255), 257u);
  EXPECT_EQ(layout.merge_token_id(0), 258u);
  EXPECT_EQ(layout.merge_token_id(7), 265u);
  EXPECT_EQ(layout.merge_token_id(8), std::nullopt);
  EXPECT_EQ(tokenizer.vocabulary_size(), 266u);
  for (const BpeMergeRule& rule : tokenizer.merge_rules()) {
    EXPECT_EQ(rule.training_token_id, 256 + rule.rank);
    EXPECT_EQ(rule.content_token_id, 258 + rule.rank);
    EXPECT_EQ(rule.content_pair,
              (TokenPair{rule.training_pair.left + 2, rule.training_pair.right + 2}));
  }
  EXPECT_EQ(tokenizer.token_bytes(kBosTokenId), std::nullopt);
  EXPECT_EQ(tokenizer.token_bytes(kEosTokenId), std::nullopt);
  EXPECT_EQ(tokenizer.token_bytes(266), std::nullopt);
  const auto overflow = capture_error<TokenizerError>(
      [] { TokenizerLayout::create(std::size_t{0xFFFFFFFF} - kFirstMergeTokenId + 2); });
  EXPECT_EQ(overflow->kind(), TokenizerErrorKind::LayoutOverflow);
  EXPECT_EQ(TokenizerLayout::create(std::size_t{0xFFFFFFFF} - kFirstMergeTokenId + 1)
                .merge_token_id(std::size_t{0xFFFFFFFF} - kFirstMergeTokenId),
            0xFFFFFFFFu);
}

TEST(BpeTokenizer, RankIsPriorityNotFrequency) {
  const BpeTokenizer tokenizer = book_tokenizer();
  // " а" is 20 d0 b0: rank 0 (20,d0) consumes the d0 before rank 1 (d0,b0) runs.
  EXPECT_EQ(tokenizer.encode_content(" а"), (Ids{258, 178}));
  // [34, 259] decodes to the same bytes but is not what encoding produces.
  EXPECT_EQ(tokenizer.decode_content(Ids{34, 259}), bytes(" а"));
  EXPECT_EQ(tokenizer.encode_content(tokenizer.decode_content(Ids{34, 259})), (Ids{258, 178}));
  EXPECT_EQ(tokenizer.encode_content("т"), (Ids{260}));
}

TEST(BpeTokenizer, EncodesUnseenAndMalformedBytesAsByteTokens) {
  const BpeTokenizer tokenizer = book_tokenizer();
  EXPECT_EQ(tokenizer.encode_content("🦀"), (Ids{242, 161, 168, 130}));
  EXPECT_EQ(tokenizer.decode_content_utf8(Ids{242, 161, 168, 130}), "🦀");
  const Bytes malformed = {0xFF, 0xFE};
  EXPECT_EQ(tokenizer.encode_content(malformed), (Ids{257, 256}));
  EXPECT_EQ(tokenizer.decode_content(Ids{257, 256}), malformed);
  const auto error = capture_error<TokenizerError>([&] {
    tokenizer.decode_content_utf8(Ids{257, 256});
  });
  EXPECT_EQ(error->kind(), TokenizerErrorKind::InvalidUtf8);
  EXPECT_EQ(error->valid_up_to(), 0u);
  EXPECT_STREQ(error->what(), "decoded bytes are not valid UTF-8 at byte 0");
  EXPECT_TRUE(tokenizer.encode_content("").empty());
  EXPECT_EQ(tokenizer.encode_document(""), (Ids{0, 1}));
  EXPECT_TRUE(tokenizer.decode_document(Ids{0, 1}).empty());
}

TEST(BpeTokenizer, RoundTripsEveryBookCorpusDocument) {
  const BpeTokenizer tokenizer = book_tokenizer();
  const Corpus corpus = book_corpus::corpus();
  for (const Document& document : corpus.documents()) {
    const Ids ids = tokenizer.encode_document(document.text);
    EXPECT_EQ(ids.front(), kBosTokenId);
    EXPECT_EQ(ids.back(), kEosTokenId);
    EXPECT_EQ(tokenizer.decode_document_utf8(ids), document.text) << document.id;
    EXPECT_LT(ids.size(), document.text.size() + 2) << document.id;  // the merges shortened it
  }
}

TEST(BpeTokenizer, RoundTripsRandomBytesAndRandomScalarsExactly) {
  const BpeTokenizer tokenizer = book_tokenizer();
  std::mt19937_64 random(20240613);
  std::uniform_int_distribution<int> length(0, 40);
  std::uniform_int_distribution<int> byte(0, 255);
  // Scalars from every UTF-8 length: ASCII, Cyrillic, CJK, and 4-byte emoji.
  const std::vector<char32_t> scalars = {U'a',   U' ',   U'e',    0x0430,  0x0434,
                                         0x0442, 0x4E2D, 0x1F980, 0x10FFFF};
  std::uniform_int_distribution<std::size_t> pick(0, scalars.size() - 1);
  std::size_t malformed = 0;
  for (int trial = 0; trial < 500; ++trial) {
    Bytes raw(static_cast<std::size_t>(length(random)));
    for (std::uint8_t& b : raw) b = static_cast<std::uint8_t>(byte(random));
    malformed += utf8_valid_prefix_length(raw) != raw.size();
    EXPECT_EQ(tokenizer.decode_content(tokenizer.encode_content(raw)), raw);
    EXPECT_EQ(tokenizer.decode_document(tokenizer.encode_document(raw)), raw);

    std::string text;
    for (int i = 0, n = length(random); i < n; ++i) text += scalar_utf8(scalars[pick(random)]);
    EXPECT_EQ(tokenizer.decode_document_utf8(tokenizer.encode_document(text)), text);
    // A text cut inside a 4-byte scalar is malformed, and still round-trips.
    const std::string cut = text + "\xF0\x9F\xA6";
    EXPECT_EQ(tokenizer.decode_content(tokenizer.encode_content(cut)), bytes(cut));
    EXPECT_EQ(capture_error<TokenizerError>([&] {
                tokenizer.decode_content_utf8(tokenizer.encode_content(cut));
              })->valid_up_to(),
              text.size());
  }
  EXPECT_GT(malformed, 400u);  // random bytes are almost never UTF-8: the malformed path ran
}

TEST(BpeTokenizer, TracedAndPlainEncodingAgree) {
  const BpeTokenizer tokenizer = book_tokenizer();
  for (std::string_view input :
       {std::string_view(""), std::string_view("z"), std::string_view(" а bee "),
        std::string_view("aaaaa"), std::string_view("\xFF\xFE\x00\xE2\x82", 5)}) {
    const Bytes raw = bytes(input);
    EXPECT_EQ(tokenizer.encode_content_with_trace(raw).content_tokens,
              tokenizer.encode_content(raw));
  }
  const BpeEncodingTrace trace = tokenizer.encode_content_with_trace(bytes(" а"));
  EXPECT_EQ(trace.initial_tokens, (Ids{34, 210, 178}));
  ASSERT_EQ(trace.applications.size(), 1u);
  EXPECT_EQ(trace.applications[0].rank, 0u);
  EXPECT_EQ(trace.applications[0].after, (Ids{258, 178}));
}

TEST(BpeTokenizer, DecodesDocumentsStrictly) {
  const BpeTokenizer tokenizer = book_tokenizer();
  const struct {
    Ids document;
    TokenizerErrorKind kind;
    std::size_t position;
    TokenId token;
  } cases[] = {
      {{0}, TokenizerErrorKind::DocumentTooShort, 0, 0},
      {{100, 1}, TokenizerErrorKind::ExpectedBos, 0, 100},
      {{0, 100, 100}, TokenizerErrorKind::ExpectedEos, 2, 100},
      {{0, 100, 0, 1}, TokenizerErrorKind::InteriorControlToken, 2, 0},
      {{0, 100, 266, 1}, TokenizerErrorKind::UnknownToken, 2, 266},
  };
  for (const auto& c : cases) {
    const auto error =
        capture_error<TokenizerError>([&] { tokenizer.decode_document(c.document); });
    EXPECT_EQ(error->kind(), c.kind) << error->what();
    EXPECT_EQ(error->position(), c.position) << error->what();
    EXPECT_EQ(error->token_id(), c.token) << error->what();
  }
  EXPECT_STREQ(capture_error<TokenizerError>([&] {
                 tokenizer.decode_document(Ids{0, 100, 0, 1});
               })->what(),
               "document control token 0 is not allowed at position 2");
  const auto content = capture_error<TokenizerError>([&] {
    tokenizer.decode_content(Ids{100, 1});
  });
  EXPECT_EQ(content->kind(), TokenizerErrorKind::ControlTokenInContent);
  EXPECT_EQ(content->position(), 1u);
}

TEST(BpeTokenizer, FromMergePairsChecksOperandsAndRepeats) {
  const BpeTokenizer chained =
      BpeTokenizer::from_merge_pairs(std::vector<TokenPair>{{97, 98}, {256, 99}});
  EXPECT_EQ(chained.encode_content("abc"), (Ids{259}));
  EXPECT_EQ(chained.encode_content("zabcabc"), (Ids{124, 259, 259}));
  EXPECT_EQ(chained.decode_content(Ids{259}), bytes("abc"));
  const auto unknown = capture_error<TokenizerError>([] {
    BpeTokenizer::from_merge_pairs(std::vector<TokenPair>{{256, 97}});
  });
  EXPECT_EQ(unknown->kind(), TokenizerErrorKind::UnknownMergeOperand);
  EXPECT_EQ(unknown->token_id(), 256u);
  const auto repeated = capture_error<TokenizerError>([] {
    BpeTokenizer::from_merge_pairs(std::vector<TokenPair>{{97, 98}, {97, 98}});
  });
  EXPECT_EQ(repeated->kind(), TokenizerErrorKind::DuplicateMergePair);
  EXPECT_EQ(repeated->rank(), 1u);
  // The stored pairs of a training rebuild the same tokenizer.
  const BpeTraining training = BpeTrainer(8).train(book_corpus::partitions());
  std::vector<TokenPair> pairs;
  for (const MergeRule& rule : training.rules()) pairs.push_back(rule.pair);
  const BpeTokenizer rebuilt = BpeTokenizer::from_merge_pairs(pairs);
  EXPECT_EQ(rebuilt.merge_rules(), BpeTokenizer::from_training(training).merge_rules());
}

}  // namespace
}  // namespace llm
