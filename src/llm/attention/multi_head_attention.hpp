// Causal multi-head self-attention with rotary positions (chapter 30):
//
//     Q, K, V = X W_Q, X W_K, X W_V               [B, T, D] each
//     split each into H heads                      [B, H, T, Dh], Dh = D / H
//     rotate the query and key heads (RoPE) at positions offset .. offset+T-1
//     O_h = causal_softmax(Q_h K_h^T / sqrt(Dh)) V_h, in every head at once
//     Y = merge(O) W_O                             [B, T, D]
//
// Each head attends over its own Dh features with its own causal weights;
// only W_O mixes what the heads found. Bias-free throughout.
//
// The steps are public so that a key/value cache (chapters 37-38) can reuse
// them: project_heads() gives the new tokens' rotated query and key heads and
// their value heads; the cache appends the key and value heads to its own;
// scaled_dot_product_attention(query, all keys, all values, Masking::Causal)
// accepts fewer queries than keys; combine_heads() merges and projects.
#pragma once

#include <cstddef>

#include "llm/attention/attention_error.hpp"
#include "llm/attention/qkv_projections.hpp"
#include "llm/attention/scaled_dot_product.hpp"
#include "llm/autograd/rotary.hpp"
#include "llm/autograd/tensor_value.hpp"
#include "llm/nn/init.hpp"
#include "llm/nn/linear.hpp"
#include "llm/nn/parameter_set.hpp"

namespace llm {

/// The per-head projections of one block of tokens, ready to attend.
struct HeadProjections {
  TensorValue query;  ///< rotated query heads [B, H, T, Dh]
  TensorValue key;    ///< rotated key heads [B, H, T, Dh]
  TensorValue value;  ///< value heads [B, H, T, Dh] (values are not rotated)
};

/// Every node of one multi-head pass, for chapter 30's demo and figures.
struct MultiHeadAttentionPass {
  QkvPass projected;                ///< Q, K, V before the split [B, T, D]
  TensorValue query_heads;          ///< split Q [B, H, T, Dh]
  TensorValue key_heads;            ///< split K [B, H, T, Dh]
  TensorValue value_heads;          ///< split V [B, H, T, Dh]
  TensorValue rotated_query_heads;  ///< RoPE(Q) [B, H, T, Dh]
  TensorValue rotated_key_heads;    ///< RoPE(K) [B, H, T, Dh]
  AttentionPass attention;          ///< weights [B, H, T, T], head outputs [B, H, T, Dh]
  TensorValue merged;               ///< the heads side by side [B, T, D]
  TensorValue output;               ///< merged W_O [B, T, D]
};

// region: multi-head-attention-class
/// Q/K/V and output projections [D, D], H heads of width D / H, and the
/// rotary table of the head width. Copies share the weights and the table.
class MultiHeadAttention {
 public:
  /// Assembles existing parts.
  /// @throws AttentionError ZeroHeads, ProjectionNotSquare,
  ///         WidthNotDivisible, OddHeadWidth, ProjectionBias (output),
  ///         OutputProjectionShape, SharedProjectionWeight (output),
  ///         RotaryWidthMismatch, in that order.
  MultiHeadAttention(QkvProjections projections, Linear output, std::size_t heads,
                     RotaryTable rotary);

  /// A new layer: a rotary table of width D / H for `context` positions,
  /// then Xavier-uniform weights drawn in the order query, key, value,
  /// output (D * D draws each). On any throw the generator is unchanged.
  /// @throws AttentionError ZeroModelWidth, ZeroHeads, WidthNotDivisible,
  ///         OddHeadWidth; DecoderOpError RotaryZeroCapacity,
  ///         RotaryInvalidBase, RotaryNonFiniteTable; TensorError AllocationFailed.
  static MultiHeadAttention initialized(std::size_t model_width, std::size_t heads,
                                        std::size_t context, double rope_base,
                                        SplitMix64& generator);

  /// Causal attention of an input [B, T, D] whose tokens sit at positions
  /// offset .. offset+T-1: [B, T, D].
  /// @throws AttentionError InputRank, InputWidthMismatch, PositionRange,
  ///         EmptyKeys (T = 0).
  TensorValue forward(const TensorValue& input, std::size_t position_offset = 0) const;

  /// forward(), keeping every node.
  /// @throws AttentionError as forward().
  MultiHeadAttentionPass forward_with_intermediates(const TensorValue& input,
                                                    std::size_t position_offset = 0) const;

  /// The first half of forward(): Q, K, V of an input [B, T, D] split into
  /// heads, the query and key heads rotated at positions offset .. offset+T-1.
  /// @throws AttentionError InputRank, InputWidthMismatch, PositionRange.
  HeadProjections project_heads(const TensorValue& input, std::size_t position_offset) const;

  /// The last step of forward(): head outputs [B, H, T, Dh] merged to
  /// [B, T, D] and projected by W_O.
  /// @throws AttentionError MergeRank; LayerError InputWidthMismatch if H * Dh != D.
  TensorValue combine_heads(const TensorValue& head_outputs) const;

  /// The Q/K/V projections, each [D, D].
  const QkvProjections& projections() const noexcept { return projections_; }
  /// The output projection W_O [D, D].
  const Linear& output() const noexcept { return output_; }
  /// The rotary table of the head width.
  const RotaryTable& rotary() const noexcept { return rotary_; }
  /// H, the number of heads.
  std::size_t heads() const noexcept { return heads_; }
  /// D, the model width.
  std::size_t model_width() const noexcept { return projections_.model_width(); }
  /// Dh = D / H.
  std::size_t head_width() const noexcept { return model_width() / heads_; }
  /// The positions the rotary table holds: offset + T may not exceed it.
  std::size_t context() const noexcept { return rotary_.capacity(); }
  /// 4 * D * D.
  std::size_t parameter_count() const noexcept;
  /// `query.weight`, `key.weight`, `value.weight`, `output.weight`; a model
  /// adds them under its prefix (`blocks.0.attention`).
  ParameterSet parameters() const;

 private:
  QkvProjections projections_;
  Linear output_;
  std::size_t heads_ = 0;
  RotaryTable rotary_;
};
// endregion: multi-head-attention-class

}  // namespace llm
