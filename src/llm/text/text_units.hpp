// Text units: the UTF-8 bytes of a string, the Unicode scalar values they
// encode, and a small vocabulary that gives each known scalar an integer ID.
// Taught in chapter 1.
//
// A C++ string is a sequence of bytes; nothing in its type says they are
// UTF-8. So every function here that reads scalars validates the bytes first
// and names the first offending byte, instead of guessing. A scalar value is
// what UTF-8 encodes (U+0000..U+10FFFF without the surrogates U+D800..U+DFFF);
// it is not a user-perceived character: one visible glyph can be several.
//
// ScalarVocabulary is chapter 1's teaching device, not the book's tokenizer.
// Every scalar it never saw maps to the one unknown ID 0, which decodes to
// the marker `<UNK>` and loses the original text. Chapters 3 and 4 replace it
// with a byte-level tokenizer (llm/text/bpe_tokenizer.hpp) that loses nothing.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "llm/error.hpp"

namespace llm {

// region: text-unit-errors
/// What a text-unit function rejected.
enum class TextUnitErrorKind {
  InvalidUtf8,        ///< the bytes are not well-formed UTF-8 from the named offset on
  InvalidScalar,      ///< a value is a surrogate or above U+10FFFF, so UTF-8 cannot encode it
  TokenIdOutOfRange,  ///< a vocabulary ID is larger than the largest ID the vocabulary owns
};

/// The offending values of a TextUnitError; a kind leaves the fields it does
/// not use zero.
struct TextUnitErrorEvidence {
  /// Offset of the first byte that does not start a well-formed sequence;
  /// every byte before it is valid UTF-8 (InvalidUtf8).
  std::size_t byte_offset = 0;
  std::uint32_t value = 0;   ///< the value that is not a Unicode scalar (InvalidScalar)
  std::size_t position = 0;  ///< position of the offending ID in the decoded sequence
  std::size_t token_id = 0;  ///< the offending ID (TokenIdOutOfRange)
  std::size_t max_id = 0;    ///< the largest ID the vocabulary owns (TokenIdOutOfRange)
};

/// The `text-units` area: each kind's stable name and message, in enum order.
struct TextUnitErrorTraits {
  using Kind = TextUnitErrorKind;                         ///< the area's kinds
  using Evidence = TextUnitErrorEvidence;                 ///< the offending values
  static constexpr std::string_view area = "text-units";  ///< Error::area()
  /// Each kind's stable name and message, in enum order; `{scalar}` is the
  /// value written as `U+D800`.
  static constexpr std::array<ErrorKindSpec<Kind>, 3> kinds{{
      {Kind::InvalidUtf8, "invalid-utf8", "the bytes are not valid UTF-8 at byte {byte_offset}"},
      {Kind::InvalidScalar, "invalid-scalar",
       "{scalar} is not a Unicode scalar value (a surrogate or above U+10FFFF), so UTF-8 cannot "
       "encode it"},
      {Kind::TokenIdOutOfRange, "token-id-out-of-range",
       "token ID {token_id} at position {position} is outside vocabulary range 0..={max_id}"},
  }};
  /// A field as the message prints it, or `scalar`.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};

/// An error of chapter 1's text views or scalar vocabulary. Thrown while
/// validating, before any result is built; the vocabulary is never modified
/// by a call, so a failed call leaves it exactly as it was.
/// Fields a kind does not use are zero.
class TextUnitError : public KindedError<TextUnitErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw TextUnitError(TextUnitErrorKind::..., {.field = value});`
  explicit TextUnitError(TextUnitErrorKind kind, TextUnitErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}

  /// Offset of the first byte that does not start a well-formed sequence;
  /// every byte before it is valid UTF-8 (InvalidUtf8).
  std::size_t byte_offset() const noexcept { return evidence().byte_offset; }
  /// The value that is not a Unicode scalar (InvalidScalar).
  std::uint32_t value() const noexcept { return evidence().value; }
  /// Position of the offending ID in the decoded sequence (TokenIdOutOfRange).
  std::size_t position() const noexcept { return evidence().position; }
  /// The offending ID (TokenIdOutOfRange).
  std::size_t token_id() const noexcept { return evidence().token_id; }
  /// The largest ID the vocabulary owns (TokenIdOutOfRange).
  std::size_t max_id() const noexcept { return evidence().max_id; }
};
// endregion: text-unit-errors

// region: text-representations
/// The bytes of `text` exactly as stored, one element per byte.
/// `"кот"` gives [208, 186, 208, 190, 209, 130]: six bytes for three letters.
/// Bytes need no decoding, so any string has this view; it throws nothing
/// but std::bad_alloc.
std::vector<std::uint8_t> utf8_bytes(std::string_view text);

/// The Unicode scalar values `text` encodes, in order, one per UTF-8 sequence.
/// `"кот"` gives U+043A, U+043E, U+0442.
/// @throws TextUnitError InvalidUtf8 naming the first byte that does not
///         start a well-formed sequence (see utf8_valid_prefix_length).
std::vector<char32_t> unicode_scalars(std::string_view text);
// endregion: text-representations

/// The length of the longest prefix of `bytes` that is well-formed UTF-8:
/// `bytes.size()` when all of it is, otherwise the offset of the first byte
/// that starts an ill-formed sequence. Ill-formed means a stray continuation
/// byte, a lead byte without its continuations, an overlong form (0xC0 0xAF
/// for `/`), a surrogate (0xED 0xA0 0x80) or a value above U+10FFFF; the
/// rule is that of the Unicode standard, table 3-7, and of Rust's
/// `str::from_utf8`, whose `valid_up_to` this equals.
std::size_t utf8_valid_prefix_length(std::span<const std::uint8_t> bytes);

/// The UTF-8 encoding of one scalar value: one to four bytes.
/// @throws TextUnitError InvalidScalar for a surrogate or a value above U+10FFFF.
std::string scalar_utf8(char32_t scalar);

/// The conventional label of a scalar: `U+` and at least four upper-case
/// hexadecimal digits (`U+0063`, `U+1F980`).
std::string scalar_label(char32_t scalar);

// region: scalar-vocabulary
/// The ID every unknown scalar maps to. Taught in chapter 1.
inline constexpr std::size_t kUnknownScalarId = 0;

/// What decode() writes for the unknown ID: the original text is gone.
inline constexpr std::string_view kUnknownScalarToken = "<UNK>";

/// A fixed map between known Unicode scalars and integer IDs: ID 0 is
/// `<UNK>`, the known scalars sorted by numeric value take IDs 1, 2, ...
/// Sorting makes the IDs depend only on the set of scalars, never on the
/// order they were seen or on a hash. Taught in chapter 1.
class ScalarVocabulary {
 public:
  /// Collects the distinct scalars of `training_text` (it may be empty).
  /// `"cat кот"` gives ' '=1 'a'=2 'c'=3 't'=4 'к'=5 'о'=6 'т'=7.
  /// @throws TextUnitError InvalidUtf8 when `training_text` is not UTF-8.
  static ScalarVocabulary from_training_text(std::string_view training_text);

  /// The known scalars in ID order: the scalar with ID i is element i - 1.
  const std::vector<char32_t>& known_scalars() const noexcept { return known_scalars_; }

  /// The largest ID in use: the number of known scalars (0 for an empty vocabulary).
  std::size_t max_id() const noexcept { return known_scalars_.size(); }

  /// The ID of `scalar`, or kUnknownScalarId when it was never seen.
  std::size_t id_for(char32_t scalar) const;

  /// The scalar of `token_id`, or no scalar for kUnknownScalarId.
  /// @throws TextUnitError TokenIdOutOfRange when `token_id > max_id()`
  ///         (reported at position 0).
  std::optional<char32_t> scalar_for(std::size_t token_id) const;

  /// One ID per scalar of `text`: the sequence has as many IDs as `text` has
  /// scalars, however many bytes each scalar takes.
  /// @throws TextUnitError InvalidUtf8 when `text` is not UTF-8.
  std::vector<std::size_t> encode(std::string_view text) const;

  /// The text of `token_ids`: each known ID's scalar, and `<UNK>` for ID 0.
  /// Encoding then decoding returns the input exactly when every scalar was known.
  /// @throws TextUnitError TokenIdOutOfRange naming the first ID above max_id().
  std::string decode(std::span<const std::size_t> token_ids) const;

 private:
  explicit ScalarVocabulary(std::vector<char32_t> known_scalars);

  std::vector<char32_t> known_scalars_;  // sorted, distinct
};
// endregion: scalar-vocabulary

}  // namespace llm
