// Byte-pair merge learning on the training documents (chapter 3).
#include "llm/text/bpe_trainer.hpp"

#include <cassert>
#include <utility>

namespace llm {

std::string BpeTrainingErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "requested_merges") return std::to_string(evidence.requested_merges);
  if (field == "max_merges") return std::to_string(evidence.max_merges);
  if (field == "document_count") return std::to_string(evidence.document_count);
  if (field == "sequence_count") return std::to_string(evidence.sequence_count);
  if (field == "sequence_index") return std::to_string(evidence.sequence_index);
  if (field == "position") return std::to_string(evidence.position);
  if (field == "token_id") return std::to_string(evidence.token_id);
  error_detail::unknown_field(area, field);
}

std::vector<TokenId> bytes_to_tokens(std::span<const std::uint8_t> bytes) {
  return {bytes.begin(), bytes.end()};
}

std::vector<TokenId> bytes_to_tokens(std::string_view text) {
  std::vector<TokenId> tokens;
  tokens.reserve(text.size());
  for (char c : text)
    tokens.push_back(static_cast<std::uint8_t>(c));  // the byte, not a signed char
  return tokens;
}

// region: overlapping-pair-counting
std::map<TokenPair, std::size_t> count_adjacent_pairs(
    std::span<const std::vector<TokenId>> sequences) {
  std::map<TokenPair, std::size_t> counts;
  for (const std::vector<TokenId>& sequence : sequences) {   // one document at a time
    for (std::size_t i = 0; i + 1 < sequence.size(); ++i) {  // every position, overlaps included
      ++counts[TokenPair{sequence[i], sequence[i + 1]}];
    }
  }
  return counts;
}

std::optional<std::pair<TokenPair, std::size_t>> choose_most_frequent_pair(
    const std::map<TokenPair, std::size_t>& counts) {
  std::optional<std::pair<TokenPair, std::size_t>> winner;
  // The map iterates in (left, right) order, so replacing the winner only on a
  // strictly larger count keeps the numerically smallest pair among equals.
  for (const auto& [pair, count] : counts) {
    if (!winner || count > winner->second) winner.emplace(pair, count);
  }
  return winner;
}
// endregion: overlapping-pair-counting

// region: non-overlapping-replacement
PairReplacement replace_pair_left_to_right(std::span<const TokenId> sequence, TokenPair pair,
                                           TokenId replacement) {
  PairReplacement result;
  result.tokens.reserve(sequence.size());
  std::size_t i = 0;
  while (i < sequence.size()) {
    if (i + 1 < sequence.size() && sequence[i] == pair.left && sequence[i + 1] == pair.right) {
      result.tokens.push_back(replacement);
      ++result.replacements;
      i += 2;  // both tokens are consumed: the right one cannot start another match
    } else {
      result.tokens.push_back(sequence[i]);
      i += 1;
    }
  }
  return result;
}
// endregion: non-overlapping-replacement

std::optional<std::span<const std::uint8_t>> BpeTraining::token_bytes(TokenId token_id) const {
  if (token_id >= vocabulary_.size()) return std::nullopt;
  return std::span<const std::uint8_t>(vocabulary_[token_id]);
}

// region: merge-rounds
BpeTraining learn_merges(std::size_t max_merges, std::vector<std::string> document_ids,
                         std::vector<std::vector<TokenId>> sequences) {
  // region: learn-merges-validation
  if (max_merges > kMaxMergeCount)
    throw BpeTrainingError(BpeTrainingErrorKind::TooManyMerges,
                           {.requested_merges = max_merges, .max_merges = kMaxMergeCount});
  if (document_ids.size() != sequences.size()) {
    throw BpeTrainingError(
        BpeTrainingErrorKind::DocumentCountMismatch,
        {.document_count = document_ids.size(), .sequence_count = sequences.size()});
  }
  for (std::size_t index = 0; index < sequences.size(); ++index) {
    for (std::size_t position = 0; position < sequences[index].size(); ++position) {
      if (sequences[index][position] >= kByteTokenCount) {
        throw BpeTrainingError(BpeTrainingErrorKind::InitialTokenNotByte,
                               {.sequence_index = index,
                                .position = position,
                                .token_id = sequences[index][position]});
      }
    }
  }
  // endregion: learn-merges-validation
  BpeTraining training;
  training.requested_merges_ = max_merges;
  training.document_ids_ = std::move(document_ids);
  for (unsigned byte = 0; byte < kByteTokenCount; ++byte) {
    training.vocabulary_.push_back({static_cast<std::uint8_t>(byte)});
  }

  for (std::size_t rank = 0; rank < max_merges; ++rank) {
    const auto winner = choose_most_frequent_pair(count_adjacent_pairs(sequences));
    if (!winner) break;  // no sequence has two tokens left
    const auto [pair, candidate_count] = *winner;
    const auto token_id = static_cast<TokenId>(training.vocabulary_.size());  // 256 + rank

    std::vector<std::uint8_t> merged =
        training.vocabulary_[pair.left];  // bytes, not IDs, are joined
    const std::vector<std::uint8_t>& right = training.vocabulary_[pair.right];
    merged.insert(merged.end(), right.begin(), right.end());

    std::size_t replacement_count = 0;
    for (std::vector<TokenId>& sequence : sequences) {
      PairReplacement replaced = replace_pair_left_to_right(sequence, pair, token_id);
      sequence = std::move(replaced.tokens);
      replacement_count += replaced.replacements;
    }
    assert(replacement_count >= 1);  // a counted pair has a leftmost occurrence

    training.vocabulary_.push_back(std::move(merged));
    training.rules_.push_back({rank, pair, token_id, candidate_count, replacement_count});
  }
  training.sequences_ = std::move(sequences);
  return training;
}
// endregion: merge-rounds

// region: deterministic-training
BpeTraining BpeTrainer::train(const CorpusPartitions& partitions) const {
  std::vector<std::string> document_ids;
  std::vector<std::vector<TokenId>> sequences;
  for (const Document& document : partitions.training_documents()) {  // never validation or test
    document_ids.push_back(document.id);
    sequences.push_back(bytes_to_tokens(document.text));
  }
  return learn_merges(max_merges_, std::move(document_ids), std::move(sequences));
}
// endregion: deterministic-training

}  // namespace llm
