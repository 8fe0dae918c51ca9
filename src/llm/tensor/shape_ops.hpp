// Structural tensor operations: reshape and transpose of two axes.
// Both only move values; neither changes one. Taught in chapter 15.
#pragma once

#include <cstddef>

#include "llm/tensor/tensor.hpp"

namespace llm {

/// The same row-major values with shape `shape`: [S...] -> [R...] with equal
/// element counts. The values are copied in order; no element moves.
/// @throws TensorError ShapeOverflow if `shape`'s element count overflows.
/// @throws TensorError ReshapeCountMismatch (shape() is the source shape,
///         other_shape() is `shape`) if the element counts differ.
Tensor reshape(const TensorView& source, const Shape& shape);

// region: transpose
/// Swaps axes `axis_a` and `axis_b`: output[..., j, ..., i, ...] = source[..., i, ..., j, ...],
/// so [2, 3, 4] with axes 0 and 2 gives [4, 3, 2]. Swapping an axis with
/// itself copies the tensor, and transposing twice gives the source back.
/// @throws TensorError InvalidAxis naming the first axis that is not below the rank.
Tensor transpose(const TensorView& source, std::size_t axis_a, std::size_t axis_b);
// endregion: transpose

/// Transposes the last two axes: [..., M, K] -> [..., K, M]. The matrix
/// product's VJPs use it (dA = dC B^T, dB = A^T dC). Taught in chapter 16.
/// @throws TensorError InvalidAxis naming axis 1 if the rank is below two
///         (a matrix needs axes 0 and 1).
Tensor matrix_transpose(const TensorView& source);

}  // namespace llm
