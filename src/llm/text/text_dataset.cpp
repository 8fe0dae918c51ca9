// Reading, checking, encoding and splitting a plain-text dataset (chapter 40).
#include "llm/text/text_dataset.hpp"

#include <nettle/sha2.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <system_error>
#include <utility>

namespace llm {

std::string DatasetErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "path") return evidence.path;
  if (field == "reason") return evidence.reason;
  if (field == "expected") return evidence.expected;
  if (field == "actual") return evidence.actual;
  if (field == "position") return std::to_string(evidence.position);
  if (field == "value") return std::to_string(evidence.value);
  if (field == "byte") {  // hexadecimal, and the character when it prints: 0x7e '~'
    const auto byte = static_cast<unsigned char>(evidence.value);
    char code[5];
    std::snprintf(code, sizeof code, "0x%02x", static_cast<unsigned>(byte));
    const bool prints = byte >= 0x20 && byte < 0x7f;
    return prints ? std::string(code) + " '" + static_cast<char>(byte) + "'" : std::string(code);
  }
  if (field == "limit") return std::to_string(evidence.limit);
  if (field == "fraction") {
    std::ostringstream text;
    text << evidence.fraction;
    return text.str();
  }
  error_detail::unknown_field(area, field);
}

// region: sha256
std::string sha256_hex(std::string_view bytes) {
  sha256_ctx context;
  sha256_init(&context);
  sha256_update(&context, bytes.size(), reinterpret_cast<const std::uint8_t*>(bytes.data()));
  std::array<std::uint8_t, SHA256_DIGEST_SIZE> digest{};
  sha256_digest(&context, digest.size(), digest.data());
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text;
  text.reserve(2 * digest.size());
  for (std::uint8_t byte : digest) {
    text += kHex[byte >> 4];
    text += kHex[byte & 0x0f];
  }
  return text;
}
// endregion: sha256

// region: read-verified-text
std::string read_verified_text(const std::filesystem::path& path, const DatasetRecord& record) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw DatasetError(DatasetErrorKind::Unreadable,
                       {.path = path.string(), .reason = std::strerror(errno)});
  }
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) {
    throw DatasetError(DatasetErrorKind::Unreadable,
                       {.path = path.string(), .reason = "read error"});
  }
  // The size first: a truncated or extended file is named as such, without
  // hashing a megabyte to say the digest differs.
  if (text.size() != record.bytes) {
    throw DatasetError(DatasetErrorKind::SizeMismatch, {.path = path.string(),
                                                        .expected = std::to_string(record.bytes),
                                                        .actual = std::to_string(text.size())});
  }
  const std::string digest = sha256_hex(text);
  if (digest != record.sha256) {
    throw DatasetError(
        DatasetErrorKind::ChecksumMismatch,
        {.path = path.string(), .expected = std::string(record.sha256), .actual = digest});
  }
  return text;
}
// endregion: read-verified-text

// region: byte-vocabulary-build
ByteVocabulary ByteVocabulary::from_text(std::string_view text) {
  if (text.empty()) throw DatasetError(DatasetErrorKind::EmptyText, {});
  std::array<bool, 256> seen{};
  for (char c : text) seen[static_cast<unsigned char>(c)] = true;
  std::string symbols;
  for (std::size_t byte = 0; byte < seen.size(); ++byte) {
    if (seen[byte]) symbols += static_cast<char>(byte);  // increasing byte order
  }
  return ByteVocabulary(std::move(symbols));
}

ByteVocabulary::ByteVocabulary(std::string symbols) : symbols_(std::move(symbols)) {
  ids_.fill(-1);
  for (std::size_t id = 0; id < symbols_.size(); ++id) {
    ids_[static_cast<unsigned char>(symbols_[id])] = static_cast<std::int16_t>(id);
  }
}
// endregion: byte-vocabulary-build

std::optional<TokenId> ByteVocabulary::id_of(unsigned char byte) const noexcept {
  const std::int16_t id = ids_[byte];
  if (id < 0) return std::nullopt;
  return static_cast<TokenId>(id);
}

// region: byte-vocabulary-codec
std::vector<TokenId> ByteVocabulary::encode(std::string_view text) const {
  std::vector<TokenId> ids(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const std::int16_t id = ids_[byte];
    if (id < 0) {
      throw DatasetError(DatasetErrorKind::UnknownCharacter,
                         {.position = i, .value = byte, .limit = symbols_.size()});
    }
    ids[i] = static_cast<TokenId>(id);
  }
  return ids;
}

std::string ByteVocabulary::decode(std::span<const TokenId> ids) const {
  std::string text(ids.size(), '\0');
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] >= symbols_.size()) {
      throw DatasetError(DatasetErrorKind::UnknownTokenId,
                         {.position = i, .value = ids[i], .limit = symbols_.size()});
    }
    text[i] = symbols_[ids[i]];
  }
  return text;
}
// endregion: byte-vocabulary-codec

// region: contiguous-split-cut
TextSplit split_at_fraction(std::string_view text, double train_fraction) {
  if (!std::isfinite(train_fraction) || train_fraction <= 0.0 || train_fraction >= 1.0) {
    throw DatasetError(DatasetErrorKind::InvalidFraction, {.fraction = train_fraction});
  }
  // int(n * f) in Python: the product rounded to a double, then truncated.
  const auto cut = static_cast<std::size_t>(static_cast<double>(text.size()) * train_fraction);
  if (cut == 0 || cut == text.size()) {
    throw DatasetError(DatasetErrorKind::EmptySplit,
                       {.limit = text.size(), .fraction = train_fraction});
  }
  return {.train = text.substr(0, cut), .validation = text.substr(cut)};
}
// endregion: contiguous-split-cut

}  // namespace llm
