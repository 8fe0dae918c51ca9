// The decoder model (chapter 32): token IDs in, next-token logits out.
//
//     x_0 = E[ids]                            token embedding [B, T, D]
//     x_l = Block_l(x_{l-1}),  l = 1..N       pre-norm decoder blocks
//     z   = RMSNorm(x_N) W_head               logits [B, T, V]
//
// With a tied head W_head = E^T: the embedding table reads tokens in and
// scores them out (Press and Wolf, 2017), so one [V, D] table does both jobs
// and its gradient is the sum of both roles. With an untied head W_head is
// its own [D, V] projection. The loss is the mean negative log-likelihood of
// the next tokens over all B * T positions (chapter 16's indexed_mean_nll).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "llm/autograd/tensor_value.hpp"
#include "llm/models/decoder_block.hpp"
#include "llm/models/decoder_error.hpp"
#include "llm/nn/embedding.hpp"
#include "llm/nn/init.hpp"
#include "llm/nn/linear.hpp"
#include "llm/nn/parameter_set.hpp"
#include "llm/nn/rms_norm.hpp"
#include "llm/tensor/index_span.hpp"

namespace llm {

/// Whether the logits come from the token table (an option, not a bool).
enum class HeadTying {
  Tied,    ///< W_head = E^T: no parameter of its own
  Untied,  ///< W_head is a bias-free [D, V] projection named `head.weight`
};

// region: decoder-config
/// Everything that sizes a decoder.
struct DecoderConfig {
  std::size_t vocabulary_size = 0;   ///< V
  std::size_t layers = 0;            ///< N, the number of blocks (0 is allowed)
  DecoderBlockConfig block{};        ///< D, H, F, context, RoPE base, epsilon of every block
  HeadTying head = HeadTying::Tied;  ///< whether the head reuses the embedding table

  /// Checks the vocabulary, then the block configuration.
  /// @throws DecoderError EmptyVocabulary, then as DecoderBlockConfig::validate.
  void validate() const;
};
// endregion: decoder-config

/// Every node of one decoder pass, for chapter 32's demo and figures.
struct DecoderPass {
  TensorValue embedding;                 ///< x_0 [B, T, D]
  std::vector<DecoderBlockPass> blocks;  ///< one per block; blocks[l].output is x_{l+1}
  TensorValue final_norm;                ///< RMSNorm(x_N) [B, T, D]
  TensorValue logits;                    ///< [B, T, V]
};

// region: decoder-model-class
/// A token embedding, N decoder blocks, a final RMSNorm and a tied or untied
/// head. Copies share the parameters.
class DecoderModel {
 public:
  /// Assembles existing parts that agree with `config`. The parameters are
  /// `token_embedding.weight`, `blocks.<l>.` + each block's names,
  /// `final_norm.gain` and, untied, `head.weight`, in that order.
  /// @throws DecoderError as DecoderConfig::validate, then ComponentMismatch
  ///         (embedding V and D; per block: width, heads, feed-forward width,
  ///         context), ConstantMismatch (per block: RoPE base, both epsilons),
  ///         LayerCountMismatch, ComponentMismatch or ConstantMismatch (final
  ///         norm), HeadTyingMismatch, HeadShapeMismatch; ParameterError
  ///         SharedParameter if one parameter appears in two places.
  DecoderModel(DecoderConfig config, Embedding embedding, std::vector<DecoderBlock> blocks,
               RmsNorm final_norm, std::optional<Linear> head = std::nullopt);

  /// A new model drawn from `generator` in the order token embedding
  /// (V * D draws, Xavier-uniform), blocks 0 .. N-1 (each as
  /// DecoderBlock::initialized), then, untied, the head (D * V draws).
  /// Gains are ones. On any throw the generator is unchanged.
  /// @throws DecoderError as DecoderConfig::validate; TensorError AllocationFailed.
  static DecoderModel initialized(const DecoderConfig& config, SplitMix64& generator);

  /// Logits [B, T, V] for token IDs laid out as `id_shape` = [B, T]
  /// (std::size_t or TokenId, read without a copy), positions 0 .. T-1.
  /// @throws DecoderError TokenRank, EmptyBatch, EmptyTokens, ContextExceeded,
  ///         TokenCountMismatch; ModelOpError GatherIndexOutOfBounds (an ID >= V).
  TensorValue forward(IndexSpan ids, const Shape& id_shape) const;

  /// forward(), keeping every node.
  /// @throws DecoderError as forward(), and the AttentionError and DecoderOpError kinds it names.
  DecoderPass forward_with_intermediates(IndexSpan ids, const Shape& id_shape) const;

  /// The mean next-token NLL [] of `targets` (one per position, row-major
  /// [B, T], natural log) under forward(ids, id_shape).
  /// @throws DecoderError as forward(), then TargetCountMismatch,
  ///         TargetOutOfRange; all before anything is computed.
  TensorValue loss(IndexSpan ids, const Shape& id_shape, IndexSpan targets) const;

  /// The configuration the model was built for.
  const DecoderConfig& config() const noexcept { return config_; }
  /// The token embedding E [V, D] (also the head when tied).
  const Embedding& embedding() const noexcept { return embedding_; }
  /// The blocks, in order.
  const std::vector<DecoderBlock>& blocks() const noexcept { return blocks_; }
  /// The final RMSNorm.
  const RmsNorm& final_norm() const noexcept { return final_norm_; }
  /// The untied head [D, V], or nothing when the head is tied.
  const std::optional<Linear>& head() const noexcept { return head_; }
  /// Every parameter, named, in the order of the constructor's docstring.
  const ParameterSet& parameters() const noexcept { return parameters_; }
  /// The number of scalars in parameters() (a tied table counts once).
  std::size_t parameter_count() const noexcept;

 private:
  /// B * T after checking ids and id_shape.
  std::size_t checked_tokens(IndexSpan ids, const Shape& id_shape) const;

  DecoderConfig config_;
  Embedding embedding_;
  std::vector<DecoderBlock> blocks_;
  RmsNorm final_norm_;
  std::optional<Linear> head_;
  ParameterSet parameters_;
};
// endregion: decoder-model-class

}  // namespace llm
