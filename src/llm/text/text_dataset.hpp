// A plain-text dataset for chapter 40: one text file read whole and checked
// against its recorded size and SHA-256, a vocabulary of its distinct bytes,
// and a contiguous split into training and validation text.
//
// The book's own corpus (chapter 2) is a set of documents split by document;
// Tiny Shakespeare (data/tinyshakespeare/) is one long text, split the way
// nanoGPT's data/shakespeare_char/prepare.py splits it: the first
// int(n * fraction) bytes train, the rest validate. Every symbol of the
// vocabulary is one byte, so on an ASCII text (Tiny Shakespeare is) the
// byte-level vocabulary is the character-level one.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "llm/error.hpp"
#include "llm/token_id.hpp"

namespace llm {

// region: dataset-error-kinds
/// What reading, encoding or splitting a plain-text dataset rejected.
enum class DatasetErrorKind {
  Unreadable,        ///< the file cannot be opened or read
  SizeMismatch,      ///< the file's size is not the recorded one
  ChecksumMismatch,  ///< the file's SHA-256 is not the recorded one
  EmptyText,         ///< a vocabulary was asked of an empty text
  UnknownCharacter,  ///< a byte to encode is not in the vocabulary
  UnknownTokenId,    ///< an ID to decode is not below the vocabulary size
  InvalidFraction,   ///< a split fraction is not strictly between 0 and 1
  EmptySplit,        ///< a split leaves one side without a byte
};
// endregion: dataset-error-kinds

/// The offending values of a DatasetError; a kind leaves the fields it does
/// not use empty or zero.
struct DatasetErrorEvidence {
  std::string path{};        ///< the file (Unreadable, SizeMismatch, ChecksumMismatch)
  std::string reason{};      ///< Unreadable: what the system said
  std::string expected{};    ///< the recorded size or digest
  std::string actual{};      ///< the size or digest found
  std::size_t position = 0;  ///< UnknownCharacter, UnknownTokenId: where in the input
  std::uint64_t value = 0;   ///< UnknownCharacter: the byte; UnknownTokenId: the ID
  std::size_t limit = 0;     ///< UnknownCharacter, UnknownTokenId: the vocabulary size;
                             ///< EmptySplit: the text's size
  double fraction = 0.0;     ///< InvalidFraction, EmptySplit: the fraction asked for
};

// region: dataset-error-table
/// The `dataset` area: each kind's stable name and message, in enum order.
struct DatasetErrorTraits {
  using Kind = DatasetErrorKind;                       ///< the area's kinds
  using Evidence = DatasetErrorEvidence;               ///< the offending values
  static constexpr std::string_view area = "dataset";  ///< Error::area()
  /// Each kind's stable name and message, in enum order.
  static constexpr std::array<ErrorKindSpec<Kind>, 8> kinds{{
      {Kind::Unreadable, "unreadable", "cannot read the dataset file {path}: {reason}"},
      {Kind::SizeMismatch, "size-mismatch",
       "the dataset file {path} has {actual} bytes, but its record says {expected}"},
      {Kind::ChecksumMismatch, "checksum-mismatch",
       "the dataset file {path} has SHA-256 {actual}, but its record says {expected}"},
      {Kind::EmptyText, "empty-text", "a vocabulary needs at least one byte of text"},
      {Kind::UnknownCharacter, "unknown-character",
       "byte {byte} at position {position} is not in the {limit}-byte vocabulary"},
      {Kind::UnknownTokenId, "unknown-token-id",
       "token ID {value} at position {position} is not below the vocabulary size {limit}"},
      {Kind::InvalidFraction, "invalid-fraction",
       "a split fraction must lie strictly between 0 and 1, got {fraction}"},
      {Kind::EmptySplit, "empty-split",
       "splitting {limit} bytes at fraction {fraction} leaves one side empty"},
  }};
  /// A field of the evidence as the message prints it; `byte` is `value`
  /// in hexadecimal, followed by the character when it prints (`0x7e '~'`).
  static std::string field_text(const Evidence& evidence, std::string_view field);
};
// endregion: dataset-error-table

/// An error of a plain-text dataset (area `dataset`). Nothing is returned
/// or changed when one is thrown.
class DatasetError : public KindedError<DatasetErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw DatasetError(DatasetErrorKind::..., {.field = value});`
  explicit DatasetError(DatasetErrorKind kind, DatasetErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}
};

// region: dataset-file
/// What a dataset file must be: its size in bytes and its SHA-256 as 64
/// lowercase hexadecimal digits (what `sha256sum` prints).
struct DatasetRecord {
  std::uint64_t bytes = 0;    ///< the file's size
  std::string_view sha256{};  ///< its SHA-256, 64 lowercase hexadecimal digits
};

/// Tiny Shakespeare as data/tinyshakespeare/README.md records it (chapter 40).
inline constexpr DatasetRecord kTinyShakespeare{
    1'115'394, "86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed"};

/// The SHA-256 of `bytes` (FIPS 180-4, through GNU Nettle) as 64 lowercase
/// hexadecimal digits.
std::string sha256_hex(std::string_view bytes);

/// The whole file at `path`, after checking its size and then its SHA-256
/// against `record`.
/// @throws DatasetError Unreadable, SizeMismatch, ChecksumMismatch.
std::string read_verified_text(const std::filesystem::path& path, const DatasetRecord& record);
// endregion: dataset-file

// region: byte-vocabulary
/// The distinct bytes of a text, in increasing byte order; the ID of a byte
/// is its rank. This is nanoGPT's `sorted(list(set(data)))` for an ASCII
/// text: Tiny Shakespeare's 65 symbols are newline (ID 0), space (ID 1), ...,
/// `z` (ID 64).
class ByteVocabulary {
 public:
  /// The vocabulary of every byte that occurs in `text`.
  /// @throws DatasetError EmptyText.
  static ByteVocabulary from_text(std::string_view text);

  /// The number of symbols V (1 to 256).
  std::size_t size() const noexcept { return symbols_.size(); }
  /// The symbols, ID 0 first.
  std::string_view symbols() const noexcept { return symbols_; }
  /// The ID of `byte`, or nothing when the vocabulary lacks it.
  std::optional<TokenId> id_of(unsigned char byte) const noexcept;

  /// One ID per byte of `text`.
  /// @throws DatasetError UnknownCharacter (the first byte not in the
  ///         vocabulary, with its position and the vocabulary's size).
  std::vector<TokenId> encode(std::string_view text) const;
  /// The bytes of `ids`.
  /// @throws DatasetError UnknownTokenId (the first ID >= size(), with its position).
  std::string decode(std::span<const TokenId> ids) const;

  /// Field-by-field equality.
  bool operator==(const ByteVocabulary&) const = default;

 private:
  explicit ByteVocabulary(std::string symbols);

  std::string symbols_;                  // ID -> byte
  std::array<std::int16_t, 256> ids_{};  // byte -> ID, -1 when absent
};
// endregion: byte-vocabulary

// region: contiguous-split
/// A text cut in two at one byte offset: training text first.
struct TextSplit {
  std::string_view train;       ///< bytes [0, cut)
  std::string_view validation;  ///< bytes [cut, n)
};

/// Cuts `text` after its first floor(n * train_fraction) bytes, computed in
/// double as Python's `int(n * 0.9)` computes it: 1,115,394 bytes at 0.9 give
/// 1,003,854 training and 111,540 validation bytes. The views point into `text`.
/// @throws DatasetError InvalidFraction (not finite or not in (0, 1)),
///         EmptySplit (one side would have no byte).
TextSplit split_at_fraction(std::string_view text, double train_fraction);
// endregion: contiguous-split

}  // namespace llm
