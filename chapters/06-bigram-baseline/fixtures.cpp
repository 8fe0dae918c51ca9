// The chapter 6 fixture: two wrapped training documents, the fitted bigram
// model, and what joining the documents would add to its table.
#include "fixtures.hpp"

namespace ch06 {

// region: wrapped-training-fixture
std::vector<std::vector<llm::TokenId>> training_documents() {
  return {
      {kBos, kA, kA, kB, kEos},  // d1
      {kBos, kA, kB, kEos},      // d2
  };
}

llm::BigramModel fitted_model() {
  return llm::BigramModel::fit(kSymbols.size(), kAlpha, training_documents());
}
// endregion: wrapped-training-fixture

std::vector<llm::TokenId> joined(const std::vector<std::vector<llm::TokenId>>& documents) {
  std::vector<llm::TokenId> sequence;
  for (const std::vector<llm::TokenId>& document : documents) {
    sequence.insert(sequence.end(), document.begin(), document.end());
  }
  return sequence;
}

// region: joined-documents-contrast
std::vector<Transition> transitions_invented_by_joining(
    const std::vector<std::vector<llm::TokenId>>& documents) {
  const std::size_t vocabulary = kSymbols.size();
  const llm::BigramModel separate = llm::BigramModel::fit(vocabulary, kAlpha, documents);
  const std::vector<std::vector<llm::TokenId>> one_sequence = {joined(documents)};
  const llm::BigramModel together = llm::BigramModel::fit(vocabulary, kAlpha, one_sequence);
  std::vector<Transition> invented;
  for (llm::TokenId from = 0; from < vocabulary; ++from) {
    for (llm::TokenId to = 0; to < vocabulary; ++to) {
      if (together.count(from, to) != separate.count(from, to)) {
        invented.push_back({from, to, separate.count(from, to), together.count(from, to)});
      }
    }
  }
  return invented;
}
// endregion: joined-documents-contrast

}  // namespace ch06
