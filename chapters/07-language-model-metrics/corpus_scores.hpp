// The corpus part of chapter 7: the book's corpus and frozen split, a BPE
// tokenizer with eight merges learned from the training documents, every
// document encoded on its own, one add-one bigram model fitted on the
// training documents, and that unchanged model scored on the training and on
// the validation documents. Then the baseline: the same table without
// context, the smoothing amount chosen on validation, the tuned model opened
// once on test, and seeded text sampled from the add-one and the tuned model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "llm/evaluation/bigram_evaluation.hpp"
#include "llm/models/bigram.hpp"
#include "llm/text/bpe_tokenizer.hpp"
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
  llm::BpeTokenizer tokenizer;
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

/// Seeded text from one model: the drawn tokens and a readable rendering.
struct Sample {
  std::uint64_t seed;
  std::vector<llm::TokenId> tokens;  ///< the drawn tokens, EOS included if drawn
  std::string visible;               ///< visible_text of their bytes, then `<EOS>` if drawn
  std::size_t escaped_bytes;         ///< bytes visible_text had to write as \xNN
  std::size_t unseen_transitions;    ///< drawn pairs the training documents never contain
};

/// What one token of context and the choice of alpha are worth on this
/// corpus, and what the chosen model writes.
struct BaselineEvidence {
  llm::BigramBaseline baseline;    ///< alpha chosen on validation (llm::select_bigram_baseline)
  llm::LanguageModelMetrics test;  ///< the chosen model on test, read once, after the choice
  std::size_t test_documents;
  std::size_t ids_in_training;       ///< distinct token IDs in the training documents
  double add_one_pseudocount_share;  ///< mean over validation targets of V / (N_context + V)
  std::vector<Sample> add_one_samples;
  std::vector<Sample> tuned_samples;
};

/// The seeds of the samples and how many tokens each may draw.
inline constexpr std::uint64_t kSampleSeeds[] = {1, 2, 3};
inline constexpr std::size_t kSampleTokens = 40;

BaselineEvidence baseline_evidence(const FrozenMetricFixture& fixture);

/// Bytes as a reader can see them: well-formed, printable UTF-8 as it is, a
/// backslash as `\\`, and every other byte (a control character, half a
/// letter, a byte that starts no valid sequence) as `\xNN`. The second
/// element counts the escaped bytes.
std::pair<std::string, std::size_t> visible_text(std::span<const std::uint8_t> bytes);

}  // namespace ch07
