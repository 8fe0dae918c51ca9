// Chapter 1: UTF-8 bytes, Unicode scalars, strict UTF-8 validation and the
// scalar vocabulary, with the reference edition's worked values.
#include "llm/text/text_units.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;

std::span<const std::uint8_t> bytes_of(const std::vector<std::uint8_t>& bytes) {
  return bytes;
}

TEST(TextUnits, SeparatesBytesFromScalars) {
  EXPECT_EQ(utf8_bytes("cat"), (std::vector<std::uint8_t>{99, 97, 116}));
  EXPECT_EQ(unicode_scalars("cat"), (std::vector<char32_t>{U'c', U'a', U't'}));
  EXPECT_EQ(utf8_bytes("кот"), (std::vector<std::uint8_t>{208, 186, 208, 190, 209, 130}));
  EXPECT_EQ(unicode_scalars("кот"), (std::vector<char32_t>{0x043A, 0x043E, 0x0442}));
  EXPECT_EQ(unicode_scalars("🦀"), (std::vector<char32_t>{0x1F980}));
  // Every length, at both ends of its range: the three- and four-byte
  // branches each take their own lead mask and continuation count.
  EXPECT_EQ(unicode_scalars("€"), (std::vector<char32_t>{0x20AC}));
  EXPECT_EQ(unicode_scalars("\xC2\x80\xDF\xBF"), (std::vector<char32_t>{0x80, 0x7FF}));
  EXPECT_EQ(unicode_scalars("\xE0\xA0\x80\xEF\xBF\xBF"), (std::vector<char32_t>{0x800, 0xFFFF}));
  EXPECT_EQ(unicode_scalars("\xF0\x90\x80\x80\xF4\x8F\xBF\xBF"),
            (std::vector<char32_t>{0x10000, 0x10FFFF}));
  EXPECT_TRUE(utf8_bytes("").empty());
  EXPECT_TRUE(unicode_scalars("").empty());
}

TEST(TextUnits, LabelsAndEncodesScalars) {
  EXPECT_EQ(scalar_label(U'c'), "U+0063");
  EXPECT_EQ(scalar_label(0x043A), "U+043A");
  EXPECT_EQ(scalar_label(0x1F980), "U+1F980");
  EXPECT_EQ(scalar_utf8(U'a'), "a");
  EXPECT_EQ(scalar_utf8(0x043A), "к");
  EXPECT_EQ(scalar_utf8(0x20AC), "€");
  EXPECT_EQ(scalar_utf8(0x1F980), "🦀");
  EXPECT_EQ(capture_error<TextUnitError>([] { scalar_utf8(0xD800); })->kind(),
            TextUnitErrorKind::InvalidScalar);
  EXPECT_EQ(capture_error<TextUnitError>([] { scalar_utf8(0x110000); })->value(), 0x110000u);
}

TEST(TextUnits, ValidatesUtf8LikeTheUnicodeTable) {
  const std::vector<std::pair<std::vector<std::uint8_t>, std::size_t>> cases = {
      {{0x61, 0x62}, 2},                    // ASCII
      {{0xD0, 0xBA}, 2},                    // к
      {{0xF0, 0x9F, 0xA6, 0x80}, 4},        // 🦀, four bytes
      {{0xFF, 0xFE}, 0},                    // bytes that never occur in UTF-8
      {{0x61, 0x80}, 1},                    // a stray continuation byte
      {{0x61, 0xD0}, 1},                    // a lead byte without its continuation
      {{0xC0, 0xAF}, 0},                    // overlong '/': C0 is refused as a lead
      {{0xC1, 0xBF}, 0},                    // overlong DEL: so is C1
      {{0xF0, 0x80, 0x80, 0xAF}, 0},        // overlong in four bytes: F0 needs 90 or more
      {{0xF5, 0x80, 0x80, 0x80}, 0},        // F5 would start a value above U+10FFFF
      {{0xF8, 0x88, 0x80, 0x80, 0x80}, 0},  // no UTF-8 sequence has five bytes
      {{0xE0, 0x80, 0xAF}, 0},              // overlong in three bytes
      {{0xED, 0xA0, 0x80}, 0},              // the surrogate U+D800
      {{0xF4, 0x90, 0x80, 0x80}, 0},        // above U+10FFFF
      {{0xEF, 0xBF, 0xBF, 0xF4, 0x8F}, 3},  // U+FFFF, then a truncated U+10FFFF
  };
  for (const auto& [bytes, valid] : cases) {
    EXPECT_EQ(utf8_valid_prefix_length(bytes_of(bytes)), valid);
  }
  const auto error = capture_error<TextUnitError>([] { unicode_scalars("ok\xD0"); });
  EXPECT_EQ(error->kind(), TextUnitErrorKind::InvalidUtf8);
  EXPECT_EQ(error->byte_offset(), 2u);
}

