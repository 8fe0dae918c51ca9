// Root-mean-square normalization as one tape operation (chapter 25).
//
// For each row x of D features (the last axis) and a gain g of D values,
//
//     r = (mean(x^2) + epsilon)^(-1/2),     y = (x * r) * g.
// r is evaluated as exp(-log(mean(x^2) + epsilon) / 2), the reference
// edition's form (llm/autograd/inverse_square_root.hpp).
//
// The operation computes exactly what chapter 25 composes from mul,
// mean_axis, add, rsqrt and mul, in the same order, so the two forward
// results are the same bits (tests/autograd/rms_norm_op_test.cpp); one node
// replaces eight and its VJP is one pass over the row.
#pragma once

#include "llm/autograd/decoder_op_error.hpp"
#include "llm/autograd/tensor_value.hpp"

namespace llm {

// region: rms-norm-op-declaration
/// The operation name traces and errors print for rms_norm().
inline constexpr TensorOperation kRmsNorm{"rms_norm"};

/// RMS normalization of `x` [..., D] over its last axis, times `gain` [D]
/// (chapter 25): y = (x * r) * g with r = (mean_d x_d^2 + epsilon)^(-1/2) per
/// row, computed as exp(-log(.) / 2) (inverse_square_root.hpp); the mean adds x_d^2 in increasing d
/// from 0.0 and divides by D. The result has x's shape. Saves x, g and one r per row. VJP for x:
/// dx_j = r g_j u_j - x_j (r^3 / D) sum_d u_d g_d x_d, u the upstream. VJP for the gain: dg_d = sum
/// over rows of u_d (x_d r), rows in row-major order from 0.0 (the order of the composed mul's
/// sum_to_shape). Epsilon 0 is allowed (the exact RMS), unless a row is all zeros.
/// @throws DecoderOpError RmsNormInvalidEpsilon, RmsNormInputRank,
///         RmsNormGainRank, RmsNormEmptyWidth, RmsNormWidthMismatch, then
///         RmsNormZeroEnergyRow (epsilon 0 and a row's mean square is 0), in that order.
TensorValue rms_norm(const TensorValue& x, const TensorValue& gain, double epsilon);
// endregion: rms-norm-op-declaration

/// The checks rms_norm() makes before reading any value, in its order, for
/// code that composes the same normalization from smaller operations
/// (RmsNorm::forward_with_intermediates) and must refuse exactly the same inputs.
/// @throws DecoderOpError RmsNormInvalidEpsilon, RmsNormInputRank,
///         RmsNormGainRank, RmsNormEmptyWidth, RmsNormWidthMismatch.
void check_rms_norm_operands(const Shape& input, const Shape& gain, double epsilon);

}  // namespace llm
