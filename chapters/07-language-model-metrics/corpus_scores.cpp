// The chapter 7 corpus fixture: from the committed corpus to one frozen
// bigram model and its boundary evidence.
#include "corpus_scores.hpp"

#include <span>

#include "book_corpus.hpp"
#include "llm/text/bpe_tokenizer.hpp"
#include "llm/text/bpe_trainer.hpp"

namespace ch07 {

// region: frozen-metric-fixture
FrozenMetricFixture frozen_metric_fixture() {
  const llm::CorpusPartitions partitions = book_corpus::partitions();
  const llm::BpeTraining training = llm::BpeTrainer(kRequestedMerges).train(partitions);
  const llm::BpeTokenizer tokenizer = llm::BpeTokenizer::from_training(training);
  llm::EncodedCorpusPartitions encoded =
      llm::EncodedCorpusPartitions::encode(partitions, tokenizer);
  llm::BigramModel model =
      llm::fit_bigram_on_training_partition(tokenizer.vocabulary_size(), kBigramAlpha, encoded);
  return {partitions.corpus_checksum(),
          partitions.strategy(),
          training.requested_merges(),
          training.rules().size(),
          tokenizer.layout().version(),
          tokenizer.vocabulary_size(),
          training.training_document_ids() == partitions.document_ids(llm::Partition::Train),
          std::move(encoded),
          std::move(model)};
}
// endregion: frozen-metric-fixture

// region: boundary-evidence
BoundaryEvidence boundary_evidence(const llm::EncodedCorpusPartitions& encoded) {
  BoundaryEvidence evidence{false, true, false, false};
  for (llm::ScoredPartition scored : llm::kScoredPartitions) {
    evidence.test_selectable |= llm::corpus_partition(scored) == llm::Partition::Test;
    for (const llm::EncodedDocument& document : encoded.documents(llm::corpus_partition(scored))) {
      const std::vector<llm::TokenId>& tokens = document.token_ids;
      evidence.eos_target &= tokens.size() >= 2 && tokens.back() == llm::kEosTokenId;
      for (std::size_t t = 1; t < tokens.size(); ++t) {  // the targets: positions 1 .. n-1
        evidence.bos_target |= tokens[t] == llm::kBosTokenId;
        evidence.cross_document |=
            tokens[t - 1] == llm::kEosTokenId && tokens[t] == llm::kBosTokenId;
      }
    }
  }
  return evidence;
}
// endregion: boundary-evidence

std::vector<DocumentScore> document_scores(const FrozenMetricFixture& fixture) {
  std::vector<DocumentScore> scores;
  for (llm::ScoredPartition scored : llm::kScoredPartitions) {
    for (const llm::EncodedDocument& document :
         fixture.encoded.documents(llm::corpus_partition(scored))) {
      const std::span<const llm::TokenId> one[] = {document.token_ids};
      scores.push_back({document.id, scored, llm::score_bigram_documents(fixture.model, one)});
    }
  }
  return scores;
}

}  // namespace ch07
