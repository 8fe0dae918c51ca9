// Traced merge rounds built from the library's own counting, tie rule and
// replacement, and the compression curve of many more rounds (chapter 3).
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

// region: compression-curve
CompressionCurve compression_curve(const llm::CorpusPartitions& partitions, std::size_t merges) {
  const llm::BpeTraining training = llm::BpeTrainer(merges).train(partitions);
  CompressionCurve curve;
  for (const llm::Document& document : partitions.training_documents()) {
    curve.train_bytes += document.text.size();
  }
  // Each replacement turns two training tokens into one.
  curve.train_tokens.push_back(curve.train_bytes);
  for (const llm::MergeRule& rule : training.rules()) {
    curve.train_tokens.push_back(curve.train_tokens.back() - rule.replacement_count);
  }
  // Validation text is only encoded: the rules in rank order, as chapter 4
  // will apply them, counting the tokens after each one.
  std::vector<std::vector<llm::TokenId>> validation;
  for (const llm::Document& document : partitions.documents(llm::Partition::Validation)) {
    validation.push_back(llm::bytes_to_tokens(document.text));
    curve.validation_bytes += document.text.size();
  }
  curve.validation_tokens.push_back(curve.validation_bytes);
  for (const llm::MergeRule& rule : training.rules()) {
    std::size_t tokens = 0;
    for (auto& sequence : validation) {
      sequence = llm::replace_pair_left_to_right(sequence, rule.pair, rule.token_id).tokens;
      tokens += sequence.size();
    }
    curve.validation_tokens.push_back(tokens);
    const auto bytes = *training.token_bytes(rule.token_id);
    curve.merged.emplace_back(bytes.begin(), bytes.end());
  }
  curve.rules = training.rules();
  return curve;
}
// endregion: compression-curve

}  // namespace ch03
