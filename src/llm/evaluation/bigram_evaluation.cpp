// The chapter 7 bigram scorer: one NLL term per adjacent pair inside each
// document, from the frozen model's add-alpha probabilities.
#include "llm/evaluation/bigram_evaluation.hpp"

#include <vector>

namespace llm {

namespace {

// Views of the token IDs of one partition's documents, one per document.
std::vector<std::span<const TokenId>> document_views(
    const std::vector<EncodedDocument>& documents) {
  std::vector<std::span<const TokenId>> views;
  views.reserve(documents.size());
  for (const EncodedDocument& document : documents) views.emplace_back(document.token_ids);
  return views;
}

}  // namespace

// region: score-bigram-documents
LanguageModelMetrics score_bigram_documents(const BigramModel& model,
                                            std::span<const std::span<const TokenId>> documents) {
  // Check every ID first, so a bad token is reported, with its place, before
  // any work is done.
  for (std::size_t document = 0; document < documents.size(); ++document) {
    for (std::size_t position = 0; position < documents[document].size(); ++position) {
      const TokenId token = documents[document][position];
      if (token >= model.vocabulary_size()) {
        throw BigramError(BigramErrorKind::TokenOutOfRange,
                          {.vocabulary_size = model.vocabulary_size(),
                           .token = token,
                           .document = document,
                           .position = position});
      }
    }
  }
  NllAccumulator accumulator;
  for (const std::span<const TokenId> tokens : documents) {
    // Position 0 is context only; each later position is one target.
    for (std::size_t t = 1; t < tokens.size(); ++t) {
      accumulator.add(model.smoothed_probability(tokens[t - 1], tokens[t]));
    }
  }
  return accumulator.finish();
}
// endregion: score-bigram-documents

Partition corpus_partition(ScoredPartition partition) {
  switch (partition) {
    case ScoredPartition::Train:
      return Partition::Train;
    case ScoredPartition::Validation:
      return Partition::Validation;
  }
  return Partition::Validation;  // not reached: every enumerator is handled above
}

std::string_view scored_partition_label(ScoredPartition partition) {
  return partition_label(corpus_partition(partition));
}

// region: bigram-partition-scoring
BigramModel fit_bigram_on_training_partition(std::size_t vocabulary_size, double alpha,
                                             const EncodedCorpusPartitions& partitions) {
  const auto views = document_views(partitions.documents(Partition::Train));
  return BigramModel::fit(vocabulary_size, alpha, views);
}

PartitionScore score_bigram_partition(const BigramModel& model,
                                      const EncodedCorpusPartitions& partitions,
                                      ScoredPartition partition) {
  const std::vector<EncodedDocument>& documents = partitions.documents(corpus_partition(partition));
  const auto views = document_views(documents);
  return {partition, documents.size(), score_bigram_documents(model, views)};
}
// endregion: bigram-partition-scoring

}  // namespace llm
