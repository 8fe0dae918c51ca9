// The token embedding (chapter 18): a table parameter and a checked row gather.
#include "llm/nn/embedding.hpp"

#include <utility>

namespace llm {

// region: embedding-construct
Embedding::Embedding(TensorValue table) : table_(std::move(table)) {
  if (!table_.is_parameter())
    throw LayerError(LayerErrorKind::NotAParameter, {.role = "embedding table"});
  const Shape shape = table_.shape();
  if (shape.size() != 2) throw LayerError(LayerErrorKind::TableRank, {.shape = shape});
  if (shape[0] == 0) throw LayerError(LayerErrorKind::EmptyVocabulary, {.shape = shape});
  if (shape[1] == 0) throw LayerError(LayerErrorKind::ZeroEmbeddingWidth, {.shape = shape});
  vocabulary_size_ = shape[0];
  width_ = shape[1];
}

Embedding Embedding::initialized(std::size_t vocabulary_size, std::size_t width,
                                 SplitMix64& generator) {
  if (vocabulary_size == 0)
    throw LayerError(LayerErrorKind::EmptyVocabulary, {.shape = Shape{vocabulary_size, width}});
  if (width == 0)
    throw LayerError(LayerErrorKind::ZeroEmbeddingWidth, {.shape = Shape{vocabulary_size, width}});
  return Embedding(TensorValue::parameter(xavier_uniform(vocabulary_size, width, generator)));
}
// endregion: embedding-construct

// region: embedding-forward
TensorValue Embedding::forward(IndexSpan ids, const Shape& id_shape) const {
  return table_.gather_rows(ids, id_shape);
}
// endregion: embedding-forward

ParameterSet Embedding::parameters() const {
  ParameterSet set;
  set.add("weight", table_);
  return set;
}

}  // namespace llm
