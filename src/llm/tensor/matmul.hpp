// Batched matrix product over the last two axes. Taught in chapter 11 and
// used by the tape in chapter 16.
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
/// coordinate b read through each operand's broadcast. Each product and each
/// sum is rounded separately (no fused multiply-add), so the result has
/// exactly the bits of matmul_textbook on every input, on every machine.
/// Operands may have any strides: a transposed view (TensorView::matrix_transpose)
/// is read in place, never copied first. K = 0 gives zeros.
/// Validation order: ranks, inner extents, batch broadcast.
/// @throws TensorError MatMulRank if an operand has rank below two.
/// @throws TensorError MatMulInnerMismatch if the K extents differ.
/// @throws TensorError IncompatibleBroadcast naming both full operand shapes
///         if the batch axes do not broadcast; the axis is counted from the
///         right of the full result, so the first batch axis there is 2.
/// @throws TensorError ShapeOverflow if the result's element count overflows.
/// @throws TensorError AllocationFailed if memory cannot hold the result.
Tensor matmul(const TensorView& left, const TensorView& right);
// endregion: batched-matmul

// region: textbook-matmul-contract
/// The definition matmul() is tested against: the textbook i-j-k loop, one
/// output element at a time, sum = 0.0 then sum += left[m, k] * right[k, n]
/// for k = 0, 1, ..., K-1. Same shapes, errors and bits as matmul(), only
/// slower (chapter 11 measures by how much).
/// @throws TensorError as matmul().
Tensor matmul_textbook(const TensorView& left, const TensorView& right);
// endregion: textbook-matmul-contract

}  // namespace llm