TEST(ScalarVocabulary, AssignsIdsInNumericScalarOrder) {
  const auto vocabulary = ScalarVocabulary::from_training_text("cat кот");
  EXPECT_EQ(vocabulary.known_scalars(),
            (std::vector<char32_t>{U' ', U'a', U'c', U't', 0x043A, 0x043E, 0x0442}));
  EXPECT_EQ(vocabulary.max_id(), 7u);
  EXPECT_EQ(vocabulary.id_for(U' '), 1u);
  EXPECT_EQ(vocabulary.id_for(0x0442), 7u);
  // The order of first appearance does not matter, only the set of scalars.
  EXPECT_EQ(ScalarVocabulary::from_training_text("тко tac").known_scalars(),
            vocabulary.known_scalars());
}

TEST(ScalarVocabulary, RoundTripsKnownTextInBothScripts) {
  const auto vocabulary = ScalarVocabulary::from_training_text("cat кот");
  EXPECT_EQ(vocabulary.encode("cat"), (std::vector<std::size_t>{3, 2, 4}));
  EXPECT_EQ(vocabulary.encode("кот"), (std::vector<std::size_t>{5, 6, 7}));
  const std::vector<std::size_t> both = {3, 2, 4, 1, 5, 6, 7};
  EXPECT_EQ(vocabulary.encode("cat кот"), both);
  EXPECT_EQ(vocabulary.decode(both), "cat кот");
}

TEST(ScalarVocabulary, UnknownScalarsLoseTheirText) {
  const auto vocabulary = ScalarVocabulary::from_training_text("cat кот");
  EXPECT_EQ(vocabulary.encode("?"), (std::vector<std::size_t>{kUnknownScalarId}));
  EXPECT_EQ(vocabulary.decode(std::vector<std::size_t>{0}), "<UNK>");
  EXPECT_EQ(vocabulary.decode(std::vector<std::size_t>{3, 0, 7}), "c<UNK>т");
  EXPECT_EQ(vocabulary.scalar_for(0), std::nullopt);
  EXPECT_EQ(vocabulary.scalar_for(5), std::optional<char32_t>(0x043A));
}

TEST(ScalarVocabulary, RejectsIdsAboveTheRangeNamingTheFirst) {
  const auto vocabulary = ScalarVocabulary::from_training_text("cat кот");
  const auto error = capture_error<TextUnitError>([&] {
    vocabulary.decode(std::vector<std::size_t>{3, 8, 9});
  });
  EXPECT_EQ(error->kind(), TextUnitErrorKind::TokenIdOutOfRange);
  EXPECT_EQ(error->position(), 1u);
  EXPECT_EQ(error->token_id(), 8u);
  EXPECT_EQ(error->max_id(), 7u);
  EXPECT_STREQ(error->what(), "token ID 8 at position 1 is outside vocabulary range 0..=7");
  EXPECT_EQ(capture_error<TextUnitError>([&] { vocabulary.scalar_for(8); })->token_id(), 8u);
}

TEST(ScalarVocabulary, HandlesEmptyTextAndRejectsInvalidUtf8) {
  const auto empty = ScalarVocabulary::from_training_text("");
  EXPECT_TRUE(empty.known_scalars().empty());
  EXPECT_TRUE(empty.encode("").empty());
  EXPECT_EQ(empty.decode({}), "");
  EXPECT_EQ(empty.encode("a"), (std::vector<std::size_t>{kUnknownScalarId}));
  EXPECT_EQ(capture_error<TextUnitError>([] {
              ScalarVocabulary::from_training_text("a\xFF");
            })->byte_offset(),
            1u);
}

}  // namespace
}  // namespace llm
