// Batched matrix product over the last two axes. Taught in chapters 15 and 16.
#pragma once

#include "llm/tensor/tensor.hpp"

namespace llm {

/// The matrix product of the last two axes: left is [..., M, K], right is
/// [..., K, N], the result is [batch..., M, N] where the leading batch axes
/// broadcast under NumPy rules ([B, M, K] times [K, N] gives [B, M, N]).
/// Each output element sums its K products in increasing k order.
/// @throws TensorError MatMulRank if an operand has rank below two.
/// @throws TensorError MatMulInnerMismatch if the K extents differ.
/// @throws TensorError IncompatibleBroadcast if the batch axes do not broadcast.
Tensor matmul(const TensorView& left, const TensorView& right);

}  // namespace llm
