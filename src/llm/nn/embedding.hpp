// A token embedding: a trainable [V, D] table whose forward pass selects one
// row per token ID. Taught in chapter 18.
//
// The forward pass is chapter 16's checked row gather (TensorValue::gather_rows):
// IDs [B, T] give [B, T, D], an ID >= V is rejected before anything is
// recorded, and the gradient adds each output row's adjoint into the row its
// ID chose, so a repeated ID accumulates and an unused row stays zero. The
// result equals multiplying one-hot rows by the table, without building them.
#pragma once

#include <cstddef>
#include <span>

#include "llm/autograd/tensor_value.hpp"
#include "llm/nn/init.hpp"
#include "llm/nn/layer_error.hpp"
#include "llm/nn/parameter_set.hpp"

namespace llm {

// region: embedding-class
/// A token table [V, D]: V vocabulary rows of D features each. Copies share
/// the table (the same tape parameter).
class Embedding {
 public:
  /// Wraps an existing parameter as the table.
  /// @throws LayerError NotAParameter, TableRank, EmptyVocabulary,
  ///         ZeroEmbeddingWidth, in that order.
  explicit Embedding(TensorValue table);

  /// A new [vocabulary_size, width] table drawn by xavier_uniform with
  /// fan-in V and fan-out D (chapter 17's convention for tables). The
  /// generator advances by V * D draws only on success.
  /// @throws LayerError EmptyVocabulary, ZeroEmbeddingWidth; ParameterError
  ///         FanSumOverflow, ShapeProductOverflow; TensorError AllocationFailed.
  static Embedding initialized(std::size_t vocabulary_size, std::size_t width,
                               SplitMix64& generator);

  /// The rows the IDs select, laid out as `id_shape` + [D]: IDs [B, T] give
  /// [B, T, D]; `ids` (std::size_t or the tokenizer's TokenId, read without a
  /// conversion copy) is row-major, with element_count(id_shape) entries; an
  /// empty list with id_shape [0] gives [0, D]. Tracked: the gradient
  /// scatter-adds into the table's rows.
  /// @throws ModelOpError GatherIndexCountMismatch, GatherIndexOutOfBounds
  ///         (the first ID >= V in flat order); TensorError ShapeOverflow.
  TensorValue forward(IndexSpan ids, const Shape& id_shape) const;

  /// The table [V, D].
  const TensorValue& table() const noexcept { return table_; }
  /// V: the number of rows, one per token ID.
  std::size_t vocabulary_size() const noexcept { return vocabulary_size_; }
  /// D: the number of features per row.
  std::size_t width() const noexcept { return width_; }
  /// The layer's one parameter, named `weight`; a model adds it under its
  /// prefix (`token_embedding.weight`).
  ParameterSet parameters() const;

 private:
  TensorValue table_;
  std::size_t vocabulary_size_ = 0;
  std::size_t width_ = 0;
};
// endregion: embedding-class

}  // namespace llm
