// The chapter 7 bigram scorer: one NLL term per adjacent pair inside each
// document, from the frozen model's add-alpha probabilities or from the same
// table read without context; and the choice of alpha on validation.
#include "llm/evaluation/bigram_evaluation.hpp"

#include <utility>
#include <vector>

namespace llm {

namespace {

// region: score-next-tokens
// The walk both scorers share: every ID is checked first, so a bad token is
// reported with its place before any work is done; then position 0 of each
// document is context only and each later position is one target, scored by
// `probability(context, next)`.
template <class Probability>
LanguageModelMetrics score_next_tokens(const BigramModel& model,
                                       std::span<const std::span<const TokenId>> documents,
                                       Probability probability) {
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
    for (std::size_t t = 1; t < tokens.size(); ++t) {
      accumulator.add(probability(tokens[t - 1], tokens[t]));
    }
  }
  return accumulator.finish();
}
// endregion: score-next-tokens

}  // namespace

// region: score-bigram-documents
LanguageModelMetrics score_bigram_documents(const BigramModel& model,
                                            std::span<const std::span<const TokenId>> documents) {
  return score_next_tokens(model, documents, [&](TokenId context, TokenId next) {
    return model.smoothed_probability(context, next);
  });
}

LanguageModelMetrics score_unigram_documents(const BigramModel& model,
                                             std::span<const std::span<const TokenId>> documents) {
  return score_next_tokens(model, documents, [&](TokenId /*context: ignored*/, TokenId next) {
    return model.unigram_probability(next);
  });
}
// endregion: score-bigram-documents

std::vector<std::span<const TokenId>> document_token_views(
    const std::vector<EncodedDocument>& documents) {
  std::vector<std::span<const TokenId>> views;
  views.reserve(documents.size());
  for (const EncodedDocument& document : documents) views.emplace_back(document.token_ids);
  return views;
}

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
  const auto views = document_token_views(partitions.documents(Partition::Train));
  return BigramModel::fit(vocabulary_size, alpha, views);
}

PartitionScore score_bigram_partition(const BigramModel& model,
                                      const EncodedCorpusPartitions& partitions,
                                      ScoredPartition partition) {
  const std::vector<EncodedDocument>& documents = partitions.documents(corpus_partition(partition));
  return {partition, documents.size(),
          score_bigram_documents(model, document_token_views(documents))};
}
// endregion: bigram-partition-scoring

PartitionScore score_unigram_partition(const BigramModel& model,
                                       const EncodedCorpusPartitions& partitions,
                                       ScoredPartition partition) {
  const std::vector<EncodedDocument>& documents = partitions.documents(corpus_partition(partition));
  return {partition, documents.size(),
          score_unigram_documents(model, document_token_views(documents))};
}

// region: bigram-baseline-selection
BigramBaseline select_bigram_baseline(std::size_t vocabulary_size,
                                      std::span<const std::span<const TokenId>> train,
                                      std::span<const std::span<const TokenId>> validation,
                                      std::span<const double> alphas) {
  if (alphas.empty())
    throw BigramError(BigramErrorKind::EmptyAlphaGrid, {.vocabulary_size = vocabulary_size});
  std::vector<SmoothingCandidate> sweep;
  std::size_t chosen = 0;
  for (const double alpha : alphas) {
    // The counts are the same for every alpha; only their reading changes.
    const BigramModel model = BigramModel::fit(vocabulary_size, alpha, train);
    sweep.push_back({alpha, score_bigram_documents(model, train),
                     score_bigram_documents(model, validation),
                     score_unigram_documents(model, validation)});
    // Strictly lower: on an exact tie the earlier, larger alpha stays.
    if (sweep.back().validation.mean_nll() < sweep[chosen].validation.mean_nll()) {
      chosen = sweep.size() - 1;
    }
  }
  BigramModel model = BigramModel::fit(vocabulary_size, alphas[chosen], train);
  PartitionScore scored{ScoredPartition::Validation, validation.size(),
                        score_bigram_documents(model, validation)};
  return {std::move(model), std::move(sweep), chosen, scored};
}

BigramBaseline select_bigram_baseline(std::size_t vocabulary_size,
                                      const EncodedCorpusPartitions& partitions,
                                      std::span<const double> alphas) {
  const auto train = document_token_views(partitions.documents(Partition::Train));
  const auto validation = document_token_views(partitions.documents(Partition::Validation));
  return select_bigram_baseline(vocabulary_size, train, validation, alphas);
}
// endregion: bigram-baseline-selection

}  // namespace llm
