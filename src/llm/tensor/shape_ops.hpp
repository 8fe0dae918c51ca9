// Structural tensor operations: reshape and transpose of two axes.
// Both only move values; neither changes one. Taught in chapter 15.
#pragma once

#include <cstddef>

#include "llm/tensor/tensor.hpp"

namespace llm {

/// The same row-major values with shape `shape`.
/// @throws TensorError ReshapeCountMismatch if the element counts differ.
/// @throws TensorError ShapeOverflow if `shape`'s element count overflows.
Tensor reshape(const TensorView& source, const Shape& shape);

/// Swaps axes `axis_a` and `axis_b`: output[..., j, ..., i, ...] = source[..., i, ..., j, ...].
/// Swapping an axis with itself copies the tensor.
/// @throws TensorError InvalidAxis if either axis is not below the rank.
Tensor transpose(const TensorView& source, std::size_t axis_a, std::size_t axis_b);

}  // namespace llm
