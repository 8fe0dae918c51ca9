// Batched matrix product over the last two axes. Taught in chapters 15 and 16.
#pragma once

#include "llm/tensor/tensor.hpp"

namespace llm {

// region: batched-matmul
/// The matrix product of the last two axes: left is [..., M, K], right is
/// [..., K, N], the result is [batch..., M, N] where the leading batch axes
/// broadcast under NumPy rules ([B, M, K] times [K, N] gives [B, M, N];
/// [1, M, K] times [B, K, N] gives [B, M, N]).
/// result[b, m, n] = sum_k left[b', m, k] * right[b'', k, n], adding the K
/// products in increasing k order starting from 0.0, with b' and b'' the batch
/// coordinate b read through each operand's broadcast.
/// Validation order: ranks, inner extents, batch broadcast.
/// @throws TensorError MatMulRank if an operand has rank below two.
/// @throws TensorError MatMulInnerMismatch if the K extents differ.
/// @throws TensorError IncompatibleBroadcast naming both full operand shapes
///         if the batch axes do not broadcast; the axis is counted from the
///         right of the full result, so the first batch axis there is 2.
/// @throws TensorError ShapeOverflow if the result's element count overflows.
Tensor matmul(const TensorView& left, const TensorView& right);
// endregion: batched-matmul

}  // namespace llm
