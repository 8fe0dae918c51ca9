// Merge rounds with their evidence: every candidate's count, the winner and
// the replacements. The library's learn_merges keeps only the winners; this
// demo helper runs the same library steps (count, choose, replace) and keeps
// what the chapter prints and draws. The compression curve trains many more
// merges than the chapter prints and measures what each one buys on the
// training and the validation documents.
#pragma once

#include <cstddef>
#include <map>
#include <vector>

#include "llm/text/bpe_trainer.hpp"
#include "llm/text/corpus.hpp"

namespace ch03 {

/// One traced round.
struct TracedRound {
  std::size_t rank = 0;
  std::vector<std::vector<llm::TokenId>> before;     ///< every sequence at the start
  std::map<llm::TokenPair, std::size_t> candidates;  ///< every pair's overlapping count
  llm::TokenPair winner;                             ///< the chosen pair
  std::size_t count = 0;                             ///< its count
  std::size_t replacements = 0;                      ///< non-overlapping replacements
  llm::TokenId token_id = 0;                         ///< 256 + rank
  std::vector<std::uint8_t> bytes;                   ///< the new token's bytes
};

/// Runs up to `rounds` rounds on `sequences` (byte IDs), returning one
/// TracedRound per learned merge; `sequences` ends in its final state.
std::vector<TracedRound> traced_rounds(std::vector<std::vector<llm::TokenId>>& sequences,
                                       std::size_t rounds);

/// Tokens per partition after each number of merges, for the figure of
/// bytes per token against merges.
struct CompressionCurve {
  std::size_t train_bytes = 0;       ///< bytes of the training documents
  std::size_t validation_bytes = 0;  ///< bytes of the validation documents
  /// Element k: content tokens after the first k merges (k = 0 is bytes).
  std::vector<std::size_t> train_tokens;
  std::vector<std::size_t> validation_tokens;
  std::vector<llm::MergeRule> rules;              ///< the learned rules, rank order
  std::vector<std::vector<std::uint8_t>> merged;  ///< the bytes of each rule's new token
};

/// Learns up to `merges` rules from the training documents (llm::BpeTrainer,
/// exactly as the printed eight) and applies them in rank order to the
/// validation documents, which the trainer never reads.
CompressionCurve compression_curve(const llm::CorpusPartitions& partitions, std::size_t merges);

}  // namespace ch03
