// The pre-norm decoder block (chapter 31): two residual branches, each reading
// a normalized copy of the stream and adding its result back.
//
//     h = x + Attention(RMSNorm_1(x))        causal multi-head, RoPE
//     y = h + SwiGLU(RMSNorm_2(h))
//
// The residual stream x -> h -> y is never normalized itself, so a stack of
// blocks keeps an identity path from its input to its output (Xiong et al.,
// 2020, on pre- versus post-norm). Every step reads one position's features
// or, in attention, only earlier positions: the block is causal.
#pragma once

#include <cstddef>

#include "llm/attention/multi_head_attention.hpp"
#include "llm/autograd/tensor_value.hpp"
#include "llm/models/decoder_error.hpp"
#include "llm/nn/init.hpp"
#include "llm/nn/parameter_set.hpp"
#include "llm/nn/rms_norm.hpp"
#include "llm/nn/swiglu.hpp"

namespace llm {

// region: decoder-block-config
/// The sizes and constants of one block (and of every block of a decoder).
struct DecoderBlockConfig {
  std::size_t model_width = 0;         ///< D, the width of the residual stream
  std::size_t heads = 0;               ///< H; D / H must be even (RoPE pairs)
  std::size_t feed_forward_width = 0;  ///< the SwiGLU hidden width
  std::size_t context = 0;             ///< positions the rotary tables hold (T <= context)
  double rope_base = 10000.0;          ///< RoPE's base (RoFormer's value)
  double epsilon = 1e-6;               ///< RMSNorm's epsilon (the reference edition's chapter 32)

  /// D / H (precondition: heads > 0).
  std::size_t head_width() const noexcept { return model_width / heads; }
  /// Checks every field, in the order of the declaration.
  /// @throws DecoderError ZeroModelWidth, ZeroHeads, WidthNotDivisible,
  ///         OddHeadWidth, ZeroFeedForwardWidth, ZeroContext,
  ///         InvalidRopeBase, InvalidEpsilon.
  void validate() const;
};
// endregion: decoder-block-config

/// Every node of one block pass, for chapter 31's demo and figures.
struct DecoderBlockPass {
  TensorValue attention_norm;        ///< RMSNorm_1(x) [B, T, D]
  MultiHeadAttentionPass attention;  ///< the attention branch; its output [B, T, D]
  TensorValue after_attention;       ///< h = x + attention [B, T, D]
  TensorValue feed_forward_norm;     ///< RMSNorm_2(h) [B, T, D]
  SwiGluPass feed_forward;           ///< the feed-forward branch; its output [B, T, D]
  TensorValue output;                ///< y = h + feed-forward [B, T, D]
};

// region: decoder-block-class
/// RMSNorm, causal multi-head attention, RMSNorm, SwiGLU, and two residual
/// additions. Copies share the parameters.
class DecoderBlock {
 public:
  /// Assembles existing parts that agree on the model width.
  /// @throws DecoderError ComponentMismatch naming the first part whose width
  ///         differs from the attention's D (attention norm, feed-forward
  ///         norm, feed-forward input, feed-forward output).
  DecoderBlock(RmsNorm attention_norm, MultiHeadAttention attention, RmsNorm feed_forward_norm,
               SwiGlu feed_forward);

  /// A new block: gains of ones, then weights drawn in the order attention
  /// (query, key, value, output) and feed-forward (gate, up, down). On any
  /// throw the generator is unchanged.
  /// @throws DecoderError as DecoderBlockConfig::validate; TensorError AllocationFailed.
  static DecoderBlock initialized(const DecoderBlockConfig& config, SplitMix64& generator);

  /// y for an input [B, T, D] at positions offset .. offset+T-1: [B, T, D].
  /// @throws DecoderError InputRank, InputWidthMismatch; AttentionError
  ///         PositionRange, EmptyKeys (T = 0); DecoderOpError
  ///         RmsNormZeroEnergyRow (epsilon 0 and an all-zero row).
  TensorValue forward(const TensorValue& input, std::size_t position_offset = 0) const;

  /// forward(), keeping every node.
  /// @throws DecoderError as forward(), and the AttentionError and DecoderOpError kinds it names.
  DecoderBlockPass forward_with_intermediates(const TensorValue& input,
                                              std::size_t position_offset = 0) const;

  /// RMSNorm before attention.
  const RmsNorm& attention_norm() const noexcept { return attention_norm_; }
  /// The causal multi-head attention.
  const MultiHeadAttention& attention() const noexcept { return attention_; }
  /// RMSNorm before the feed-forward block.
  const RmsNorm& feed_forward_norm() const noexcept { return feed_forward_norm_; }
  /// The SwiGLU feed-forward block.
  const SwiGlu& feed_forward() const noexcept { return feed_forward_; }
  /// D.
  std::size_t model_width() const noexcept { return attention_.model_width(); }
  /// 2 D + 4 D^2 + 3 D F for a feed-forward width F.
  std::size_t parameter_count() const noexcept;
  /// `attention_norm.gain`, then `query.weight`, `key.weight`, `value.weight`
  /// and `output.weight` under `attention`, `ffn_norm.gain`, then
  /// `gate.weight`, `up.weight` and `down.weight` under `ffn`, in that order;
  /// a model adds them under its prefix (`blocks.0`).
  ParameterSet parameters() const;

 private:
  RmsNorm attention_norm_;
  MultiHeadAttention attention_;
  RmsNorm feed_forward_norm_;
  SwiGlu feed_forward_;
};
// endregion: decoder-block-class

}  // namespace llm
