// Mini-batches of complete causal windows, and the token-mean loss and
// gradient of one batch. Taught in chapter 21.
//
// An epoch starts from separate documents of one partition. Every complete
// window of chapter 5 is named by (document, start); those names are put in
// document order, optionally permuted by a seeded Fisher-Yates shuffle, and
// cut into batches of at most `batch_size` rows. A row is copied from one
// document only, so no batch row crosses a document boundary, and the last
// batch keeps its actual width: nothing is padded and nothing is dropped.
//
// A batch of width |B| and context length T holds |B| * T target tokens.
// Its mean loss and mean gradient divide raw sums by that count, never by
// the capacity batch_size * T.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "llm/error.hpp"
#include "llm/text/causal_windows.hpp"
#include "llm/text/corpus.hpp"

namespace llm {

// region: batch-errors
/// What batching or token averaging rejected.
enum class BatchErrorKind {
  ZeroBatchSize,              ///< a batch of zero rows was requested
  EmptyDocumentId,            ///< a document has no name to report windows under
  PartitionMismatch,          ///< a document belongs to another partition than the epoch
  DuplicateDocumentId,        ///< two documents share a name, so origins would be ambiguous
  CountOverflow,              ///< a window or token count does not fit in size_t
  ContributionCountMismatch,  ///< not exactly one contribution per target token
  ZeroGradientWidth,          ///< a gradient with no coordinate
  GradientWidthMismatch,      ///< gradients of different widths cannot be summed
  NonFiniteLoss,              ///< a token loss is NaN or infinite
  NonFiniteGradient,          ///< a token gradient coordinate is NaN or infinite
  NonFiniteAccumulation,      ///< a running sum overflowed to infinity
  EmptyAccumulator,           ///< a mean over zero tokens was requested
};

/// The offending values of a BatchError; a kind leaves the fields it does not
/// use zero or empty.
struct BatchErrorEvidence {
  std::size_t index = 0;                   ///< the offending document, or gradient coordinate
  std::size_t earlier_index = 0;           ///< DuplicateDocumentId: where the id first appears
  std::string document_id{};               ///< the offending document's id
  Partition partition = Partition::Train;  ///< PartitionMismatch: the document's partition
  Partition epoch_partition = Partition::Train;  ///< PartitionMismatch: the epoch's partition
  std::size_t expected = 0;                      ///< the count or width required
  std::size_t actual = 0;                        ///< the count or width supplied
  double value = 0.0;                            ///< the non-finite loss, coordinate or sum
  /// NonFiniteAccumulation: the gradient-sum coordinate that overflowed;
  /// empty when the loss sum did.
  std::optional<std::size_t> sum_coordinate{};
  /// What has no coordinate (ZeroGradientWidth) or does not fit (CountOverflow).
  std::string subject{};
};

/// The `mini-batch` area: each kind's stable name and message, in enum order.
struct BatchErrorTraits {
  using Kind = BatchErrorKind;                            ///< the area's kinds
  using Evidence = BatchErrorEvidence;                    ///< the offending values
  static constexpr std::string_view area = "mini-batch";  ///< Error::area()
  /// Each kind's stable name and message, in enum order. `{sum}` is `the loss
  /// sum` or `the gradient sum at coordinate i`.
  static constexpr std::array<ErrorKindSpec<Kind>, 12> kinds{{
      {Kind::ZeroBatchSize, "zero-batch-size", "batch size must be positive, got 0"},
      {Kind::EmptyDocumentId, "empty-document-id", "document {index} has an empty id"},
      {Kind::PartitionMismatch, "partition-mismatch",
       "document {index} ('{document_id}') belongs to {partition}, the epoch to "
       "{epoch_partition}"},
      {Kind::DuplicateDocumentId, "duplicate-document-id",
       "document id '{document_id}' first appears at {earlier_index} and again at {index}"},
      {Kind::CountOverflow, "count-overflow", "{subject} does not fit in size_t"},
      {Kind::ContributionCountMismatch, "contribution-count-mismatch",
       "the batch has {expected} target tokens, got {actual} contributions"},
      {Kind::ZeroGradientWidth, "zero-gradient-width", "{subject} needs a coordinate"},
      {Kind::GradientWidthMismatch, "gradient-width-mismatch",
       "gradient width {actual} does not match the accumulator's {expected}"},
      {Kind::NonFiniteLoss, "non-finite-loss", "token loss must be finite, got {value}"},
      {Kind::NonFiniteGradient, "non-finite-gradient",
       "token gradient coordinate {index} must be finite, got {value}"},
      {Kind::NonFiniteAccumulation, "non-finite-accumulation", "{sum} became {value}"},
      {Kind::EmptyAccumulator, "empty-accumulator", "no target token to average over"},
  }};
  /// A field as the message prints it, or `sum`.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};

/// An error of chapter 21's batching or token averaging. Every function that
/// throws it leaves its arguments and the object it was called on unchanged.
class BatchError : public KindedError<BatchErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw BatchError(BatchErrorKind::..., {.field = value});`
  explicit BatchError(BatchErrorKind kind, BatchErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}
};
// endregion: batch-errors

// region: batch-configuration
/// The order of the windows in one epoch: document order (then increasing
/// start), or a Fisher-Yates permutation drawn from SplitMix64 (chapter 17)
/// seeded with `seed`.
struct BatchOrder {
  std::optional<std::uint64_t> seed;  ///< empty: sequential

  /// Document order, then increasing start.
  static BatchOrder sequential() { return {}; }
  /// A Fisher-Yates permutation drawn from SplitMix64(seed).
  static BatchOrder shuffled(std::uint64_t seed) { return {seed}; }
};

/// A requested batch width (at least one row) and an epoch order.
class MiniBatchConfig {
 public:
  /// @throws BatchError ZeroBatchSize when batch_size is 0.
  static MiniBatchConfig create(std::size_t batch_size, BatchOrder order);

  /// The largest number of rows a batch may hold; the last batch may hold fewer.
  std::size_t batch_size() const noexcept { return batch_size_; }
  /// Sequential, or shuffled with a seed.
  BatchOrder order() const noexcept { return order_; }

 private:
  MiniBatchConfig(std::size_t batch_size, BatchOrder order)
      : batch_size_(batch_size), order_(order) {}
  std::size_t batch_size_;
  BatchOrder order_;
};

/// A view of one document's token IDs that a temporary vector cannot make:
/// such a vector is destroyed at the end of the statement that makes the
/// view, before MiniBatchEpoch::build reads it. So both making a BatchDocument
/// from one and assigning one to its `token_ids` do not compile; a named
/// vector or a span does. Everything else is std::span's.
class DocumentTokens : public std::span<const TokenId> {
 public:
  /// A view of `token_ids`, which must outlive MiniBatchEpoch::build.
  DocumentTokens(std::span<const TokenId> token_ids)  // NOLINT(google-explicit-constructor)
      : std::span<const TokenId>(token_ids) {}
  /// A view of the named vector `token_ids`, which must outlive MiniBatchEpoch::build.
  DocumentTokens(const std::vector<TokenId>& token_ids)  // NOLINT(google-explicit-constructor)
      : std::span<const TokenId>(token_ids) {}
  /// Refused at compile time: the vector is gone before build() reads the view.
  DocumentTokens(const std::vector<TokenId>&& temporary) = delete;
};

/// One document as the batch builder sees it: a name, its partition and a
/// view of its tokens ([BOS, content..., EOS] from chapter 5). The token view
/// must outlive MiniBatchEpoch::build; batches copy the tokens they use. The
/// name is a copy, so `{prefix + "-a", partition, tokens}` is safe (a view of
/// that temporary string dangled before build() read it). Tokens in a
/// temporary vector would dangle the same way, so DocumentTokens refuses them.
struct BatchDocument {
  /// The document `id` of `partition` over `token_ids`, which must outlive
  /// MiniBatchEpoch::build.
  BatchDocument(std::string id, Partition partition, DocumentTokens token_ids)
      : id(std::move(id)), partition(partition), token_ids(token_ids) {}

  std::string id;            ///< the document's name, not empty, unique in an epoch
  Partition partition;       ///< must be the epoch's partition
  DocumentTokens token_ids;  ///< [BOS, content..., EOS]
};
// endregion: batch-configuration

/// Where one batch row came from: a document and the start of its window.
struct WindowOrigin {
  std::size_t document_index = 0;  ///< position in the documents passed to build()
  std::string document_id;         ///< that document's name
  std::size_t start = 0;           ///< position of input[0] in the document

  /// Field-by-field equality.
  bool operator==(const WindowOrigin&) const = default;
};

class TokenMean;
class TokenContribution;

/// One stack of complete windows, row-major [|B|, T]: row r holds the input
/// and target of origins()[r]. Never padded: inputs().size() ==
/// targets().size() == width() * context_length().
class MiniBatch {
 public:
  /// |B|: the rows actually present (at most the requested batch size).
  std::size_t width() const noexcept { return origins_.size(); }
  /// T: the length of every row.
  std::size_t context_length() const noexcept { return context_length_; }
  /// [|B|, T].
  std::array<std::size_t, 2> shape() const noexcept { return {width(), context_length_}; }
  /// |B| * T: the target tokens present, the denominator of every batch mean.
  std::size_t token_count() const noexcept { return targets_.size(); }

  /// The input token ids, row-major [|B|, T].
  std::span<const TokenId> inputs() const noexcept { return inputs_; }
  /// The target token ids, row-major [|B|, T]; target (r, t) follows input (r, t).
  std::span<const TokenId> targets() const noexcept { return targets_; }
  /// One origin per row.
  std::span<const WindowOrigin> origins() const noexcept { return origins_; }
  /// Row r of inputs(), or nothing when r >= width().
  std::optional<std::span<const TokenId>> input_row(std::size_t row) const noexcept;
  /// Row r of targets(), or nothing when r >= width().
  std::optional<std::span<const TokenId>> target_row(std::size_t row) const noexcept;

  /// The token mean of one contribution per target token, in targets() order.
  /// @throws BatchError ContributionCountMismatch when contributions.size()
  ///         != token_count(), GradientWidthMismatch when the widths differ,
  ///         NonFiniteAccumulation when a sum overflows.
  TokenMean average(std::span<const TokenContribution> contributions) const;

  /// Field-by-field equality.
  bool operator==(const MiniBatch&) const = default;

 private:
  friend class MiniBatchEpoch;
  std::size_t context_length_ = 0;
  std::vector<TokenId> inputs_;
  std::vector<TokenId> targets_;
  std::vector<WindowOrigin> origins_;
};

// region: mini-batch-epoch-contract
/// Every complete window of one partition's documents, once each, in batches.
class MiniBatchEpoch {
 public:
  /// Names every complete window of every document (chapter 5's
  /// `window_config`), orders the names as `config.order()` says, and copies
  /// each batch of at most `config.batch_size()` names into a MiniBatch.
  /// The number of batches is ceil(windows / batch_size); an epoch of zero
  /// windows has no batch.
  /// Every document is checked before any window is named.
  /// @throws BatchError EmptyDocumentId, PartitionMismatch (a document
  ///         outside `partition`), DuplicateDocumentId, then CountOverflow.
  static MiniBatchEpoch build(Partition partition, std::span<const BatchDocument> documents,
                              const CausalWindowConfig& window_config,
                              const MiniBatchConfig& config);

  /// The partition every window comes from.
  Partition partition() const noexcept { return partition_; }
  /// T, the length of every row.
  std::size_t context_length() const noexcept { return context_length_; }
  /// The number of complete windows over all documents.
  std::size_t window_count() const noexcept { return window_count_; }
  /// The batches in order: all full except possibly the last.
  const std::vector<MiniBatch>& batches() const noexcept { return batches_; }

  /// Field-by-field equality.
  bool operator==(const MiniBatchEpoch&) const = default;

 private:
  Partition partition_ = Partition::Train;
  std::size_t context_length_ = 0;
  std::size_t window_count_ = 0;
  std::vector<MiniBatch> batches_;
};
// endregion: mini-batch-epoch-contract

// region: seeded-shuffle-contract
/// Permutes `positions` in place with Fisher-Yates, from the last position
/// down: position i swaps with a uniform draw j in [0, i] taken from
/// SplitMix64 seeded with `seed` (chapter 17), by rejection sampling so that
/// every j is equally likely. The same seed gives the same permutation on
/// every machine. Never throws.
void shuffle_positions(std::span<std::size_t> positions, std::uint64_t seed) noexcept;
// endregion: seeded-shuffle-contract

// region: token-contribution
/// One target token's loss and the gradient of that loss with respect to
/// the parameters (flattened to `width` coordinates).
class TokenContribution {
 public:
  /// @throws BatchError NonFiniteLoss, ZeroGradientWidth, then
  ///         NonFiniteGradient (naming the first bad coordinate).
  static TokenContribution create(double loss, std::vector<double> gradient);

  /// The token's loss, e.g. its negative log-probability (finite).
  double loss() const noexcept { return loss_; }
  /// d loss / d parameters, one finite value per coordinate.
  std::span<const double> gradient() const noexcept { return gradient_; }

 private:
  TokenContribution(double loss, std::vector<double> gradient)
      : loss_(loss), gradient_(std::move(gradient)) {}
  double loss_;
  std::vector<double> gradient_;
};

/// The mean loss and mean gradient over `token_count` target tokens.
class TokenMean {
 public:
  /// The denominator: how many target tokens were averaged.
  std::size_t token_count() const noexcept { return token_count_; }
  /// The loss sum divided by token_count().
  double mean_loss() const noexcept { return mean_loss_; }
  /// Each gradient sum divided by token_count().
  std::span<const double> mean_gradient() const noexcept { return mean_gradient_; }
  /// Field-by-field equality.
  bool operator==(const TokenMean&) const = default;

 private:
  friend class TokenMeanAccumulator;
  std::size_t token_count_ = 0;
  double mean_loss_ = 0.0;
  std::vector<double> mean_gradient_;
};
// endregion: token-contribution

// region: token-mean-accumulator-contract
/// Raw sums of losses and gradients and the number of tokens they came
/// from. Sums merge before the one division, so a batch accumulated in
/// pieces gives the same mean as one pass, and a short piece weighs as many
/// tokens as it has.
class TokenMeanAccumulator {
 public:
  /// @throws BatchError ZeroGradientWidth when width is 0.
  static TokenMeanAccumulator create(std::size_t width);

  /// Adds one token. Strong guarantee: every new sum is computed and checked
  /// before any is stored.
  /// @throws BatchError GradientWidthMismatch, CountOverflow, then
  ///         NonFiniteAccumulation (the loss sum first, then the first coordinate).
  void add_token(const TokenContribution& contribution);
  /// Adds another accumulator's sums and count. Same checks and guarantee.
  void merge(const TokenMeanAccumulator& other);
  /// Sums divided by the token count.
  /// @throws BatchError EmptyAccumulator when no token was added.
  TokenMean finish() const;

  /// The number of tokens added so far, over every merged piece.
  std::size_t token_count() const noexcept { return token_count_; }
  /// The raw sum of the added losses.
  double loss_sum() const noexcept { return loss_sum_; }
  /// The raw sum of the added gradients, coordinate by coordinate.
  std::span<const double> gradient_sums() const noexcept { return gradient_sums_; }
  /// Field-by-field equality.
  bool operator==(const TokenMeanAccumulator&) const = default;

 private:
  explicit TokenMeanAccumulator(std::size_t width) : gradient_sums_(width, 0.0) {}
  void add_checked(double loss, std::span<const double> gradient, std::size_t count);

  double loss_sum_ = 0.0;
  std::vector<double> gradient_sums_;
  std::size_t token_count_ = 0;
};
// endregion: token-mean-accumulator-contract

}  // namespace llm
