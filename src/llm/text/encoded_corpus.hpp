// The frozen partitions, encoded: one [BOS, content..., EOS] sequence per
// document, kept with its id and partition. Taught in chapter 5.
//
// Encoding happens document by document with the frozen chapter 4
// tokenizer, so no sequence starts in one document and ends in another, and
// there is deliberately no flattened view of a partition: a caller who wants
// pairs opens windows on one EncodedDocument at a time.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "llm/text/bpe_tokenizer.hpp"
#include "llm/text/causal_windows.hpp"
#include "llm/text/corpus.hpp"

namespace llm {

/// One document's token sequence with its identity.
struct EncodedDocument {
  std::string id;                  ///< the source document's id
  Partition partition;             ///< the partition it was assigned to in chapter 2
  std::vector<TokenId> token_ids;  ///< [BOS, content..., EOS]

  /// Every pair of this document (views into token_ids).
  std::vector<CausalWindow> windows(const CausalWindowConfig& config) const {
    return config.windows(token_ids);
  }
  /// The suffix too short for another pair, if any (a view into token_ids).
  std::optional<IncompleteTail> incomplete_tail(const CausalWindowConfig& config) const {
    return config.incomplete_tail(token_ids);
  }
};

// region: partition-encoding
/// The encoded documents of the three partitions, in corpus order within
/// each. Taught in chapter 5; chapters 6 and 7 fit and score on them.
class EncodedCorpusPartitions {
 public:
  /// Encodes every document of `partitions` on its own with `tokenizer`
  /// (BpeTokenizer::encode_document). Never throws except std::bad_alloc.
  static EncodedCorpusPartitions encode(const CorpusPartitions& partitions,
                                        const BpeTokenizer& tokenizer);

  /// The encoded documents of one partition.
  const std::vector<EncodedDocument>& documents(Partition partition) const;

  /// The total number of pairs over one partition's documents, each counted
  /// on its own: the sum of window_count(document length).
  std::size_t window_count(Partition partition, const CausalWindowConfig& config) const;

  /// The total number of tokens of one partition, BOS and EOS included.
  std::size_t token_count(Partition partition) const;

 private:
  explicit EncodedCorpusPartitions(std::array<std::vector<EncodedDocument>, 3> documents)
      : documents_(std::move(documents)) {}

  std::array<std::vector<EncodedDocument>, 3> documents_;  // indexed by Partition
};
// endregion: partition-encoding

}  // namespace llm
