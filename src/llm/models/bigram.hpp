// The count-based bigram language model: a table of next-token counts fitted
// from separate training documents, read as a maximum-likelihood or an
// add-alpha smoothed distribution. Taught in chapter 6; chapter 7 scores it,
// reads the same table without its context (a unigram model), and samples
// text from it.
//
// Shape legend: V is the vocabulary size. The count table is [V, V], row i
// (the current token) by column j (the next token), stored row-major. A
// training document is one sequence of token IDs already wrapped with its
// boundary tokens (BOS ... EOS); documents are never joined, so no transition
// from the end of one document to the start of the next is ever counted.
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
#include "llm/nn/splitmix64.hpp"     // header-only: the samples of chapter 7 draw from it
#include "llm/text/bpe_trainer.hpp"  // llm::TokenId, the token IDs the tokenizer produces

namespace llm {

// region: bigram-errors
/// What the bigram model rejected.
enum class BigramErrorKind {
  EmptyVocabulary,  ///< V = 0: no token could be counted or predicted
  InvalidAlpha,     ///< alpha is not finite and positive, or alpha * V is not finite
  TableTooLarge,    ///< the [V, V] count table cannot be counted or allocated
  TokenOutOfRange,  ///< a token ID is not smaller than V
  InvalidDraw,      ///< a uniform draw for sampling is not in [0, 1)
  EmptyAlphaGrid,   ///< no smoothing amount to choose from (chapter 7's selection)
};

/// The offending values of a BigramError; a kind leaves the fields it does
/// not use zero or empty.
struct BigramErrorEvidence {
  std::size_t vocabulary_size = 0;  ///< the vocabulary size V of the request (every kind)
  double alpha = 0.0;        ///< the rejected smoothing amount (InvalidAlpha) or draw (InvalidDraw)
  TokenId token = 0;         ///< the offending token ID (TokenOutOfRange)
  std::size_t document = 0;  ///< zero-based index of the document that holds it
  std::size_t position = 0;  ///< zero-based position of the token in that document
  /// TokenOutOfRange in a single query: the token's role, e.g. `previous`;
  /// empty when the token sits in a document.
  std::string role{};
};

/// The `bigram` area: each kind's stable name and message, in enum order.
struct BigramErrorTraits {
  using Kind = BigramErrorKind;                       ///< the area's kinds
  using Evidence = BigramErrorEvidence;               ///< the offending values
  static constexpr std::string_view area = "bigram";  ///< Error::area()
  /// Each kind's stable name and message, in enum order. `{token_in_place}`
  /// is `token ID 9 at position 2 of document 0`, or `previous token ID 9`
  /// for a query's token with role `previous`.
  static constexpr std::array<ErrorKindSpec<Kind>, 6> kinds{{
      {Kind::EmptyVocabulary, "empty-vocabulary",
       "a bigram model needs a vocabulary of at least one token, but V = 0"},
      {Kind::InvalidAlpha, "invalid-alpha",
       "the smoothing amount alpha must be finite and positive with a finite alpha * V, but "
       "alpha = {alpha} for V = {vocabulary_size}"},
      {Kind::TableTooLarge, "table-too-large",
       "the [V, V] count table for V = {vocabulary_size} does not fit in memory"},
      {Kind::TokenOutOfRange, "token-out-of-range",
       "{token_in_place} is outside the vocabulary of {vocabulary_size} tokens"},
      {Kind::InvalidDraw, "invalid-draw", "a sampling draw must lie in [0, 1), but it is {alpha}"},
      {Kind::EmptyAlphaGrid, "empty-alpha-grid",
       "choosing the smoothing amount needs at least one candidate alpha, but the grid is empty"},
  }};
  /// A field as the message prints it, or `token_in_place`.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};

/// An error of the chapter 6 bigram model. It is thrown only while
/// validating, before anything is counted or returned, so a failed fit
/// creates no model and a failed query changes nothing. Fields a kind does
/// not use are zero.
class BigramError : public KindedError<BigramErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw BigramError(BigramErrorKind::..., {.field = value});`
  explicit BigramError(BigramErrorKind kind, BigramErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}

  /// The vocabulary size V of the request (every kind).
  std::size_t vocabulary_size() const noexcept { return evidence().vocabulary_size; }
  /// The rejected smoothing amount (InvalidAlpha), or the rejected uniform
  /// draw (InvalidDraw).
  double alpha() const noexcept { return evidence().alpha; }
  /// The offending token ID (TokenOutOfRange).
  TokenId token() const noexcept { return evidence().token; }
  /// Zero-based index of the document that holds it (TokenOutOfRange raised
  /// while fitting or scoring documents; zero for a single query).
  std::size_t document() const noexcept { return evidence().document; }
  /// Zero-based position of the token in that document (as document()).
  std::size_t position() const noexcept { return evidence().position; }
};
// endregion: bigram-errors

/// A frozen bigram model: transition counts C[i, j] fitted once from training
/// documents, and the smoothing amount alpha used to read them as
/// probabilities. Immutable after fit(): scoring any data, training or held
/// out, never changes a count. Taught in chapter 6.
class BigramModel {
 public:
  // region: bigram-fit-contract
  /// Counts every adjacent pair (z_t, z_{t+1}) inside each training document
  /// once: C[i, j] is the number of such pairs with z_t = i and z_{t+1} = j.
  /// Documents stay separate: the last token of one document is never paired
  /// with the first token of the next, so an EOS -> BOS transition exists only
  /// if a single document contains it. Empty and one-token documents add no
  /// transition but are counted as documents, and their tokens are checked.
  ///
  /// @param vocabulary_size V, the number of token IDs; the table is [V, V].
  /// @param alpha the pseudocount added to every cell when the smoothed
  ///        distribution is read (chapter 6 uses 1); it does not change counts.
  /// @param training_documents the wrapped training documents, one view of
  ///        token IDs each, in any order (the counts do not depend on it).
  /// @throws BigramError for the first failing check, in this order:
  ///         EmptyVocabulary (V = 0); InvalidAlpha (alpha not finite,
  ///         alpha <= 0, or alpha * V not finite); TableTooLarge (V * V
  ///         overflows std::size_t or cannot be allocated); TokenOutOfRange
  ///         for the first token >= V, in document order and then position
  ///         order, naming both. Nothing is counted until every token has
  ///         passed.
  static BigramModel fit(std::size_t vocabulary_size, double alpha,
                         std::span<const std::span<const TokenId>> training_documents);

  /// The same fit for documents held as vectors (the chapter 6 fixture).
  /// @throws BigramError as fit() above.
  static BigramModel fit(std::size_t vocabulary_size, double alpha,
                         std::span<const std::vector<TokenId>> training_documents);
  // endregion: bigram-fit-contract

  /// V, the number of token IDs (rows and columns of the table).
  std::size_t vocabulary_size() const noexcept { return vocabulary_size_; }
  /// The smoothing pseudocount alpha > 0.
  double alpha() const noexcept { return alpha_; }
  /// How many training documents fit() received.
  std::size_t fitted_documents() const noexcept { return fitted_documents_; }
  /// How many transitions were counted: the sum of max(|d| - 1, 0) over documents.
  std::uint64_t fitted_transitions() const noexcept { return fitted_transitions_; }

  /// C[from, to], the number of counted from -> to transitions.
  /// @throws BigramError TokenOutOfRange if `from` or `to` is >= V.
  std::uint64_t count(TokenId from, TokenId to) const;

  /// Row `from` of the count table: V counts, column j for next token j.
  /// The view stays valid as long as the model.
  /// @throws BigramError TokenOutOfRange if `from` is >= V.
  std::span<const std::uint64_t> counts_row(TokenId from) const;

  /// N_from, the number of counted transitions leaving `from` (the row's sum).
  /// @throws BigramError TokenOutOfRange if `from` is >= V.
  std::uint64_t row_total(TokenId from) const;

  // region: bigram-probability-contracts
  /// The maximum-likelihood distribution of the next token after `from`:
  /// V values C[from, j] / N_from. Empty (std::nullopt) when N_from = 0: a
  /// context that was never followed by anything has no MLE row at all,
  /// which is a different fact from a defined zero in an observed row.
  /// @throws BigramError TokenOutOfRange if `from` is >= V.
  std::optional<std::vector<double>> maximum_likelihood_distribution(TokenId from) const;

  /// C[from, to] / N_from, or std::nullopt when N_from = 0 (see above).
  /// @throws BigramError TokenOutOfRange if `from` or `to` is >= V.
  std::optional<double> maximum_likelihood_probability(TokenId from, TokenId to) const;

  /// The add-alpha denominator of row `from`: N_from + alpha * V, always > 0.
  /// @throws BigramError TokenOutOfRange if `from` is >= V.
  double smoothing_denominator(TokenId from) const;

  /// (C[from, to] + alpha) / (N_from + alpha * V), in (0, 1).
  /// @throws BigramError TokenOutOfRange if `from` or `to` is >= V.
  double smoothed_probability(TokenId from, TokenId to) const;

  /// The add-alpha distribution of the next token after `from`: V positive
  /// values summing to one (up to rounding), defined for every context,
  /// including one with N_from = 0, where it is uniform.
  /// @throws BigramError TokenOutOfRange if `from` is >= V.
  std::vector<double> smoothed_distribution(TokenId from) const;

  /// Every next token with the largest count after `from`, in ascending ID
  /// order. Ties are all reported; the order is for reading, not a ranking.
  /// Add-alpha smoothing keeps this set, since it adds the same alpha to every
  /// cell of a row and divides them by one denominator.
  /// @throws BigramError TokenOutOfRange if `from` is >= V.
  std::vector<TokenId> most_likely_next_tokens(TokenId from) const;
  // endregion: bigram-probability-contracts

  // region: unigram-reading-contract
  /// How many counted transitions end in `next`: the sum of column `next`,
  /// which is the number of times `next` was a target in the training
  /// documents. BOS, which only starts documents, counts 0.
  /// @throws BigramError TokenOutOfRange if `next` is >= V.
  std::uint64_t unigram_count(TokenId next) const;

  /// The same table read without context, a unigram model on the same
  /// targets: (unigram_count(next) + alpha) / (T + alpha * V), with T the
  /// fitted transitions. The context is summed out of the counts, so the gap
  /// between this and smoothed_probability is what the one token of context
  /// contributes (chapter 7).
  /// @throws BigramError TokenOutOfRange if `next` is >= V.
  double unigram_probability(TokenId next) const;
  // endregion: unigram-reading-contract

  // region: bigram-sampling-contract
  /// The next token drawn from the add-alpha row of `from` by the inverse of
  /// its cumulative distribution: the smallest j with
  /// unit * (N_from + alpha * V) < sum over k <= j of (C[from, k] + alpha).
  /// A `unit` uniform on [0, 1) makes j follow smoothed_distribution(from);
  /// should rounding leave the sum short, the last ID is returned.
  /// @throws BigramError TokenOutOfRange if `from` is >= V; InvalidDraw if
  ///         `unit` is not in [0, 1) (NaN included).
  TokenId sample_next_token(TokenId from, double unit) const;
  // endregion: bigram-sampling-contract

 private:
  BigramModel(std::size_t vocabulary_size, double alpha, std::vector<std::uint64_t> counts,
              std::vector<std::uint64_t> row_totals, std::vector<std::uint64_t> column_totals,
              std::size_t fitted_documents, std::uint64_t fitted_transitions);

  /// `token` as a row or column index; throws TokenOutOfRange naming `role`.
  std::size_t checked_index(TokenId token, std::string_view role) const;

  std::size_t vocabulary_size_;
  double alpha_;
  std::vector<std::uint64_t> counts_;         // [V, V], row-major: counts_[i * V + j] = C[i, j]
  std::vector<std::uint64_t> row_totals_;     // [V]: row_totals_[i] = N_i
  std::vector<std::uint64_t> column_totals_;  // [V]: column_totals_[j] = sum over i of C[i, j]
  std::size_t fitted_documents_;
  std::uint64_t fitted_transitions_;
};

// region: bigram-writing-contract
/// Text from the model, one token at a time (chapter 7): starting after
/// `start`, each token is drawn with model.sample_next_token(previous,
/// generator.next_unit()), one draw per token, until `stop` is drawn or
/// `max_tokens` tokens were drawn. Returns the drawn tokens, `stop`
/// included when it was drawn, `start` not. The same seed gives the same
/// tokens on every machine.
/// @throws BigramError TokenOutOfRange if `start` or `stop` is >= V, before
///         anything is drawn (the generator is then unchanged).
std::vector<TokenId> sample_bigram_sequence(const BigramModel& model, TokenId start, TokenId stop,
                                            std::size_t max_tokens, SplitMix64& generator);
// endregion: bigram-writing-contract

}  // namespace llm
