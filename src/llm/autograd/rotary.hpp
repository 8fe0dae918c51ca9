// Rotary position embedding (RoPE, Su et al., 2021): the rotation table and
// the tape operation that rotates adjacent feature pairs by it (chapter 29).
//
// A feature vector of even width D is read as D/2 adjacent pairs
// (x_{2p}, x_{2p+1}). At absolute position t, pair p is turned by the angle
// t * w_p with the inverse frequency w_p = base^(-2p / D):
//
//     (a, b) -> (a cos - b sin, a sin + b cos).
//
// A rotation keeps lengths, and rotating a query at position t and a key at
// position s turns their dot product into a function of t - s only. The
// table holds cos and sin for positions 0 .. capacity-1, computed once; the
// operation reads the rows offset .. offset+T-1, so a block of new tokens
// after a cache of `offset` tokens (chapters 37-38) is rotated at its true
// positions.
#pragma once

#include <cstddef>
#include <memory>

#include "llm/autograd/decoder_op_error.hpp"
#include "llm/autograd/tensor_value.hpp"
#include "llm/tensor/shared_tensor.hpp"

namespace llm {

/// The operation name traces and errors print for rotary_pairs().
inline constexpr TensorOperation kRotaryPairs{"rotary_pairs"};

// region: rotary-table-class
/// The cosines and sines of every (position, pair) angle for one feature
/// width, computed once. Immutable; copies share the tables. Taught in chapter 29.
class RotaryTable {
 public:
  /// Tables for features of even `width` D at positions 0 .. capacity-1.
  /// Inverse frequencies w_p = pow(base, -2p / D) for p = 0 .. D/2-1; angle
  /// t * w_p; cos and sin from the C library (a zero written as +0.0).
  /// @throws DecoderOpError RotaryZeroWidth, RotaryOddWidth,
  ///         RotaryZeroCapacity, RotaryInvalidBase, RotaryNonFiniteTable, in
  ///         that order; TensorError ShapeOverflow or AllocationFailed if the
  ///         [capacity, D/2] tables do not fit.
  RotaryTable(std::size_t width, std::size_t capacity, double base);

  /// D, the feature width it rotates.
  std::size_t width() const noexcept { return width_; }
  /// D / 2, the number of rotated pairs.
  std::size_t pairs() const noexcept { return width_ / 2; }
  /// The number of positions it holds (positions 0 .. capacity-1).
  std::size_t capacity() const noexcept { return capacity_; }
  /// The base of the inverse frequencies.
  double base() const noexcept { return base_; }
  /// w_p = base^(-2p / D) [D/2]: pair 0 turns fastest (1 radian per position).
  const SharedTensor& inverse_frequencies() const noexcept { return inverse_frequencies_; }
  /// cos(t w_p) [capacity, D/2].
  const SharedTensor& cosines() const noexcept { return cosines_; }
  /// sin(t w_p) [capacity, D/2].
  const SharedTensor& sines() const noexcept { return sines_; }

  /// rotary_pairs(x, *this, offset): x [..., T, D] rotated at positions
  /// offset .. offset+T-1.
  /// @throws DecoderOpError as rotary_pairs.
  TensorValue rotate(const TensorValue& x, std::size_t offset) const;

 private:
  std::size_t width_ = 0;
  std::size_t capacity_ = 0;
  double base_ = 0.0;
  SharedTensor inverse_frequencies_;
  SharedTensor cosines_;
  SharedTensor sines_;
};
// endregion: rotary-table-class

// region: rotary-pairs-declaration
/// Rotates every adjacent feature pair of `x` [..., T, D] (chapter 29): the
/// axis before last is the token axis, and token i of every leading lane is
/// at position offset + i, so [T, D], [B, T, D] and [B, H, T, D] share one
/// rule. Same shape; a zero is written as +0.0. Empty inputs are allowed
/// (T = 0 at offset = capacity too).
/// VJP: the inverse rotation (the transpose of a rotation) of the upstream,
/// (g_a, g_b) -> (g_a cos + g_b sin, -g_a sin + g_b cos).
/// @throws DecoderOpError RotaryInputRank, RotaryWidthMismatch,
///         RotaryPositionRange (offset + T > capacity, overflow included).
TensorValue rotary_pairs(const TensorValue& x, const RotaryTable& table, std::size_t offset);
// endregion: rotary-pairs-declaration

}  // namespace llm
