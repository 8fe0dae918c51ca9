// UTF-8 bytes, Unicode scalar values and the chapter 1 scalar vocabulary.
#include "llm/text/text_units.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace llm {

std::string TextUnitErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "byte_offset") return std::to_string(evidence.byte_offset);
  if (field == "scalar") return scalar_label(evidence.value);
  if (field == "token_id") return std::to_string(evidence.token_id);
  if (field == "position") return std::to_string(evidence.position);
  if (field == "max_id") return std::to_string(evidence.max_id);
  error_detail::unknown_field(area, field);
}

std::vector<std::uint8_t> utf8_bytes(std::string_view text) {
  return {text.begin(), text.end()};  // char -> uint8_t keeps each byte's bits
}

namespace {

// One decoded sequence: its scalar and how many bytes it took.
struct DecodedScalar {
  char32_t scalar;
  std::size_t length;
};

bool is_continuation(std::uint8_t byte) {
  return (byte & 0xC0) == 0x80;
}

// region: utf8-decode-one
// Decodes the sequence starting at bytes[offset], or nothing when it is
// ill-formed. The allowed second byte depends on the lead byte (Unicode
// table 3-7): that one range check rejects overlong forms (E0 80..9F,
// F0 80..8F), surrogates (ED A0..BF) and values above U+10FFFF (F4 90..).
std::optional<DecodedScalar> decode_one(std::span<const std::uint8_t> bytes, std::size_t offset) {
  const std::uint8_t lead = bytes[offset];
  if (lead < 0x80) return DecodedScalar{lead, 1};
  std::size_t length = 0;
  std::uint8_t second_low = 0x80, second_high = 0xBF;
  char32_t scalar = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2, scalar = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3, scalar = lead & 0x0F;
    if (lead == 0xE0) second_low = 0xA0;   // below: overlong
    if (lead == 0xED) second_high = 0x9F;  // above: surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4, scalar = lead & 0x07;
    if (lead == 0xF0) second_low = 0x90;   // below: overlong
    if (lead == 0xF4) second_high = 0x8F;  // above: beyond U+10FFFF
  } else {
    return std::nullopt;  // a continuation byte, C0, C1 or F5..FF cannot start a sequence
  }
  if (bytes.size() - offset < length) return std::nullopt;
  const std::uint8_t second = bytes[offset + 1];
  if (second < second_low || second > second_high) return std::nullopt;
  for (std::size_t i = 1; i < length; ++i) {
    if (!is_continuation(bytes[offset + i])) return std::nullopt;
    scalar = (scalar << 6) | (bytes[offset + i] & 0x3F);
  }
  return DecodedScalar{scalar, length};
}
// endregion: utf8-decode-one

std::span<const std::uint8_t> as_bytes(std::string_view text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

}  // namespace

std::size_t utf8_valid_prefix_length(std::span<const std::uint8_t> bytes) {
  std::size_t offset = 0;
  while (offset < bytes.size()) {
    const std::optional<DecodedScalar> decoded = decode_one(bytes, offset);
    if (!decoded) return offset;
    offset += decoded->length;
  }
  return offset;
}

std::vector<char32_t> unicode_scalars(std::string_view text) {
  const std::span<const std::uint8_t> bytes = as_bytes(text);
  std::vector<char32_t> scalars;
  std::size_t offset = 0;
  while (offset < bytes.size()) {
    const std::optional<DecodedScalar> decoded = decode_one(bytes, offset);
    if (!decoded) throw TextUnitError(TextUnitErrorKind::InvalidUtf8, {.byte_offset = offset});
    scalars.push_back(decoded->scalar);
    offset += decoded->length;
  }
  return scalars;
}

std::string scalar_utf8(char32_t scalar) {
  const auto value = static_cast<std::uint32_t>(scalar);
  if ((value >= 0xD800 && value <= 0xDFFF) || value > 0x10FFFF) {
    throw TextUnitError(TextUnitErrorKind::InvalidScalar, {.value = value});
  }
  std::string out;
  if (value < 0x80) {
    out += static_cast<char>(value);
  } else if (value < 0x800) {
    out += static_cast<char>(0xC0 | (value >> 6));
    out += static_cast<char>(0x80 | (value & 0x3F));
  } else if (value < 0x10000) {
    out += static_cast<char>(0xE0 | (value >> 12));
    out += static_cast<char>(0x80 | ((value >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (value & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (value >> 18));
    out += static_cast<char>(0x80 | ((value >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((value >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (value & 0x3F));
  }
  return out;
}

std::string scalar_label(char32_t scalar) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "U+%04X", static_cast<unsigned>(scalar));
  return buffer;
}

// region: scalar-vocabulary-build
ScalarVocabulary::ScalarVocabulary(std::vector<char32_t> known_scalars)
    : known_scalars_(std::move(known_scalars)) {}

ScalarVocabulary ScalarVocabulary::from_training_text(std::string_view training_text) {
  std::vector<char32_t> scalars = unicode_scalars(training_text);
  std::sort(scalars.begin(), scalars.end());  // numeric order of the scalar values
  scalars.erase(std::unique(scalars.begin(), scalars.end()), scalars.end());
  return ScalarVocabulary(std::move(scalars));
}
// endregion: scalar-vocabulary-build

// region: scalar-vocabulary-lookup
std::size_t ScalarVocabulary::id_for(char32_t scalar) const {
  const auto found = std::lower_bound(known_scalars_.begin(), known_scalars_.end(), scalar);
  if (found == known_scalars_.end() || *found != scalar) return kUnknownScalarId;
  return static_cast<std::size_t>(found - known_scalars_.begin()) + 1;  // IDs start after <UNK>
}

std::vector<std::size_t> ScalarVocabulary::encode(std::string_view text) const {
  std::vector<std::size_t> token_ids;
  for (char32_t scalar : unicode_scalars(text)) token_ids.push_back(id_for(scalar));
  return token_ids;
}
// endregion: scalar-vocabulary-lookup

std::optional<char32_t> ScalarVocabulary::scalar_for(std::size_t token_id) const {
  if (token_id > max_id())
    throw TextUnitError(TextUnitErrorKind::TokenIdOutOfRange,
                        {.token_id = token_id, .max_id = max_id()});
  if (token_id == kUnknownScalarId) return std::nullopt;
  return known_scalars_[token_id - 1];
}

// region: scalar-vocabulary-decode
std::string ScalarVocabulary::decode(std::span<const std::size_t> token_ids) const {
  for (std::size_t position = 0; position < token_ids.size(); ++position) {
    if (token_ids[position] > max_id()) {
      throw TextUnitError(
          TextUnitErrorKind::TokenIdOutOfRange,
          {.position = position, .token_id = token_ids[position], .max_id = max_id()});
    }
  }
  std::string text;
  for (std::size_t token_id : token_ids) {
    text += token_id == kUnknownScalarId ? std::string(kUnknownScalarToken)
                                         : scalar_utf8(known_scalars_[token_id - 1]);
  }
  return text;
}
// endregion: scalar-vocabulary-decode

}  // namespace llm
