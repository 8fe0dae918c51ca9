// The corpus part of chapter 7: the book's corpus and frozen split, a BPE
// tokenizer with eight merges learned from the training documents, every
// document encoded on its own, one add-one bigram model fitted on the
// training documents, and that unchanged model scored on the training and on
// the validation documents.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "llm/evaluation/bigram_evaluation.hpp"
#include "llm/models/bigram.hpp"
#include "llm/text/encoded_corpus.hpp"

namespace ch07 {

/// The merges requested from the BPE trainer, and the bigram's pseudocount.
inline constexpr std::size_t kRequestedMerges = 8;
inline constexpr double kBigramAlpha = 1.0;

/// Everything the corpus part prints, built once.
struct FrozenMetricFixture {
  std::string corpus_checksum;
  std::string split_strategy;
  std::size_t requested_merges;
  std::size_t learned_merges;
  std::uint32_t tokenizer_layout;
  std::size_t vocabulary_size;
  bool merges_learned_from_train_only;  ///< the trainer counted exactly the train documents
  llm::EncodedCorpusPartitions encoded;
  llm::BigramModel model;
};

/// Loads the corpus, trains the tokenizer on train, encodes every document
/// and fits the bigram on the encoded training documents only.
FrozenMetricFixture frozen_metric_fixture();

/// Which tokens the scorer treats as targets, checked on the encoded
/// training and validation documents rather than assumed.
struct BoundaryEvidence {
  bool bos_target;       ///< some scored pair ends in BOS
  bool eos_target;       ///< every document ends in EOS after at least one token
  bool cross_document;   ///< some scored pair is EOS -> BOS
  bool test_selectable;  ///< some ScoredPartition reads the test partition
};
BoundaryEvidence boundary_evidence(const llm::EncodedCorpusPartitions& encoded);

/// One document scored on its own, for the per-document figure.
struct DocumentScore {
  std::string id;
  llm::ScoredPartition partition;
  llm::LanguageModelMetrics metrics;
};
std::vector<DocumentScore> document_scores(const FrozenMetricFixture& fixture);

}  // namespace ch07
