// Elementwise arithmetic with NumPy broadcasting between the two operands.
// Operands may have any strides; results are row-major tensors.
// Taught in chapters 10 and 15.
#pragma once

#include "llm/tensor/tensor.hpp"

namespace llm {

/// left + right, elementwise, in the broadcast shape of the two operands:
/// [2, 1, 3] + [4, 3] -> [2, 4, 3] (see broadcast_shapes).
/// @throws TensorError IncompatibleBroadcast naming both operand shapes.
/// @throws TensorError ShapeOverflow if the broadcast element count overflows.
/// @throws TensorError AllocationFailed if memory cannot hold the result.
Tensor add(const TensorView& left, const TensorView& right);

/// left * right, elementwise, in the broadcast shape of the two operands.
/// A rank-zero operand multiplies every element of the other.
/// @throws TensorError as add.
Tensor mul(const TensorView& left, const TensorView& right);

/// `function` applied to every element; the shape is unchanged, the result row-major.
/// @throws TensorError AllocationFailed if memory cannot hold the result.
Tensor map_values(const TensorView& source, double (*function)(double));

}  // namespace llm
