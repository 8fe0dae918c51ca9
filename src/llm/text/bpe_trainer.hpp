// Learning byte-pair merges from the training documents. Taught in chapter 3.
//
// Every document starts as its UTF-8 bytes, byte b as token ID b (0..255).
// Each round counts the adjacent pairs of every document, picks one pair by
// a fixed rule, gives it the next free ID (256 + rank) and replaces it in
// every document. Three rules make the result reproducible:
//   - counting is overlapping: "aaa" holds the pair (97,97) twice;
//   - the winner has the largest count, and among equal counts the smallest
//     left ID, then the smallest right ID (a numeric rule, not "first seen");
//   - replacement scans left to right and consumes each token at most once:
//     "aaa" becomes [256, 97], one replacement although the count was two.
// Pairs never cross a document boundary: documents are separate sequences.
// Chapter 4 freezes the learned rules into a tokenizer (bpe_tokenizer.hpp).
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "llm/error.hpp"
#include "llm/text/corpus.hpp"
#include "llm/token_id.hpp"

namespace llm {

/// The number of one-byte tokens that exist before any merge: 256.
inline constexpr TokenId kByteTokenCount = 256;

/// The largest number of merges whose IDs 256 + rank still fit in a TokenId.
inline constexpr std::size_t kMaxMergeCount = std::size_t{0xFFFFFFFF} - kByteTokenCount + 1;

/// An ordered pair of adjacent token IDs. (97,98) and (98,97) are different
/// pairs. The ordering compares left, then right, numerically: the order of
/// the tie rule.
struct TokenPair {
  TokenId left = 0;   ///< the ID of the first token
  TokenId right = 0;  ///< the ID of the token right after it

