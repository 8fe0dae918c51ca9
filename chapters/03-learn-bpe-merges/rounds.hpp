// Merge rounds with their evidence: every candidate's count, the winner and
// the replacements. The library's learn_merges keeps only the winners; this
// demo helper runs the same library steps (count, choose, replace) and keeps
// what the chapter prints and draws.
#pragma once

#include <cstddef>
#include <map>
#include <vector>

#include "llm/text/bpe_trainer.hpp"

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

}  // namespace ch03
