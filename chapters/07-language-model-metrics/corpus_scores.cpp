// The chapter 7 corpus fixture: from the committed corpus to one frozen
// bigram model and its boundary evidence.
#include "corpus_scores.hpp"

#include <cstdio>
#include <set>
#include <span>

#include "book_corpus.hpp"
#include "llm/text/bpe_tokenizer.hpp"
#include "llm/text/bpe_trainer.hpp"
#include "llm/text/text_units.hpp"

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
          tokenizer,
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

std::pair<std::string, std::size_t> visible_text(std::span<const std::uint8_t> bytes) {
  std::string text;
  std::size_t escaped = 0;
  const auto escape = [&](std::uint8_t byte) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\x%02x", byte);
    text += hex;
    ++escaped;
  };
  std::size_t offset = 0;
  while (offset < bytes.size()) {
    const std::size_t valid = llm::utf8_valid_prefix_length(bytes.subspan(offset));
    if (valid == 0) {  // this byte starts no well-formed sequence
      escape(bytes[offset++]);
      continue;
    }
    const std::string run(bytes.begin() + offset, bytes.begin() + offset + valid);
    for (char32_t scalar : llm::unicode_scalars(run)) {
      const std::string encoded = llm::scalar_utf8(scalar);
      const bool control = scalar < 0x20 || (scalar >= 0x7F && scalar <= 0x9F);
      if (scalar == U'\\') {
        text += "\\\\";
      } else if (control) {
        for (char byte : encoded) escape(static_cast<std::uint8_t>(byte));
      } else {
        text += encoded;
      }
    }
    offset += valid;
  }
  return {text, escaped};
}

namespace {

// Seeded text from one model, decoded for the page.
std::vector<Sample> samples_of(const llm::BigramModel& model, const llm::BpeTokenizer& tokenizer) {
  std::vector<Sample> samples;
  for (const std::uint64_t seed : kSampleSeeds) {
    llm::SplitMix64 generator(seed);
    std::vector<llm::TokenId> tokens = llm::sample_bigram_sequence(
        model, llm::kBosTokenId, llm::kEosTokenId, kSampleTokens, generator);
    const bool stopped = !tokens.empty() && tokens.back() == llm::kEosTokenId;
    const std::span<const llm::TokenId> content(tokens.data(), tokens.size() - (stopped ? 1 : 0));
    auto [visible, escaped] = visible_text(tokenizer.decode_content(content));
    std::size_t unseen = 0;
    llm::TokenId previous = llm::kBosTokenId;
    for (const llm::TokenId token : tokens) {
      unseen += model.count(previous, token) == 0 ? 1 : 0;
      previous = token;
    }
    samples.push_back(
        {seed, std::move(tokens), visible + (stopped ? "<EOS>" : ""), escaped, unseen});
  }
  return samples;
}

}  // namespace

// region: baseline-evidence
BaselineEvidence baseline_evidence(const FrozenMetricFixture& fixture) {
  const llm::EncodedCorpusPartitions& encoded = fixture.encoded;
  llm::BigramBaseline baseline = llm::select_bigram_baseline(fixture.vocabulary_size, encoded);
  // The one reading of the test documents in Part I: alpha is already fixed,
  // and nothing is chosen from this number.
  const std::vector<llm::EncodedDocument>& test_documents = encoded.documents(llm::Partition::Test);
  const llm::LanguageModelMetrics test =
      llm::score_bigram_documents(baseline.model, llm::document_token_views(test_documents));

  std::set<llm::TokenId> seen;
  for (const llm::EncodedDocument& document : encoded.documents(llm::Partition::Train)) {
    seen.insert(document.token_ids.begin(), document.token_ids.end());
  }
  // Add-one gives each row V pseudocounts: the share of a visited row that is
  // pseudocount, averaged over the validation targets.
  const llm::BigramModel& add_one = fixture.model;
  const double pseudo = add_one.alpha() * static_cast<double>(add_one.vocabulary_size());
  double share = 0.0;
  std::size_t targets = 0;
  for (const llm::EncodedDocument& document : encoded.documents(llm::Partition::Validation)) {
    for (std::size_t t = 1; t < document.token_ids.size(); ++t, ++targets) {
      share += pseudo / add_one.smoothing_denominator(document.token_ids[t - 1]);
    }
  }
  std::vector<Sample> add_one_samples = samples_of(add_one, fixture.tokenizer);
  std::vector<Sample> tuned_samples = samples_of(baseline.model, fixture.tokenizer);
  return {std::move(baseline),
          test,
          test_documents.size(),
          seen.size(),
          share / static_cast<double>(targets),
          std::move(add_one_samples),
          std::move(tuned_samples)};
}
// endregion: baseline-evidence

}  // namespace ch07
