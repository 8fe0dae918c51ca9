// The worked example without the tape: fixed [2, 3] arrays, every value and
// every adjoint written out by hand. The demo checks the tape against it.
#include "fixtures.hpp"

namespace ch15 {

// region: handwritten-tensor-baseline
HandwrittenBaseline handwritten_baseline() {
  HandwrittenBaseline b{};
  const auto& x = kXValues;  // [2, 3], row-major
  // reshape [2, 3] -> [3, 2] keeps the row-major order of the values.
  for (int k = 0; k < 6; ++k) b.reshaped[k] = x[k];
  // transpose: transposed[i][j] = reshaped[j][i] with i < 2, j < 3.
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) b.transposed[i * 3 + j] = b.reshaped[j * 2 + i];
  }
  for (int i = 0; i < 2; ++i) {
    double row_total = 0.0;
    for (int j = 0; j < 3; ++j) {
      const int k = i * 3 + j;
      b.broadcast[k] = kBiasValues[j];
      b.sum[k] = b.transposed[k] + b.broadcast[k];
      b.square[k] = b.sum[k] * b.sum[k];
      row_total += b.square[k];
    }
    b.output[i] = row_total / 3.0;
  }

  // Reverse, seed S: the mean hands S[i] / 3 to each of its three elements;
  // square = sum * sum uses sum twice, so sum receives two contributions.
  b.bias_gradient = {0.0, 0.0, 0.0};
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      const int k = i * 3 + j;
      b.square_adjoint[k] = kSeedValues[i] / 3.0;
      b.sum_adjoint[k] = b.square_adjoint[k] * b.sum[k] + b.square_adjoint[k] * b.sum[k];
      b.bias_gradient[j] += b.sum_adjoint[k];  // broadcast: sum over the rows
      // transpose back, then reshape back: x's flat k' = j * 2 + i.
      b.x_gradient[j * 2 + i] = b.sum_adjoint[k];
    }
  }
  return b;
}
// endregion: handwritten-tensor-baseline

}  // namespace ch15
