// A small trainable language model for the training-loop and resume tests:
// a token embedding [V, D] and a bias-free projection [D, V] to next-token
// logits, trained on the mean NLL. It stands in for chapter 32's decoder,
// which reaches the loop through the same TrainableModel.
#pragma once

#include <cstddef>
#include <vector>

#include "llm/nn/embedding.hpp"
#include "llm/nn/linear.hpp"
#include "llm/text/corpus.hpp"
#include "llm/training/mini_batches.hpp"
#include "llm/training/trainer.hpp"

namespace llm::testing {

struct TinyLanguageModel {
  Embedding embedding;
  Linear projection;
  ParameterSet parameters;

  static TinyLanguageModel initialized(std::size_t vocabulary, std::size_t width,
                                       std::uint64_t seed) {
    SplitMix64 generator(seed);
    Embedding embedding = Embedding::initialized(vocabulary, width, generator);
    Linear projection = Linear::initialized(width, vocabulary, Bias::No, generator);
    ParameterSet parameters;
    parameters.add_all("token_embedding", embedding.parameters());
    parameters.add_all("projection", projection.parameters());
    return TinyLanguageModel{embedding, projection, parameters};
  }

  /// Next-token logits [B, T, V] for ids laid out as [B, T].
  TensorValue logits(std::span<const TokenId> ids, std::size_t rows) const {
    const std::vector<std::size_t> indices(ids.begin(), ids.end());
    return projection.forward(embedding.forward(indices, Shape{rows, ids.size() / rows}));
  }

  TrainableModel trainable(std::size_t context) const {
    const TinyLanguageModel copy = *this;  // shares the parameters
    return TrainableModel{
        parameters,
        [copy](const MiniBatch& batch) {
          const std::vector<std::size_t> targets(batch.targets().begin(), batch.targets().end());
          return copy.logits(batch.inputs(), batch.width()).indexed_mean_nll(2, targets);
        },
        embedding.vocabulary_size(), context};
  }
};

/// An epoch of windows of two tokens from `documents` of `partition`.
inline MiniBatchEpoch epoch_of(Partition partition,
                               const std::vector<std::vector<TokenId>>& documents,
                               std::size_t batch_size, BatchOrder order) {
  static const std::vector<std::string> names = {"doc-a", "doc-b", "doc-c", "doc-d"};
  std::vector<BatchDocument> batch_documents;
  for (std::size_t i = 0; i < documents.size(); ++i) {
    batch_documents.push_back(BatchDocument{names[i], partition, documents[i]});
  }
  return MiniBatchEpoch::build(partition, batch_documents, CausalWindowConfig::create(2, 1),
                               MiniBatchConfig::create(batch_size, order));
}

}  // namespace llm::testing
