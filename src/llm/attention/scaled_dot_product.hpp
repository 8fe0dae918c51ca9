// Scaled dot-product attention (Vaswani et al., 2017), unmasked (chapter 27)
// or causal (chapter 28):
//
//     A = softmax(Q K^T / sqrt(Dk))        O = A V
//
// Every query scores every key it may see, one row of A turns those scores
// into weights that sum to 1, and the output of a position is that weighted
// mixture of value rows. The division by sqrt(Dk) keeps the scores' spread
// from growing with the width, so the softmax does not saturate.
#pragma once

#include "llm/attention/attention_error.hpp"
#include "llm/autograd/tensor_value.hpp"

namespace llm {

/// Which keys a query may attend to (an option, not a bool).
enum class Masking {
  None,    ///< every key (chapter 27)
  Causal,  ///< query i of Tq sees keys 0 .. (Tk - Tq) + i (chapter 28)
};

/// Every node of one attention pass, for the chapters' demos and figures.
struct AttentionPass {
  TensorValue scores;         ///< Q K^T [..., Tq, Tk]: one dot product per (query, key)
  TensorValue scaled_scores;  ///< Q K^T / sqrt(Dk)
  TensorValue weights;  ///< softmax along the key axis [..., Tq, Tk]; masked entries exactly 0
  TensorValue output;   ///< weights V [..., Tq, Dv]
  double scale = 0.0;   ///< 1 / sqrt(Dk)
};

// region: scaled-dot-product-declaration
/// Scaled dot-product attention of query [..., Tq, Dk], key [..., Tk, Dk] and
/// value [..., Tk, Dv], all three of one rank (at least 3) and the same
/// leading (batch) axes: [B, T, D] for one head, [B, H, T, Dh] for heads.
/// K^T is a strided view, not a copy. The scale is the constant
/// 1 / sqrt(Dk) (scale(), no gradient to it); the weights are softmax()
/// (Masking::None) or causal_softmax() (Masking::Causal), which allows
/// Tq < Tk for a block of new queries against cached keys (chapters 37-38).
/// Gradients flow to query, key and value through the operations' VJPs.
/// @throws AttentionError OperandRank (query, key, value in turn),
///         BatchMismatch, KeyValueTokenMismatch, EmptyKeys, ZeroFeatureWidth
///         (query, then value), QueryKeyWidthMismatch, then for Masking::Causal
///         MoreQueriesThanKeys; in that order.
AttentionPass scaled_dot_product_attention(const TensorValue& query, const TensorValue& key,
                                           const TensorValue& value, Masking masking);
// endregion: scaled-dot-product-declaration

}  // namespace llm
