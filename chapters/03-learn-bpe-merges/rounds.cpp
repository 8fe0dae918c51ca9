// Traced merge rounds built from the library's own counting, tie rule and
// replacement (chapter 3).
#include "rounds.hpp"

namespace ch03 {

// region: traced-rounds
std::vector<TracedRound> traced_rounds(std::vector<std::vector<llm::TokenId>>& sequences,
                                       std::size_t rounds) {
  std::vector<std::vector<std::uint8_t>> vocabulary;  // bytes of each ID, as the trainer keeps them
  for (unsigned byte = 0; byte < llm::kByteTokenCount; ++byte) {
    vocabulary.push_back({static_cast<std::uint8_t>(byte)});
  }
  std::vector<TracedRound> traced;
  for (std::size_t rank = 0; rank < rounds; ++rank) {
    TracedRound round;
    round.rank = rank;
    round.before = sequences;
    round.candidates = llm::count_adjacent_pairs(sequences);
    const auto winner = llm::choose_most_frequent_pair(round.candidates);
    if (!winner) break;
    round.winner = winner->first;
    round.count = winner->second;
    round.token_id = static_cast<llm::TokenId>(vocabulary.size());
    round.bytes = vocabulary[round.winner.left];
    round.bytes.insert(round.bytes.end(), vocabulary[round.winner.right].begin(),
                       vocabulary[round.winner.right].end());
    for (auto& sequence : sequences) {
      llm::PairReplacement replaced =
          llm::replace_pair_left_to_right(sequence, round.winner, round.token_id);
      sequence = std::move(replaced.tokens);
      round.replacements += replaced.replacements;
    }
    vocabulary.push_back(round.bytes);
    traced.push_back(std::move(round));
  }
  return traced;
}
// endregion: traced-rounds

}  // namespace ch03
