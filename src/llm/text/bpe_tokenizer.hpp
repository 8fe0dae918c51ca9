// The frozen byte-level BPE tokenizer: token ID layout, encoding by rank,
// exact decoding, and BOS/EOS around each document. Taught in chapter 4.
//
// Layout version 1 is one contiguous range of token IDs:
//   0            BOS, begin of a document (a control ID: no bytes)
//   1            EOS, end of a document   (a control ID: no bytes)
//   2..257       the 256 byte tokens: byte b is ID b + 2
//   258..        the learned merges: rank r is ID 258 + r
// Every chapter 3 training ID t becomes content ID t + 2.
//
// Encoding starts from one byte token per input byte and applies the frozen
// merges once each, rank 0 first, with chapter 3's left-to-right
// replacement. It never counts pairs again, never normalizes, and accepts
// any bytes, so a text it never saw and bytes that are not UTF-8 still
// encode. Decoding concatenates each token's stored bytes, so
//     decode_content(encode_content(x)) == bytes(x)   for every byte string x.
// The reverse does not hold: [34, 259] and the canonical [258, 178] can
// decode to the same bytes, and only the second is what encoding produces.
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
#include "llm/text/bpe_trainer.hpp"

namespace llm {

// region: token-id-layout
/// The tokenizer layout this library writes and reads.
inline constexpr std::uint32_t kTokenizerLayoutVersion = 1;
/// Begin of a document: the first ID of every encoded document.
inline constexpr TokenId kBosTokenId = 0;
/// End of a document: the last ID of every encoded document.
inline constexpr TokenId kEosTokenId = 1;
/// What is added to a chapter 3 training ID to make a content ID.
inline constexpr TokenId kContentIdOffset = 2;
/// The byte token of byte 0x00.
inline constexpr TokenId kFirstByteTokenId = kContentIdOffset;
/// The byte token of byte 0xFF.
inline constexpr TokenId kLastByteTokenId = kContentIdOffset + kByteTokenCount - 1;
/// The token of merge rank 0.
inline constexpr TokenId kFirstMergeTokenId = kLastByteTokenId + 1;
// endregion: token-id-layout

// region: tokenizer-errors
/// What the tokenizer rejected.
enum class TokenizerErrorKind {
  LayoutOverflow,         ///< so many merges that an ID would not fit in 32 bits
  UnknownMergeOperand,    ///< a merge uses a training ID no earlier rank defined
  DuplicateMergePair,     ///< a merge repeats the pair of an earlier rank
  ControlTokenInContent,  ///< BOS or EOS inside a content sequence
  UnknownToken,           ///< an ID at or above the vocabulary size
  DocumentTooShort,       ///< a document of fewer than two IDs cannot hold BOS and EOS
  ExpectedBos,            ///< a document does not start with BOS
  ExpectedEos,            ///< a document does not end with EOS
  InteriorControlToken,   ///< BOS or EOS between a document's first and last position
  InvalidUtf8,            ///< the decoded bytes are not UTF-8 (asked for text only)
};

/// The offending values of a TokenizerError; a kind leaves the fields it does
/// not use zero.
struct TokenizerErrorEvidence {
  std::size_t merge_count = 0;  ///< number of merges of the layout (LayoutOverflow)
  std::size_t rank = 0;  ///< rank of the offending merge (UnknownMergeOperand, DuplicateMergePair)
  /// The offending ID: an undefined operand, a control or unknown token, or
  /// the ID found instead of BOS or EOS.
  TokenId token_id = 0;
  TokenPair pair{};  ///< the repeated pair (DuplicateMergePair)
  /// Position of the offending ID in the decoded sequence: the content
  /// position, or the document position counting BOS as 0.
  std::size_t position = 0;
  std::size_t length = 0;       ///< length of the too-short document (DocumentTooShort)
  std::size_t valid_up_to = 0;  ///< offset of the first byte that is not valid UTF-8
};

/// The `tokenizer` area: each kind's stable name and message, in enum order.
struct TokenizerErrorTraits {
  using Kind = TokenizerErrorKind;                       ///< the area's kinds
  using Evidence = TokenizerErrorEvidence;               ///< the offending values
  static constexpr std::string_view area = "tokenizer";  ///< Error::area()
  /// Each kind's stable name and message, in enum order; `{layout_version}`,
  /// `{bos}` and `{eos}` are kTokenizerLayoutVersion, kBosTokenId and kEosTokenId.
  static constexpr std::array<ErrorKindSpec<Kind>, 10> kinds{{
      {Kind::LayoutOverflow, "layout-overflow",
       "{merge_count} merge ranks do not fit tokenizer layout version {layout_version}: the last "
       "token ID would exceed 32 bits"},
      {Kind::UnknownMergeOperand, "unknown-merge-operand",
       "merge rank {rank} uses training token {token_id}, which no earlier rank defines"},
      {Kind::DuplicateMergePair, "duplicate-merge-pair",
       "merge rank {rank} repeats training pair ({pair_left},{pair_right})"},
      {Kind::ControlTokenInContent, "control-token-in-content",
       "control token {token_id} is not allowed in content at position {position}"},
      {Kind::UnknownToken, "unknown-token",
       "token {token_id} at position {position} is outside this tokenizer's vocabulary"},
      {Kind::DocumentTooShort, "document-too-short",
       "a document of {length} token IDs cannot hold both BOS and EOS"},
      {Kind::ExpectedBos, "expected-bos",
       "expected BOS token {bos}, found {token_id} at position 0"},
      {Kind::ExpectedEos, "expected-eos",
       "expected EOS token {eos}, found {token_id} at the final position {position}"},
      {Kind::InteriorControlToken, "interior-control-token",
       "document control token {token_id} is not allowed at position {position}"},
      {Kind::InvalidUtf8, "invalid-utf8",
       "decoded bytes are not valid UTF-8 at byte {valid_up_to}"},
  }};
  /// A field as the message prints it, or one of the layout constants.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};

/// An error of the chapter 4 tokenizer. Thrown while validating, before any
/// result is built; a tokenizer is immutable, so a failed call changes nothing.
/// Fields a kind does not use are zero.
class TokenizerError : public KindedError<TokenizerErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw TokenizerError(TokenizerErrorKind::..., {.field = value});`
  explicit TokenizerError(TokenizerErrorKind kind, TokenizerErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}

  /// Number of merges of the layout (LayoutOverflow).
  std::size_t merge_count() const noexcept { return evidence().merge_count; }
  /// Rank of the offending merge (UnknownMergeOperand, DuplicateMergePair).
  std::size_t rank() const noexcept { return evidence().rank; }
  /// The offending ID: an undefined operand, a control or unknown token, or
  /// the ID found instead of BOS or EOS.
  TokenId token_id() const noexcept { return evidence().token_id; }
  /// The repeated pair (DuplicateMergePair).
  TokenPair pair() const noexcept { return evidence().pair; }
  /// Position of the offending ID in the decoded sequence: the content
  /// position, or the document position counting BOS as 0.
  std::size_t position() const noexcept { return evidence().position; }
  /// Length of the too-short document (DocumentTooShort).
  std::size_t length() const noexcept { return evidence().length; }
  /// Offset of the first byte that is not valid UTF-8 (InvalidUtf8).
  std::size_t valid_up_to() const noexcept { return evidence().valid_up_to; }
};
// endregion: tokenizer-errors

/// The checked ID ranges of layout version 1 for a given number of merges.
class TokenizerLayout {
 public:
  /// @throws TokenizerError LayoutOverflow when the last merge ID,
  ///         257 + merge_count, would not fit in 32 bits.
  static TokenizerLayout create(std::size_t merge_count);

  /// The layout version, kTokenizerLayoutVersion (1).
  std::uint32_t version() const noexcept { return kTokenizerLayoutVersion; }
  /// The number of merge tokens, R.
  std::size_t merge_count() const noexcept { return merge_count_; }
  /// 258 + merge_count: every ID is below it.
  std::size_t vocabulary_size() const noexcept { return kFirstMergeTokenId + merge_count_; }
  /// The token of one byte: byte + 2.
  TokenId byte_token_id(std::uint8_t byte) const noexcept { return kFirstByteTokenId + byte; }
  /// The token of merge `rank`: 258 + rank, or nothing when rank >= merge_count().
  std::optional<TokenId> merge_token_id(std::size_t rank) const;

  /// Two layouts are equal when they have the same number of merges.
  bool operator==(const TokenizerLayout&) const = default;

 private:
  explicit TokenizerLayout(std::size_t merge_count) : merge_count_(merge_count) {}
  std::size_t merge_count_;
};

/// One frozen merge in both ID spaces: chapter 3's training IDs and the
/// tokenizer's content IDs (each training ID + 2).
struct BpeMergeRule {
  std::size_t rank = 0;           ///< 0 for the first rule; rules apply in rank order
  TokenPair training_pair;        ///< the two chapter 3 training IDs merged
  TokenId training_token_id = 0;  ///< 256 + rank
  TokenPair content_pair;         ///< training_pair shifted by kContentIdOffset
  TokenId content_token_id = 0;   ///< 258 + rank

  /// Field-by-field equality.
  bool operator==(const BpeMergeRule&) const = default;
};

/// One rank that changed a sequence while it was encoded.
struct BpeMergeApplication {
  std::size_t rank = 0;          ///< the rule's rank
  std::size_t replacements = 0;  ///< non-overlapping replacements it made (at least one)
  std::vector<TokenId> before;   ///< the content IDs before this rank
  std::vector<TokenId> after;    ///< the content IDs after it
};

/// The evidence of one traced encoding: the byte tokens it started from,
/// each rank that changed them, and the final content IDs.
struct BpeEncodingTrace {
  std::vector<TokenId> initial_tokens;            ///< one byte token per input byte
  std::vector<BpeMergeApplication> applications;  ///< each rank that changed them, in rank order
  std::vector<TokenId> content_tokens;            ///< the result, as encode_content returns it
};

/// The frozen tokenizer: merge rules in rank order and the bytes of every
/// content ID. Immutable once made. Taught in chapter 4.
class BpeTokenizer {
 public:
  /// Freezes a chapter 3 training result: its rules shifted into content
  /// IDs, and a copy of its byte expansions (the training may be discarded).
  /// @throws TokenizerError LayoutOverflow.
  static BpeTokenizer from_training(const BpeTraining& training);

  /// Builds a tokenizer from merge pairs in training IDs, rank by rank, as a
  /// checkpoint would store them. Rank r's operands must be IDs defined
  /// before it (a byte, or 256 + an earlier rank), and no pair may repeat.
  /// @throws TokenizerError LayoutOverflow, then UnknownMergeOperand or
  ///         DuplicateMergePair naming the first offending rank.
  static BpeTokenizer from_merge_pairs(std::span<const TokenPair> training_pairs);

  /// The ID ranges of this tokenizer.
  const TokenizerLayout& layout() const noexcept { return layout_; }
  /// 258 + the number of merges: the number of rows a model's embedding needs.
  std::size_t vocabulary_size() const noexcept { return layout_.vocabulary_size(); }
  /// The frozen rules in rank order, in both ID spaces.
  const std::vector<BpeMergeRule>& merge_rules() const noexcept { return rules_; }

  /// The bytes a content ID stands for, or nothing for BOS, EOS and IDs
  /// outside the vocabulary.
  std::optional<std::span<const std::uint8_t>> token_bytes(TokenId token_id) const;

  // region: encoding-contract
  /// The canonical content IDs of `bytes` (no BOS or EOS): one byte token
  /// per byte, then every rank in order. Any bytes are accepted, UTF-8 or
  /// not; the result decodes back to exactly `bytes`. Never throws except
  /// std::bad_alloc.
  std::vector<TokenId> encode_content(std::span<const std::uint8_t> bytes) const;
  /// encode_content of a string's bytes (no UTF-8 check).
  std::vector<TokenId> encode_content(std::string_view bytes) const;
  /// encode_content, keeping the sequence before and after every rank that
  /// changed it. Returns the same content IDs as encode_content.
  BpeEncodingTrace encode_content_with_trace(std::span<const std::uint8_t> bytes) const;

  /// [BOS, encode_content(bytes)..., EOS]: the controls are added after the
  /// merges, so no merge can ever touch them. An empty input gives [0, 1].
  std::vector<TokenId> encode_document(std::span<const std::uint8_t> bytes) const;
  /// encode_document of a string's bytes (no UTF-8 check).
  std::vector<TokenId> encode_document(std::string_view bytes) const;
  // endregion: encoding-contract

  // region: decoding-contract
  /// The bytes of `content`, each ID's stored bytes in order.
  /// @throws TokenizerError ControlTokenInContent for a BOS or EOS, then
  ///         UnknownToken for an ID >= vocabulary_size(), naming its position.
  std::vector<std::uint8_t> decode_content(std::span<const TokenId> content) const;

  /// The content bytes of a document: it must be [BOS, content..., EOS].
  /// @throws TokenizerError DocumentTooShort, ExpectedBos, ExpectedEos,
  ///         InteriorControlToken or UnknownToken (positions count BOS as 0).
  std::vector<std::uint8_t> decode_document(std::span<const TokenId> document) const;

  /// decode_content, then a strict UTF-8 check: the text, never a
  /// replacement character. Exact bytes come first; text is a separate view.
  /// @throws TokenizerError as decode_content, or InvalidUtf8 naming the
  ///         first byte that is not valid UTF-8.
  std::string decode_content_utf8(std::span<const TokenId> content) const;

  /// decode_document, then the same strict UTF-8 check.
  /// @throws TokenizerError as decode_document, or InvalidUtf8.
  std::string decode_document_utf8(std::span<const TokenId> document) const;
  // endregion: decoding-contract

 private:
  BpeTokenizer(TokenizerLayout layout, std::vector<BpeMergeRule> rules,
               std::vector<std::vector<std::uint8_t>> training_vocabulary);

  template <class Observe>
  std::vector<TokenId> apply_ranked_merges(std::vector<TokenId> content, Observe&& observe) const;
  std::vector<std::uint8_t> concatenate_bytes(std::span<const TokenId> tokens,
                                              std::size_t position_offset) const;

  TokenizerLayout layout_;
  std::vector<BpeMergeRule> rules_;
  std::vector<std::vector<std::uint8_t>> training_vocabulary_;  // indexed by training ID
};

}  // namespace llm
