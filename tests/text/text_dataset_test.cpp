// Chapter 40's data: Tiny Shakespeare read and checked against its record
// (size, SHA-256), its 65-symbol byte vocabulary, and nanoGPT's 90/10 split.
#include "llm/text/text_dataset.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;

const std::filesystem::path kShakespeare = LLM_TINY_SHAKESPEARE;

// A scratch file under the test's temporary directory, removed at the end.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& bytes)
      : path_(std::filesystem::path(::testing::TempDir()) /
              ("dataset-" + std::to_string(reinterpret_cast<std::uintptr_t>(this)))) {
    std::ofstream(path_, std::ios::binary) << bytes;
  }
  ~ScratchFile() { std::filesystem::remove(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

TEST(Sha256, KnownDigestsFromFips180) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(TinyShakespeare, ReadsVerifiedAndIsAscii) {
  const std::string text = read_verified_text(kShakespeare, kTinyShakespeare);
  ASSERT_EQ(text.size(), 1'115'394u);
  EXPECT_TRUE(std::all_of(text.begin(), text.end(),
                          [](char c) { return static_cast<unsigned char>(c) < 128; }));
  EXPECT_EQ(text.find('\r'), std::string::npos);
  EXPECT_EQ(text.substr(0, 14), "First Citizen:");
}

TEST(TinyShakespeare, VocabularyIsNanoGptsSixtyFiveCharacters) {
  const ByteVocabulary vocabulary =
      ByteVocabulary::from_text(read_verified_text(kShakespeare, kTinyShakespeare));
  // nanoGPT's prepare.py prints these after "all the unique characters:".
  EXPECT_EQ(vocabulary.symbols(),
            "\n !$&',-.3:;?ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");
  EXPECT_EQ(vocabulary.size(), 65u);
  EXPECT_EQ(vocabulary.id_of('\n'), TokenId{0});
  EXPECT_EQ(vocabulary.id_of('z'), TokenId{64});
  EXPECT_EQ(vocabulary.id_of('#'), std::nullopt);
}

TEST(TinyShakespeare, SplitsAsNanoGptPrepare) {
  const std::string text = read_verified_text(kShakespeare, kTinyShakespeare);
  const TextSplit split = split_at_fraction(text, 0.9);
  EXPECT_EQ(split.train.size(), 1'003'854u);  // "train has 1,003,854 tokens"
  EXPECT_EQ(split.validation.size(), 111'540u);
  EXPECT_EQ(split.train.data(), text.data());
  EXPECT_EQ(split.validation.substr(0, 10), "?\n\nGREMIO:");
}

TEST(ReadVerifiedText, RefusesAChangedByte) {
  std::string text = read_verified_text(kShakespeare, kTinyShakespeare);
  text[500'000] = text[500'000] == 'e' ? 'a' : 'e';
  const ScratchFile file(text);
  const auto error =
      capture_error<DatasetError>([&] { read_verified_text(file.path(), kTinyShakespeare); });
  EXPECT_EQ(error->kind(), DatasetErrorKind::ChecksumMismatch);
  EXPECT_EQ(error->evidence().expected, kTinyShakespeare.sha256);
  EXPECT_EQ(error->evidence().actual, sha256_hex(text));
  EXPECT_EQ(error->evidence().path, file.path().string());
  EXPECT_NE(std::string(error->what()).find("SHA-256"), std::string::npos);
}

TEST(ReadVerifiedText, RefusesATruncatedFileBySize) {
  const ScratchFile file(read_verified_text(kShakespeare, kTinyShakespeare).substr(0, 1000));
  const auto error =
      capture_error<DatasetError>([&] { read_verified_text(file.path(), kTinyShakespeare); });
  EXPECT_EQ(error->kind(), DatasetErrorKind::SizeMismatch);
  EXPECT_EQ(error->evidence().expected, "1115394");
  EXPECT_EQ(error->evidence().actual, "1000");
}

TEST(ReadVerifiedText, RefusesAMissingFile) {
  const auto missing = std::filesystem::path(::testing::TempDir()) / "no-such-dataset.txt";
  const auto error =
      capture_error<DatasetError>([&] { read_verified_text(missing, kTinyShakespeare); });
  EXPECT_EQ(error->kind(), DatasetErrorKind::Unreadable);
  EXPECT_EQ(error->kind_name(), "unreadable");
  EXPECT_EQ(error->evidence().path, missing.string());
}

TEST(ByteVocabulary, EncodesAndDecodesInByteOrder) {
  const ByteVocabulary vocabulary = ByteVocabulary::from_text("banana!");
  EXPECT_EQ(vocabulary.symbols(), "!abn");
  EXPECT_EQ(vocabulary.encode("nab!"), (std::vector<TokenId>{3, 1, 2, 0}));
  const std::vector<TokenId> ids = {2, 1, 3, 1};
  EXPECT_EQ(vocabulary.decode(ids), "bana");
}

TEST(ByteVocabulary, NamesTheFirstUnknownByteAndId) {
  const ByteVocabulary vocabulary = ByteVocabulary::from_text("ab");
  const auto unknown = capture_error<DatasetError>([&] { vocabulary.encode("abxa"); });
  EXPECT_EQ(unknown->kind(), DatasetErrorKind::UnknownCharacter);
  EXPECT_EQ(unknown->evidence().position, 2u);
  EXPECT_EQ(unknown->evidence().value, static_cast<unsigned char>('x'));
  EXPECT_EQ(unknown->evidence().limit, 2u);
  EXPECT_STREQ(unknown->what(), "byte 0x78 'x' at position 2 is not in the 2-byte vocabulary");
  // A byte that does not print is named by its code alone.
  EXPECT_STREQ(capture_error<DatasetError>([&] { vocabulary.encode("a\xc3"); })->what(),
               "byte 0xc3 at position 1 is not in the 2-byte vocabulary");
  const std::vector<TokenId> ids = {1, 0, 2};
  const auto bad_id = capture_error<DatasetError>([&] { vocabulary.decode(ids); });
  EXPECT_EQ(bad_id->kind(), DatasetErrorKind::UnknownTokenId);
  EXPECT_EQ(bad_id->evidence().position, 2u);
  EXPECT_EQ(bad_id->evidence().limit, 2u);
  EXPECT_EQ(capture_error<DatasetError>([] { ByteVocabulary::from_text(""); })->kind(),
            DatasetErrorKind::EmptyText);
}

TEST(SplitAtFraction, RefusesFractionsOutsideTheOpenInterval) {
  for (double fraction : {0.0, 1.0, -0.5, 1.5, std::nan("")}) {
    EXPECT_EQ(capture_error<DatasetError>([&] { split_at_fraction("abcdef", fraction); })->kind(),
              DatasetErrorKind::InvalidFraction)
        << fraction;
  }
  EXPECT_EQ(capture_error<DatasetError>([] { split_at_fraction("abc", 0.2); })->kind(),
            DatasetErrorKind::EmptySplit);                        // int(3 * 0.2) = 0
  const TextSplit split = split_at_fraction("abcdefghij", 0.75);  // int(7.5) = 7
  EXPECT_EQ(split.train, "abcdefg");
  EXPECT_EQ(split.validation, "hij");
}

}  // namespace
}  // namespace llm
