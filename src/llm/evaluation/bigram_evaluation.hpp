// Scoring the frozen chapter 6 bigram model with the chapter 7 metrics:
// every adjacent pair inside each document is one scored target, the model's
// add-alpha probability of the token that actually came next is its assigned
// probability, and documents are never joined. Taught in chapter 7.
//
// The model is read, never refitted: scoring training or held-out documents
// leaves every count as it was. On the book's corpus the protocol is fixed:
// fit on the training partition only, then score the training or the
// validation partition. The test partition cannot even be named here; it is
// kept for the final evaluation of chapter 34.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "llm/evaluation/language_model_metrics.hpp"
#include "llm/models/bigram.hpp"
#include "llm/text/corpus.hpp"
#include "llm/text/encoded_corpus.hpp"

namespace llm {

// region: score-bigram-documents-contract
/// Mean NLL and perplexity of `model` on `documents`: for each document
/// z_0 ... z_{n-1} and each t from 1 to n - 1, the target z_t is scored with
/// p = model.smoothed_probability(z_{t-1}, z_t). z_0 (BOS in a wrapped
/// document) is context only and never a target; the last token (EOS) is the
/// last target. A document of n tokens adds n - 1 targets, so N is the sum of
/// max(n - 1, 0) over documents, and one accumulator weighs every target the
/// same whatever its document.
/// @throws BigramError TokenOutOfRange for the first token >= V (document
///         order, then position order), before anything is scored.
/// @throws MetricError EmptyTargets if no document has two tokens.
LanguageModelMetrics score_bigram_documents(const BigramModel& model,
                                            std::span<const std::span<const TokenId>> documents);
// endregion: score-bigram-documents-contract

// region: score-unigram-documents-contract
/// The same targets as score_bigram_documents, each scored without its
/// context: p = model.unigram_probability(z_t). Comparing the two scores on
/// the same documents measures what one token of context is worth.
/// @throws BigramError TokenOutOfRange for the first token >= V, before
///         anything is scored.
/// @throws MetricError EmptyTargets if no document has two tokens.
LanguageModelMetrics score_unigram_documents(const BigramModel& model,
                                             std::span<const std::span<const TokenId>> documents);
// endregion: score-unigram-documents-contract

/// One view of token IDs per document, in order: the form the scorers take.
/// The views stay valid as long as `documents`.
std::vector<std::span<const TokenId>> document_token_views(
    const std::vector<EncodedDocument>& documents);

// region: bigram-partition-protocol
/// The partitions chapter 7 may score. There is deliberately no `Test`: a
/// function taking a ScoredPartition cannot be asked for the held-out test
/// documents, which chapter 34 opens once, for the final model.
enum class ScoredPartition {
  Train,       ///< the documents the model was fitted on
  Validation,  ///< held-out documents used to compare and select models
};

/// Every ScoredPartition, in the order chapter 7 reports them.
inline constexpr std::array<ScoredPartition, 2> kScoredPartitions = {ScoredPartition::Train,
                                                                     ScoredPartition::Validation};

/// The corpus partition a scored partition reads.
Partition corpus_partition(ScoredPartition partition);

/// `train` or `validation`, the label of the corpus partition it reads.
std::string_view scored_partition_label(ScoredPartition partition);

/// Fits a bigram model on the training documents of `partitions` and on
/// nothing else: one BigramModel::fit over the encoded [BOS, ..., EOS]
/// sequences of Partition::Train, each document kept apart.
/// @param vocabulary_size V, the tokenizer's vocabulary size.
/// @param alpha the pseudocount of the smoothed reading (BigramModel::fit).
/// @param partitions the encoded corpus; only its training documents are read.
/// @throws BigramError as BigramModel::fit (InvalidAlpha, TokenOutOfRange if
///         V is smaller than the tokenizer that encoded the documents, ...).
BigramModel fit_bigram_on_training_partition(std::size_t vocabulary_size, double alpha,
                                             const EncodedCorpusPartitions& partitions);

/// The metrics of one scored partition and how many documents it holds.
struct PartitionScore {
  ScoredPartition partition;     ///< which partition was scored
  std::size_t document_count;    ///< documents in the partition
  LanguageModelMetrics metrics;  ///< over all their targets, pooled
};

/// score_bigram_documents on the encoded documents of one partition: every
/// pair inside each document is a target, pooled over the partition.
/// @throws BigramError TokenOutOfRange if the model's vocabulary is smaller
///         than the tokenizer's; MetricError EmptyTargets for a partition
///         without any pair.
PartitionScore score_bigram_partition(const BigramModel& model,
                                      const EncodedCorpusPartitions& partitions,
                                      ScoredPartition partition);

/// score_unigram_documents on the encoded documents of one partition.
/// @throws BigramError TokenOutOfRange and MetricError EmptyTargets, as
///         score_bigram_partition.
PartitionScore score_unigram_partition(const BigramModel& model,
                                       const EncodedCorpusPartitions& partitions,
                                       ScoredPartition partition);
// endregion: bigram-partition-protocol

// region: bigram-baseline-contract
/// The smoothing amounts chapter 7 tries, from add-one down to 0.001 on a
/// 1-2-5 grid: ten candidates over three decades for one hyperparameter.
inline constexpr std::array<double, 10> kSmoothingGrid = {1.0,  0.5,  0.2,   0.1,   0.05,
                                                          0.02, 0.01, 0.005, 0.002, 0.001};

/// One candidate alpha: the bigram fitted on train with it, scored on both
/// partitions it may read, and the same table read without context.
struct SmoothingCandidate {
  double alpha;                             ///< the smoothing amount tried
  LanguageModelMetrics train;               ///< the bigram on the documents it counted
  LanguageModelMetrics validation;          ///< the bigram on validation: what selects alpha
  LanguageModelMetrics unigram_validation;  ///< unigram_probability on the same targets
};

/// The count baseline: the bigram whose alpha scored the lowest validation
/// mean NLL. Chapter 7 builds it; every later model is compared with it on
/// the same targets (chapter 23 on validation, chapter 34 once on test).
struct BigramBaseline {
  BigramModel model;                      ///< fitted on train with the chosen alpha
  std::vector<SmoothingCandidate> sweep;  ///< one per candidate, in the order given
  std::size_t chosen;                     ///< index into sweep of the chosen alpha
  PartitionScore validation;              ///< the chosen model on validation
};

/// Fits one bigram per candidate alpha on the training documents, scores each
/// on validation, and keeps the alpha with the lowest validation mean NLL
/// (the earliest candidate on an exact tie). The test documents are never
/// read: a choice made by looking at test would make its score a validation
/// score.
/// @param vocabulary_size V, the tokenizer's vocabulary size.
/// @param partitions the encoded corpus: train is counted, validation scored.
/// @param alphas the candidates, each finite and positive, tried in order.
/// @throws BigramError EmptyAlphaGrid if `alphas` is empty; otherwise as
///         fit_bigram_on_training_partition for the first candidate it refuses.
BigramBaseline select_bigram_baseline(std::size_t vocabulary_size,
                                      const EncodedCorpusPartitions& partitions,
                                      std::span<const double> alphas = kSmoothingGrid);

/// The same selection on documents given directly: `train` is counted and
/// `validation` scored, and nothing else is read. Chapter 23 passes the only
/// two partitions it encodes, so the test documents are not even encoded.
/// @param vocabulary_size V, the tokenizer's vocabulary size.
/// @param train the encoded [BOS, ..., EOS] training documents, one view each.
/// @param validation the encoded validation documents, one view each.
/// @param alphas the candidates, each finite and positive, tried in order.
/// @throws BigramError EmptyAlphaGrid, then as BigramModel::fit for the first
///         candidate it refuses; MetricError EmptyTargets if no validation
///         document has two tokens.
BigramBaseline select_bigram_baseline(std::size_t vocabulary_size,
                                      std::span<const std::span<const TokenId>> train,
                                      std::span<const std::span<const TokenId>> validation,
                                      std::span<const double> alphas = kSmoothingGrid);
// endregion: bigram-baseline-contract

}  // namespace llm
