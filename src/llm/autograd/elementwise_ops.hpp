// Elementwise tape operations that chapter 25 composes RMSNorm from and
// chapter 28 composes a masked softmax from: scale by a constant, subtract,
// divide, and the reciprocal square root. Each is a free function written
// through record_operation() (recorder.hpp), its VJP beside it in
// elementwise_ops.cpp with its one-line rule. Shapes use the legend of
// src/llm/tensor/shape.hpp.
#pragma once

#include "llm/autograd/decoder_op_error.hpp"
#include "llm/autograd/tensor_value.hpp"

namespace llm {

// region: elementwise-op-names
/// The operation names traces and errors print for these operations.
inline constexpr TensorOperation kScale{"scale"};
inline constexpr TensorOperation kSub{"sub"};      ///< a - b
inline constexpr TensorOperation kDiv{"div"};      ///< a / b
inline constexpr TensorOperation kRsqrt{"rsqrt"};  ///< a^(-1/2), as exp(-log(a) / 2)
// endregion: elementwise-op-names

// region: elementwise-op-declarations
/// factor * x elementwise, same shape ([B, T, D] -> [B, T, D]); `factor` is a
/// plain number, not an operand, so no gradient flows into it (chapter 25).
/// VJP: d(c x)/dx = c, so the contribution is factor * upstream.
/// @throws DecoderOpError NonFiniteFactor (checked first).
/// @throws TensorAutodiffError NonFiniteResult if a product overflows.
TensorValue scale(const TensorValue& x, double factor);

/// a - b in their broadcast shape ([B, T, D] - [B, T, 1] -> [B, T, D]) (chapter 25).
/// VJP: d(a - b)/da = 1 and d(a - b)/db = -1, each summed back to its operand's shape.
/// @throws TensorError IncompatibleBroadcast.
/// @throws TensorAutodiffError NonFiniteResult if a difference overflows.
TensorValue sub(const TensorValue& a, const TensorValue& b);

/// a / b in their broadcast shape ([B, T, T] / [B, T, 1] -> [B, T, T]) (chapter 28).
/// VJP: d(a/b)/da = 1/b and d(a/b)/db = -(a/b)/b, each summed back to its
/// operand's shape; it saves b and the quotient (shared, not copied).
/// @throws TensorError IncompatibleBroadcast.
/// @throws DecoderOpError DivisionByZero naming the first zero of b in row-major order.
/// @throws TensorAutodiffError NonFiniteResult if a quotient overflows.
TensorValue div(const TensorValue& a, const TensorValue& b);

/// x^(-1/2) elementwise, same shape (chapter 25), computed as exp(-log(x) / 2)
/// (llm/autograd/inverse_square_root.hpp); every x must be positive.
/// VJP: d x^(-1/2)/dx = -1/2 x^(-3/2) = -y^3 / 2 with y the saved output.
/// @throws DecoderOpError RsqrtNonPositiveInput naming the first x <= 0 in
///         row-major order (0^(-1/2) is infinite and a negative number has
///         no real square root), before anything is computed.
TensorValue rsqrt(const TensorValue& x);
// endregion: elementwise-op-declarations

}  // namespace llm
