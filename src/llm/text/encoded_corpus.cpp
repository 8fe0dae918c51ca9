// Per-document encoding of the frozen partitions (chapter 5).
#include "llm/text/encoded_corpus.hpp"

#include <utility>

namespace llm {

// region: encode-partitions
EncodedCorpusPartitions EncodedCorpusPartitions::encode(const CorpusPartitions& partitions,
                                                        const BpeTokenizer& tokenizer) {
  std::array<std::vector<EncodedDocument>, 3> encoded;
  for (Partition partition : kPartitions) {
    for (const Document& document : partitions.documents(partition)) {
      encoded[static_cast<std::size_t>(partition)].push_back(
          {document.id, partition, tokenizer.encode_document(document.text)});  // one at a time
    }
  }
  return EncodedCorpusPartitions(std::move(encoded));
}
// endregion: encode-partitions

const std::vector<EncodedDocument>& EncodedCorpusPartitions::documents(Partition partition) const {
  return documents_[static_cast<std::size_t>(partition)];
}

std::size_t EncodedCorpusPartitions::window_count(Partition partition,
                                                  const CausalWindowConfig& config) const {
  std::size_t total = 0;
  for (const EncodedDocument& document : documents(partition)) {
    total += config.window_count(document.token_ids.size());
  }
  return total;
}

std::size_t EncodedCorpusPartitions::token_count(Partition partition) const {
  std::size_t total = 0;
  for (const EncodedDocument& document : documents(partition)) total += document.token_ids.size();
  return total;
}

}  // namespace llm
