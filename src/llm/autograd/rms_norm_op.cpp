// RMS normalization as one tape operation, beside its VJP (chapter 25).
//
// With r = (m + epsilon)^(-1/2), m = (1/D) sum_d x_d^2 and y_j = x_j r g_j,
//     dy_j/dx_k = r g_j [j = k] - x_j g_j r^3 x_k / D,
// so for an upstream u the contribution to x is
//     dx_k = r g_k u_k - x_k (r^3 / D) sum_j u_j g_j x_j,
// and the contribution to the gain is dg_j = sum over rows of u_j x_j r.
#include "llm/autograd/rms_norm_op.hpp"

#include <cmath>
#include <cstddef>
#include <span>
#include <utility>

#include "llm/autograd/inverse_square_root.hpp"
#include "llm/autograd/recorder.hpp"
#include "llm/tensor/kernel_output.hpp"
#include "llm/tensor/parallel.hpp"

namespace llm {

// region: rms-norm-checks
void check_rms_norm_operands(const Shape& input, const Shape& gain, double epsilon) {
  if (!std::isfinite(epsilon) || epsilon < 0.0) {
    throw DecoderOpError(DecoderOpErrorKind::RmsNormInvalidEpsilon, {.value = epsilon});
  }
  if (input.empty()) throw DecoderOpError(DecoderOpErrorKind::RmsNormInputRank, {.shape = input});
  if (gain.size() != 1) throw DecoderOpError(DecoderOpErrorKind::RmsNormGainRank, {.shape = gain});
  if (gain[0] == 0) throw DecoderOpError(DecoderOpErrorKind::RmsNormEmptyWidth, {.shape = gain});
  if (input.back() != gain[0]) {
    throw DecoderOpError(DecoderOpErrorKind::RmsNormWidthMismatch,
                         {.shape = input, .expected = gain[0]});
  }
}
// endregion: rms-norm-checks

// region: rms-norm-forward
TensorValue rms_norm(const TensorValue& x, const TensorValue& gain, double epsilon) {
  check_rms_norm_operands(x.shape(), gain.shape(), epsilon);
  // Saved context: the input and gain as row-major blocks, and r per row.
  const SharedTensor input = x.value().contiguous();
  const SharedTensor weights = gain.value().contiguous();
  const std::span<const double> xs = input.contiguous_values();
  const std::span<const double> gs = weights.contiguous_values();
  const std::size_t width = gs.size();
  const std::size_t rows = xs.size() / width;
  Tensor inverse_rms = kernel_output(Shape{rows});
  Tensor result = kernel_output(input.shape());
  std::span<double> ys = result.mutable_values();
  const std::span<double> rs = inverse_rms.mutable_values();
  // Rows are independent, so long inputs are cut into pieces of rows for
  // several threads (parallel.hpp); the first bad row still names the error.
  parallel_rows(rows, width, [&](std::size_t first_row, std::size_t end_row) {
    for (std::size_t row = first_row; row < end_row; ++row) {
      double sum = 0.0;  // sum_d x_d^2 in increasing d, as mean_axis adds
      for (std::size_t d = 0; d < width; ++d) sum += xs[row * width + d] * xs[row * width + d];
      const double mean_square = sum / static_cast<double>(width);
      if (!std::isfinite(mean_square)) {
        throw DecoderOpError(DecoderOpErrorKind::RmsNormOverflow,
                             {.shape = input.shape(), .row = row});
      }
      if (epsilon == 0.0 && mean_square == 0.0) {
        throw DecoderOpError(DecoderOpErrorKind::RmsNormZeroEnergyRow,
                             {.shape = input.shape(), .row = row});
      }
      rs[row] = inverse_square_root(mean_square + epsilon);
      for (std::size_t d = 0; d < width; ++d) {
        const std::size_t at = row * width + d;
        ys[at] = (xs[at] * rs[row]) * gs[d];  // normalized, then the gain
      }
    }
  });
  const SharedTensor saved_rms = std::move(inverse_rms);
  // endregion: rms-norm-forward
  // region: rms-norm-vjp
  // dx_k = r g_k u_k - x_k (r^3 / D) sum_j u_j g_j x_j
  auto input_rule = [input, weights, saved_rms](const SharedTensor& upstream) {
    const SharedTensor rows_of_u = upstream.contiguous();
    const std::span<const double> u = rows_of_u.contiguous_values();
    const std::span<const double> xs = input.contiguous_values();
    const std::span<const double> gs = weights.contiguous_values();
    const std::span<const double> rs = saved_rms.contiguous_values();
    const std::size_t width = gs.size();
    Tensor result = kernel_output(input.shape());
    std::span<double> dx = result.mutable_values();
    parallel_rows(rs.size(), width, [&](std::size_t first_row, std::size_t end_row) {
      for (std::size_t row = first_row; row < end_row; ++row) {
        const std::size_t first = row * width;
        const double r = rs[row];
        double projection = 0.0;  // sum_j u_j g_j x_j
        for (std::size_t j = 0; j < width; ++j) projection += u[first + j] * gs[j] * xs[first + j];
        const double correction = (r * r * r) * projection / static_cast<double>(width);
        for (std::size_t k = 0; k < width; ++k) {
          dx[first + k] = r * gs[k] * u[first + k] - xs[first + k] * correction;
        }
      }
    });
    return SharedTensor(std::move(result));
  };
  // dg_j = sum over rows of u_j (x_j r), rows in row-major order from 0.0
  auto gain_rule = [input, saved_rms, width](const SharedTensor& upstream) {
    const SharedTensor rows_of_u = upstream.contiguous();
    const std::span<const double> u = rows_of_u.contiguous_values();
    const std::span<const double> xs = input.contiguous_values();
    const std::span<const double> rs = saved_rms.contiguous_values();
    Tensor result = Tensor::zeros(Shape{width});
    std::span<double> dg = result.mutable_values();
    // Each dg[j] sums over the rows in increasing order; threads split the
    // columns j, never a sum.
    parallel_rows(width, rs.size(), [&](std::size_t first_column, std::size_t end_column) {
      for (std::size_t row = 0; row < rs.size(); ++row) {
        for (std::size_t j = first_column; j < end_column; ++j) {
          dg[j] += u[row * width + j] * (xs[row * width + j] * rs[row]);
        }
      }
    });
    return SharedTensor(std::move(result));
  };
  return record_operation(kRmsNorm, std::move(result),
                          {x, {"r g u - x (r^3 / D) sum(u g x)", input_rule}},
                          {gain, {"sum over rows of u (x r)", gain_rule}});
}
// endregion: rms-norm-vjp

}  // namespace llm
