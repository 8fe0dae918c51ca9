// Softmax on the tape, unmasked (chapter 27) and causal (chapter 28), and the
// causal masks as plain tensors.
//
// How a mask is written on this tape (docs/data-model.md, "Masks"): every
// value on the tape is finite, so a mask is never an additive -inf (the tape
// refuses it as a constant, NonFiniteLeaf, and as a result, NonFiniteResult)
// and never a large finite sentinel such as -1e9 (which can leak into a finite
// result). A mask is either
//   - fused into the normalizing operation: causal_softmax() computes each
//     query row over its visible keys only and writes the masked entries as
//     exact zeros, with exactly zero gradient; or
//   - a 0/1 keep mask, a constant multiplied in after the exponential, which
//     composes the same softmax from elementwise operations (the test
//     tests/autograd/softmax_ops_test.cpp compares both, bit for bit).
// causal_additive_mask() exists only to print the textbook 0 / -inf picture.
#pragma once

#include <cstddef>

#include "llm/autograd/decoder_op_error.hpp"
#include "llm/autograd/tensor_value.hpp"
#include "llm/tensor/tensor.hpp"

namespace llm {

// region: softmax-op-names
/// The operation names traces and errors print for softmax() and causal_softmax().
inline constexpr TensorOperation kSoftmax{"softmax"};
inline constexpr TensorOperation kCausalSoftmax{"causal_softmax"};  ///< softmax under a causal mask
// endregion: softmax-op-names

// region: softmax-op-declarations
/// The stable softmax along `axis`, same shape [..., V, ...] (chapter 27):
/// p_c = exp(x_c - m) / Z with m the line's maximum and Z = sum_c exp(x_c - m)
/// added in increasing c from 0.0 (the kernel llm::softmax, so the same bits).
/// The probabilities P are saved. VJP: dx = P * (g - sum_c g_c P_c), the sum
/// taken along `axis` in increasing c from 0.0.
/// @throws TensorError InvalidAxis, EmptyAxis.
TensorValue softmax(const TensorValue& x, std::size_t axis);

/// The causal softmax of scores [..., Tq, Tk] along the key axis (chapter 28):
/// query i (0-based) sees keys 0 .. (Tk - Tq) + i, so with Tq = Tk each query
/// sees itself and the past, and a block of Tq new queries against Tk cached
/// keys (chapters 37-38) sees the whole cache before it. Over the visible keys
/// of each row it computes exactly softmax(): m their maximum,
/// Z = sum exp(s - m) in increasing key order from 0.0, p = exp(s - m) / Z;
/// every masked entry is written as +0.0 and never computed, so nothing
/// non-finite is ever formed. Saves P. VJP over the visible keys:
/// dS = P * (g - sum_visible g P); masked entries receive exactly +0.0.
/// An empty query axis (Tq = 0) gives an empty result.
/// @throws DecoderOpError CausalSoftmaxRank (rank below 2), then
///         CausalMoreQueriesThanKeys (Tq > Tk: a query would see no key).
TensorValue causal_softmax(const TensorValue& scores);
// endregion: softmax-op-declarations

// region: causal-mask-declarations
/// The 0/1 keep mask [Tq, Tk] of causal_softmax(): 1.0 where key k is visible
/// to query i (k <= (Tk - Tq) + i), 0.0 elsewhere. A finite constant for the
/// composed form exp(s - m) * M / sum(exp(s - m) * M) (chapter 28).
/// @throws DecoderOpError CausalMoreQueriesThanKeys.
Tensor causal_keep_mask(std::size_t queries, std::size_t keys);

/// The textbook additive mask [Tq, Tk]: 0.0 where visible, -inf where masked.
/// For printing only: the tape refuses it (TensorValue::constant throws
/// NonFiniteLeaf), which is why masks here are fused or multiplicative.
/// @throws DecoderOpError CausalMoreQueriesThanKeys.
Tensor causal_additive_mask(std::size_t queries, std::size_t keys);

/// The shift m of each causal row: scores [..., Tq, Tk] give [..., Tq, 1],
/// the maximum over the keys query i sees (chapter 28's composed form
/// subtracts it as a constant; the softmax does not depend on the shift, so
/// no gradient needs to flow through it).
/// @throws DecoderOpError CausalSoftmaxRank, CausalMoreQueriesThanKeys.
Tensor causal_row_maximum(const TensorView& scores);
// endregion: causal-mask-declarations

}  // namespace llm
