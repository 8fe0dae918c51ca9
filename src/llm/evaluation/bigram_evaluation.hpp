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
/// @param alpha the smoothing amount added to every count (BigramModel::fit).
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
// endregion: bigram-partition-protocol

}  // namespace llm