  /// Lexicographic order: left first, then right.
  auto operator<=>(const TokenPair&) const = default;
};

// region: bpe-training-errors
/// What the trainer rejected.
enum class BpeTrainingErrorKind {
  TooManyMerges,          ///< the requested rounds could assign IDs beyond the TokenId range
  DocumentCountMismatch,  ///< learn_merges got a different number of ids and sequences
  InitialTokenNotByte,    ///< an initial sequence holds an ID of 256 or more
};

/// The offending values of a BpeTrainingError; a kind leaves the fields it
/// does not use zero.
struct BpeTrainingErrorEvidence {
  std::size_t requested_merges = 0;  ///< the number of merges requested (TooManyMerges)
  std::size_t max_merges = 0;        ///< the largest number that fits, kMaxMergeCount
  std::size_t document_count = 0;    ///< the number of document ids given (DocumentCountMismatch)
  std::size_t sequence_count = 0;    ///< the number of sequences given (DocumentCountMismatch)
  std::size_t sequence_index = 0;    ///< index of the offending sequence (InitialTokenNotByte)
  std::size_t position = 0;          ///< position of the offending ID in that sequence
  TokenId token_id = 0;              ///< the offending ID (InitialTokenNotByte)
};

/// The `bpe-training` area: each kind's stable name and message, in enum order.
struct BpeTrainingErrorTraits {
  using Kind = BpeTrainingErrorKind;                        ///< the area's kinds
  using Evidence = BpeTrainingErrorEvidence;                ///< the offending values
  static constexpr std::string_view area = "bpe-training";  ///< Error::area()
  /// Each kind's stable name and message, in enum order.
  static constexpr std::array<ErrorKindSpec<Kind>, 3> kinds{{
      {Kind::TooManyMerges, "too-many-merges",
       "{requested_merges} merges were requested, but only {max_merges} new token IDs fit after "
       "the 256 byte IDs in 32 bits"},
      {Kind::DocumentCountMismatch, "document-count-mismatch",
       "{document_count} document ids were given for {sequence_count} sequences; each sequence "
       "needs one id"},
      {Kind::InitialTokenNotByte, "initial-token-not-byte",
       "initial sequence {sequence_index} holds token {token_id} at position {position}, but "
       "training starts from byte IDs 0..255"},
  }};
  /// A field as the message prints it.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};

/// An error of the chapter 3 trainer. Thrown before any round runs, so
/// nothing is learned and no input is modified.
class BpeTrainingError : public KindedError<BpeTrainingErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw BpeTrainingError(BpeTrainingErrorKind::..., {.field = value});`
  explicit BpeTrainingError(BpeTrainingErrorKind kind, BpeTrainingErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}

  /// The number of merges requested (TooManyMerges).
  std::size_t requested_merges() const noexcept { return evidence().requested_merges; }
  /// The largest number that fits, kMaxMergeCount (TooManyMerges).
  std::size_t max_merges() const noexcept { return evidence().max_merges; }
  /// The number of document ids given (DocumentCountMismatch).
  std::size_t document_count() const noexcept { return evidence().document_count; }
  /// The number of sequences given (DocumentCountMismatch).
  std::size_t sequence_count() const noexcept { return evidence().sequence_count; }
  /// Index of the offending sequence (InitialTokenNotByte).
  std::size_t sequence_index() const noexcept { return evidence().sequence_index; }
  /// Position of the offending ID in that sequence (InitialTokenNotByte).
  std::size_t position() const noexcept { return evidence().position; }
  /// The offending ID (InitialTokenNotByte).
  TokenId token_id() const noexcept { return evidence().token_id; }
};
// endregion: bpe-training-errors

/// The initial sequence of a byte string: byte b becomes token ID b.
std::vector<TokenId> bytes_to_tokens(std::span<const std::uint8_t> bytes);

/// The initial sequence of a string's bytes (no UTF-8 check: any bytes will do).
std::vector<TokenId> bytes_to_tokens(std::string_view text);

// region: pair-counting-contract
/// How often each adjacent pair occurs, summed over `sequences`. Every
/// position counts, so overlapping occurrences count separately ([97,97,97]
/// gives (97,97) -> 2). Each sequence is counted on its own: no pair joins
/// the last token of one sequence to the first of the next. The map iterates
/// in TokenPair order. Taught in chapter 3.
std::map<TokenPair, std::size_t> count_adjacent_pairs(
    std::span<const std::vector<TokenId>> sequences);

/// The pair with the largest count; among equal counts, the one with the
/// smallest left ID, then the smallest right ID. Nothing for empty counts.
/// Returns the pair and its count.
std::optional<std::pair<TokenPair, std::size_t>> choose_most_frequent_pair(
    const std::map<TokenPair, std::size_t>& counts);
// endregion: pair-counting-contract

/// One sequence after one replacement pass, and how many pairs it replaced.
struct PairReplacement {
  std::vector<TokenId> tokens;   ///< the sequence after the pass
  std::size_t replacements = 0;  ///< how many pairs it replaced
};

/// Replaces `pair` by `replacement` scanning left to right: a match emits
/// `replacement` and skips both tokens, so no token is used twice
/// ([97,97,97] with (97,97) -> [256,97], one replacement). Taught in chapter 3.
PairReplacement replace_pair_left_to_right(std::span<const TokenId> sequence, TokenPair pair,
                                           TokenId replacement);

/// One learned merge, in the order rounds learned it.
struct MergeRule {
  std::size_t rank = 0;               ///< 0 for the first round
  TokenPair pair;                     ///< the two training IDs merged
  TokenId token_id = 0;               ///< the new training ID: 256 + rank
  std::size_t candidate_count = 0;    ///< the pair's overlapping count, which won the round
  std::size_t replacement_count = 0;  ///< non-overlapping replacements made (<= candidate_count)

  /// Field-by-field equality.
  bool operator==(const MergeRule&) const = default;
};

/// The result of training: the rules in rank order, the byte expansion of
/// every training ID, and each training document's final sequence.
/// Taught in chapter 3.
class BpeTraining {
 public:
  /// The maximum number of rounds that was asked for.
  std::size_t requested_merges() const noexcept { return requested_merges_; }
  /// The ids of the documents whose pairs were counted, in corpus order.
  const std::vector<std::string>& training_document_ids() const noexcept { return document_ids_; }
  /// The learned rules, rank 0 first. Fewer than requested when a round found no pair.
  const std::vector<MergeRule>& rules() const noexcept { return rules_; }
  /// Each training document's sequence after the last round, in corpus order.
  const std::vector<std::vector<TokenId>>& final_sequences() const noexcept { return sequences_; }
  /// 256 + the number of learned rules.
  std::size_t vocabulary_size() const noexcept { return vocabulary_.size(); }
  /// The bytes a training ID stands for (one byte for IDs below 256), or
  /// nothing for an ID this training did not create.
  std::optional<std::span<const std::uint8_t>> token_bytes(TokenId token_id) const;
  /// Every training ID's bytes, indexed by ID.
  const std::vector<std::vector<std::uint8_t>>& vocabulary() const noexcept { return vocabulary_; }

  /// Equal when every rule, byte string, id and final sequence is equal.
  bool operator==(const BpeTraining&) const = default;

 private:
  friend BpeTraining learn_merges(std::size_t, std::vector<std::string>,
                                  std::vector<std::vector<TokenId>>);

  std::size_t requested_merges_ = 0;
  std::vector<std::string> document_ids_;
  std::vector<MergeRule> rules_;
  std::vector<std::vector<std::uint8_t>> vocabulary_;
  std::vector<std::vector<TokenId>> sequences_;
};

// region: learn-merges-contract
/// Runs up to `max_merges` rounds on the given initial sequences (token IDs
/// below 256, one sequence per document, `document_ids` naming them in the
/// same order). A round counts pairs, chooses the winner, assigns it
/// 256 + rank, stores its bytes (the left token's bytes, then the right's)
/// and replaces it in every sequence. Training stops early when no sequence
/// has two tokens left. Zero rounds is valid and learns nothing.
/// @throws BpeTrainingError TooManyMerges when max_merges > kMaxMergeCount,
///         DocumentCountMismatch when the two lists differ in length,
///         InitialTokenNotByte naming the first ID of 256 or more.
BpeTraining learn_merges(std::size_t max_merges, std::vector<std::string> document_ids,
                         std::vector<std::vector<TokenId>> sequences);
// endregion: learn-merges-contract

/// A trainer with a fixed upper bound on rounds. Taught in chapter 3.
class BpeTrainer {
 public:
  /// A trainer that learns at most `max_merges` rules (0 is valid).
  explicit BpeTrainer(std::size_t max_merges) : max_merges_(max_merges) {}

  // region: train-on-partitions-contract
  /// Learns from `partitions.training_documents()` and nothing else: the
  /// validation and test documents are not read. It accepts validated
  /// partitions rather than a list of texts, so held-out text cannot slip in.
  /// @throws BpeTrainingError TooManyMerges (see learn_merges).
  BpeTraining train(const CorpusPartitions& partitions) const;
  // endregion: train-on-partitions-contract

  /// The upper bound on rounds given to the constructor.
  std::size_t max_merges() const noexcept { return max_merges_; }

 private:
  std::size_t max_merges_;
};

}  // namespace llm
