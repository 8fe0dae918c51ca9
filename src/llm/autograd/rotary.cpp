// The rotary table and rotary_pairs, beside its VJP (chapter 29).
//
// A pair rotation is the matrix R = [[cos, -sin], [sin, cos]]; its Jacobian
// is R itself, so the VJP multiplies the upstream pair by R^T, the rotation
// by the opposite angle. The forward pass and the VJP are one loop, run with
// the sine's sign flipped for the inverse.
#include "llm/autograd/rotary.hpp"

#include <cmath>
#include <limits>
#include <span>
#include <utility>

#include "llm/autograd/recorder.hpp"
#include "llm/tensor/kernel_output.hpp"
#include "llm/tensor/parallel.hpp"

namespace llm {
namespace {

// A zero written as +0.0, so a rotated zero never prints as -0.
double canonical_zero(double value) {
  return value == 0.0 ? 0.0 : value;
}

// region: rotate-pairs-kernel
// Which way rotate_rows turns each pair.
enum class Turn { Forward, Inverse };

// Rotates every pair of `rows` [..., T, D] (row-major) by the angles of
// `cosines` and `sines` [T, D/2]: row r is token r % T.
Tensor rotate_rows(const SharedTensor& rows, const SharedTensor& cosines, const SharedTensor& sines,
                   Turn turn) {
  const std::span<const double> x = rows.contiguous_values();
  const std::span<const double> c = cosines.contiguous_values();
  const std::span<const double> s = sines.contiguous_values();
  const std::size_t width = rows.shape().back();
  const std::size_t tokens = rows.shape()[rows.rank() - 2];
  const std::size_t pairs = width / 2;
  const double sign = turn == Turn::Forward ? 1.0 : -1.0;  // R or R^T
  Tensor result = kernel_output(rows.shape());
  std::span<double> y = result.mutable_values();
  const std::size_t row_count = width == 0 ? 0 : x.size() / width;
  parallel_rows(row_count, width, [&](std::size_t first_row, std::size_t end_row) {
    for (std::size_t row = first_row; row < end_row; ++row) {
      const std::size_t token = row % tokens;
      for (std::size_t pair = 0; pair < pairs; ++pair) {
        const std::size_t at = row * width + 2 * pair;
        const double cosine = c[token * pairs + pair];
        const double sine = sign * s[token * pairs + pair];
        const double a = x[at];
        const double b = x[at + 1];
        y[at] = canonical_zero(a * cosine - b * sine);
        y[at + 1] = canonical_zero(a * sine + b * cosine);
      }
    }
  });  // rows are independent: long inputs are split among threads (parallel.hpp)
  return result;
}
// endregion: rotate-pairs-kernel

}  // namespace

// region: rotary-table
RotaryTable::RotaryTable(std::size_t width, std::size_t capacity, double base)
    : width_(width), capacity_(capacity), base_(base) {
  if (width == 0) throw DecoderOpError(DecoderOpErrorKind::RotaryZeroWidth, {});
  if (width % 2 != 0) throw DecoderOpError(DecoderOpErrorKind::RotaryOddWidth, {.width = width});
  if (capacity == 0) throw DecoderOpError(DecoderOpErrorKind::RotaryZeroCapacity, {});
  if (!std::isfinite(base) || base <= 0.0) {
    throw DecoderOpError(DecoderOpErrorKind::RotaryInvalidBase, {.value = base});
  }
  const std::size_t pairs = width / 2;
  Tensor frequencies = kernel_output(Shape{pairs});
  Tensor cosines = kernel_output(Shape{capacity, pairs});  // ShapeOverflow, AllocationFailed
  Tensor sines = kernel_output(Shape{capacity, pairs});
  for (std::size_t pair = 0; pair < pairs; ++pair) {
    // w_p = base^(-2p / D)
    const double exponent = -2.0 * static_cast<double>(pair) / static_cast<double>(width);
    const double frequency = std::pow(base, exponent);
    if (!std::isfinite(frequency)) {
      throw DecoderOpError(DecoderOpErrorKind::RotaryNonFiniteTable, {.pair = pair});
    }
    frequencies.mutable_values()[pair] = frequency;
  }
  for (std::size_t position = 0; position < capacity; ++position) {
    for (std::size_t pair = 0; pair < pairs; ++pair) {
      const double angle = static_cast<double>(position) * frequencies.values()[pair];
      const double cosine = std::cos(angle);
      const double sine = std::sin(angle);
      if (!std::isfinite(angle) || !std::isfinite(cosine) || !std::isfinite(sine)) {
        throw DecoderOpError(DecoderOpErrorKind::RotaryNonFiniteTable,
                             {.position = position, .pair = pair});
      }
      cosines.mutable_values()[position * pairs + pair] = canonical_zero(cosine);
      sines.mutable_values()[position * pairs + pair] = canonical_zero(sine);
    }
  }
  inverse_frequencies_ = std::move(frequencies);
  cosines_ = std::move(cosines);
  sines_ = std::move(sines);
}

TensorValue RotaryTable::rotate(const TensorValue& x, std::size_t offset) const {
  return rotary_pairs(x, *this, offset);
}
// endregion: rotary-table

// region: rotary-pairs-operation
TensorValue rotary_pairs(const TensorValue& x, const RotaryTable& table, std::size_t offset) {
  const Shape shape = x.shape();
  if (shape.size() < 2) throw DecoderOpError(DecoderOpErrorKind::RotaryInputRank, {.shape = shape});
  if (shape.back() != table.width()) {
    throw DecoderOpError(DecoderOpErrorKind::RotaryWidthMismatch,
                         {.shape = shape, .expected = table.width()});
  }
  const std::size_t tokens = shape[shape.size() - 2];
  if (offset > table.capacity() || tokens > table.capacity() - offset) {  // no overflow
    throw DecoderOpError(
        DecoderOpErrorKind::RotaryPositionRange,
        {.shape = shape, .offset = offset, .tokens = tokens, .capacity = table.capacity()});
  }
  // Saved context: the table rows of positions offset .. offset+T-1, shared, not copied.
  const SharedTensor cosines = table.cosines().slice(0, offset, offset + tokens);
  const SharedTensor sines = table.sines().slice(0, offset, offset + tokens);
  const SharedTensor input = x.value().contiguous();
  Tensor result = rotate_rows(input, cosines, sines, Turn::Forward);
  // (g_a, g_b) -> R^T (g_a, g_b): the rotation by the opposite angle
  auto inverse_rotation = [cosines, sines](const SharedTensor& upstream) {
    return SharedTensor(rotate_rows(upstream.contiguous(), cosines, sines, Turn::Inverse));
  };
  return record_operation(kRotaryPairs, std::move(result),
                          {x, {"rotate back by the opposite angle", inverse_rotation}});
}
// endregion: rotary-pairs-operation

}  // namespace llm
