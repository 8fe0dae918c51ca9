// The chapter 7 bigram scorer: one NLL term per adjacent pair inside each
// document, from the frozen model's add-alpha probabilities.
#include "llm/evaluation/bigram_evaluation.hpp"

namespace llm {

// region: score-bigram-documents
LanguageModelMetrics score_bigram_documents(const BigramModel& model,
                                            std::span<const std::span<const TokenId>> documents) {
  // Check every ID first, so a bad token is reported, with its place, before
  // any work is done.
  for (std::size_t document = 0; document < documents.size(); ++document) {
    for (std::size_t position = 0; position < documents[document].size(); ++position) {
      const TokenId token = documents[document][position];
      if (token >= model.vocabulary_size()) {
        throw BigramError::token_out_of_range_in_document(model.vocabulary_size(), token, document,
                                                          position);
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

}  // namespace llm
