// Batched matrix product: one [M, K] x [K, N] product per broadcast batch coordinate.
#include "llm/tensor/matmul.hpp"

#include "llm/tensor/broadcast.hpp"

namespace llm {

namespace {

// The broadcast of the two batch shapes. A failure names the full operand
// shapes, with the axis counted from the right of the full result ([..., M, N]).
Shape matmul_batch_shape(const Shape& left, const Shape& right) {
  const Shape left_batch(left.begin(), left.end() - 2);
  const Shape right_batch(right.begin(), right.end() - 2);
  try {
    return broadcast_shapes(left_batch, right_batch);
  } catch (const TensorError& error) {
    if (error.kind() != TensorErrorKind::IncompatibleBroadcast) throw;
    throw TensorError::incompatible_broadcast(left, right, error.axis() + 2);
  }
}

}  // namespace

// region: batched-matmul
Tensor matmul(const TensorView& left, const TensorView& right) {
  const Shape& a = left.shape();
  const Shape& b = right.shape();
  if (a.size() < 2 || b.size() < 2) throw TensorError::matmul_rank(a, b);
  const std::size_t m = a[a.size() - 2];
  const std::size_t k = a.back();
  const std::size_t n = b.back();
  if (b[b.size() - 2] != k) throw TensorError::matmul_inner_mismatch(a, b);

  const Shape batch = matmul_batch_shape(a, b);
  const BroadcastIndex left_batch(Shape(a.begin(), a.end() - 2), batch);
  const BroadcastIndex right_batch(Shape(b.begin(), b.end() - 2), batch);
  Shape shape = batch;
  shape.push_back(m);
  shape.push_back(n);
  Tensor result = Tensor::zeros(shape);
  std::span<double> out = result.mutable_values();

  const std::size_t batches = element_count(batch);
  for (std::size_t batch_offset = 0; batch_offset < batches; ++batch_offset) {
    // The [M, K] and [K, N] matrices this batch coordinate reads.
    const std::span<const double> lhs =
        left.values().subspan(left_batch.source_offset(batch_offset) * m * k, m * k);
    const std::span<const double> rhs =
        right.values().subspan(right_batch.source_offset(batch_offset) * k * n, k * n);
    for (std::size_t row = 0; row < m; ++row) {
      for (std::size_t column = 0; column < n; ++column) {
        double sum = 0.0;
        for (std::size_t inner = 0; inner < k; ++inner) {
          sum += lhs[row * k + inner] * rhs[inner * n + column];
        }
        out[(batch_offset * m + row) * n + column] = sum;
      }
    }
  }
  return result;
}
// endregion: batched-matmul

}  // namespace llm
