// A fixed-context neural language model, the neural n-gram: the T tokens
// before a position are looked up in one embedding table, their rows are
// laid side by side, a SwiGLU block turns them into a hidden vector and a
// bias-free projection turns that into one logit per vocabulary entry.
// Taught in chapter 23.
//
//     ids [B, T] -> embeddings [B, T, D] -> concatenated [B, T*D]
//                -> hidden [B, H] -> logits [B, V]
//
// Every piece is a layer of Part IV (chapters 18-20) and every parameter is
// a named tape parameter, so chapter 22's AdamW trains the model without
// knowing what it is. The loss over chapter 21's mini-batches lives with the
// batches, in llm/training/neural_ngram_loss.hpp: a model does not include
// the training area above it.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "llm/autograd/tensor_value.hpp"
#include "llm/error.hpp"
#include "llm/nn/embedding.hpp"
#include "llm/nn/init.hpp"
#include "llm/nn/linear.hpp"
#include "llm/nn/parameter_set.hpp"
#include "llm/nn/swiglu.hpp"
#include "llm/tensor/shape.hpp"
#include "llm/text/bpe_trainer.hpp"  // llm::TokenId

namespace llm {

// region: neural-ngram-error-kinds
/// What the neural n-gram rejected: a configuration, a set of layers, a
/// batch, a target or a generation mask.
enum class NeuralNgramErrorKind {
  EmptyVocabulary,        ///< V = 0
  ZeroContextLength,      ///< T = 0: nothing to predict from
  ZeroEmbeddingWidth,     ///< D = 0
  ZeroHiddenWidth,        ///< H = 0
  SizeOverflow,           ///< T * D, B * T or the parameter count does not fit in size_t
  PartShapeMismatch,      ///< a layer handed to the constructor has the wrong shape
  OutputBias,             ///< the vocabulary projection has a bias; the model has none
  EmptyBatch,             ///< a forward pass over zero contexts
  ContextCountMismatch,   ///< the IDs are not exactly B * T
  BatchContextMismatch,   ///< a mini-batch's rows are not T tokens long
  TargetOutOfRange,       ///< a target ID is not below V
  MaskedTokenOutOfRange,  ///< greedy selection was asked to mask an ID not below V
  NoUnmaskedToken,        ///< greedy selection masked every ID
};
// endregion: neural-ngram-error-kinds

/// The offending values of a NeuralNgramError; a kind leaves the fields it
/// does not use empty or zero.
struct NeuralNgramErrorEvidence {
  std::string
      part{};  ///< PartShapeMismatch: `embedding`, `ffn.gate`, ...; SizeOverflow: what overflowed
  Shape expected_shape{};           ///< PartShapeMismatch: the shape the configuration implies
  Shape actual_shape{};             ///< PartShapeMismatch: the shape found
  std::size_t expected = 0;         ///< ContextCountMismatch: B * T; BatchContextMismatch: T
  std::size_t actual = 0;           ///< the count or length found
  std::size_t row = 0;              ///< TargetOutOfRange: the batch row
  std::size_t token = 0;            ///< TargetOutOfRange, MaskedTokenOutOfRange: the ID
  std::size_t vocabulary_size = 0;  ///< V, for the out-of-range kinds
};

// region: neural-ngram-error-table
/// The `neural-ngram` area: each kind's stable name and message, in enum order.
struct NeuralNgramErrorTraits {
  using Kind = NeuralNgramErrorKind;                        ///< the area's kinds
  using Evidence = NeuralNgramErrorEvidence;                ///< the offending values
  static constexpr std::string_view area = "neural-ngram";  ///< Error::area()
  /// Each kind's stable name and message, in enum order.
  static constexpr std::array<ErrorKindSpec<Kind>, 13> kinds{{
      {Kind::EmptyVocabulary, "empty-vocabulary", "a neural n-gram needs a vocabulary of V >= 1"},
      {Kind::ZeroContextLength, "zero-context-length",
       "a neural n-gram needs a context of T >= 1 tokens"},
      {Kind::ZeroEmbeddingWidth, "zero-embedding-width",
       "a neural n-gram needs an embedding width D >= 1"},
      {Kind::ZeroHiddenWidth, "zero-hidden-width", "a neural n-gram needs a hidden width H >= 1"},
      {Kind::SizeOverflow, "size-overflow", "the {part} does not fit in size_t"},
      {Kind::PartShapeMismatch, "part-shape-mismatch",
       "the {part} weight must have shape {expected_shape}, got {actual_shape}"},
      {Kind::OutputBias, "output-bias",
       "the vocabulary projection must be bias-free, but it has a bias"},
      {Kind::EmptyBatch, "empty-batch", "a forward pass needs at least one context"},
      {Kind::ContextCountMismatch, "context-count-mismatch",
       "the contexts must hold B * T = {expected} token IDs, got {actual}"},
      {Kind::BatchContextMismatch, "batch-context-mismatch",
       "a mini-batch row must hold the model's T = {expected} tokens, got {actual}"},
      {Kind::TargetOutOfRange, "target-out-of-range",
       "target ID {token} of row {row} is not below the vocabulary size {vocabulary_size}"},
      {Kind::MaskedTokenOutOfRange, "masked-token-out-of-range",
       "masked ID {token} is not below the vocabulary size {vocabulary_size}"},
      {Kind::NoUnmaskedToken, "no-unmasked-token",
       "greedy selection masked all {vocabulary_size} IDs, so none is left to choose"},
  }};
  /// One evidence field as the message prints it.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};
// endregion: neural-ngram-error-table

/// An error of the neural n-gram (area `neural-ngram`), thrown before
/// anything is recorded, drawn or returned: the generator, the parameters
/// and the tape are as before the call.
class NeuralNgramError : public KindedError<NeuralNgramErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw NeuralNgramError(NeuralNgramErrorKind::..., {.field = value});`
  explicit NeuralNgramError(NeuralNgramErrorKind kind, NeuralNgramErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}
};

// region: neural-ngram-config
/// The four widths that fix every shape of the model, checked once (chapter 23).
class NeuralNgramConfig {
 public:
  /// @param vocabulary_size V, the number of token IDs (rows of the table, logits per context)
  /// @param context_length T, the number of preceding tokens one prediction reads
  /// @param embedding_width D, the features per token
  /// @param hidden_width H, the SwiGLU block's inner and output width
  /// @throws NeuralNgramError EmptyVocabulary, ZeroContextLength,
  ///         ZeroEmbeddingWidth, ZeroHiddenWidth, then SizeOverflow (T * D
  ///         or the parameter count), in that order.
  static NeuralNgramConfig create(std::size_t vocabulary_size, std::size_t context_length,
                                  std::size_t embedding_width, std::size_t hidden_width);

  std::size_t vocabulary_size() const noexcept { return vocabulary_size_; }  ///< V
  std::size_t context_length() const noexcept { return context_length_; }    ///< T
  std::size_t embedding_width() const noexcept { return embedding_width_; }  ///< D
  std::size_t hidden_width() const noexcept { return hidden_width_; }        ///< H
  /// T * D: the width of one concatenated context, the SwiGLU block's input.
  std::size_t context_feature_width() const noexcept { return context_length_ * embedding_width_; }
  /// V D + 2 (T D) H + H H + H V: the table, gate and up, down, and the output projection.
  std::size_t parameter_count() const noexcept { return parameter_count_; }

  /// Equal when V, T, D and H are equal.
  bool operator==(const NeuralNgramConfig&) const = default;

 private:
  NeuralNgramConfig() = default;
  std::size_t vocabulary_size_ = 0;
  std::size_t context_length_ = 0;
  std::size_t embedding_width_ = 0;
  std::size_t hidden_width_ = 0;
  std::size_t parameter_count_ = 0;
};
// endregion: neural-ngram-config

/// Every stage of one forward pass, for chapter 23's demo and its figures.
struct NeuralNgramPass {
  TensorValue embeddings;  ///< the looked-up rows [B, T, D]
  TensorValue
      concatenated;    ///< the same values as [B, T * D]: row b is E[z_{b,0}], ..., E[z_{b,T-1}]
  TensorValue hidden;  ///< SwiGLU of the concatenated row [B, H]
  TensorValue logits;  ///< hidden times the output weight [B, V]
};

// region: neural-ngram-class
/// A fixed-context neural language model (chapter 23). Copies share the
/// parameters.
class NeuralNgram {
 public:
  /// A new model whose five matrices are drawn by Xavier-uniform from
  /// `generator` in this order: the embedding table [V, D], the SwiGLU gate
  /// and up [T D, H] and down [H, H], the output projection [H, V]. On any
  /// throw the generator is unchanged.
  /// @throws ParameterError FanSumOverflow, ShapeProductOverflow (an absurd width).
  /// @throws TensorError AllocationFailed.
  static NeuralNgram initialized(const NeuralNgramConfig& config, SplitMix64& generator);

  /// A model assembled from existing layers (known weights in tests).
  /// @throws NeuralNgramError PartShapeMismatch (embedding, ffn.gate,
  ///         ffn.up, ffn.down, output, in that order), then OutputBias.
  NeuralNgram(const NeuralNgramConfig& config, Embedding embedding, SwiGlu feed_forward,
              Linear output);

  /// Every stage for B contexts: `context_ids` is row-major [B, T], row b
  /// the T tokens before the position it predicts, oldest first.
  /// Tracked: a loss built on the logits reaches every parameter.
  /// @throws NeuralNgramError EmptyBatch, SizeOverflow (B * T), ContextCountMismatch.
  /// @throws ModelOpError GatherIndexOutOfBounds for a context ID not below V.
  NeuralNgramPass forward(std::span<const TokenId> context_ids, std::size_t batch_size) const;

  /// The ID with the largest logit after `context` ([T] IDs), skipping the
  /// IDs in `masked`; of equal logits the lower ID wins. Records no graph.
  /// @throws NeuralNgramError MaskedTokenOutOfRange, then as forward(), then NoUnmaskedToken.
  TokenId greedy_next(std::span<const TokenId> context, std::span<const TokenId> masked) const;

  /// The four widths the model was built with.
  const NeuralNgramConfig& config() const noexcept { return config_; }
  /// The token table E [V, D].
  const Embedding& embedding() const noexcept { return embedding_; }
  /// The SwiGLU block from T D features to H.
  const SwiGlu& feed_forward() const noexcept { return feed_forward_; }
  /// The bias-free projection W_o [H, V].
  const Linear& output() const noexcept { return output_; }
  /// The five parameters, in initialization order: `ngram.embedding.weight`,
  /// `ngram.ffn.gate.weight`, `ngram.ffn.up.weight`, `ngram.ffn.down.weight`,
  /// `ngram.output.weight`. The handles are the layers' own nodes, so an
  /// optimizer step through the set is seen by the next forward pass.
  ParameterSet parameters() const;

 private:
  NeuralNgramConfig config_;
  Embedding embedding_;
  SwiGlu feed_forward_;
  Linear output_;
};
// endregion: neural-ngram-class

}  // namespace llm
