// x^(-1/2) as RMSNorm computes it (chapter 25): exp(-log(x) / 2), the
// reference edition's form, so that every inverse RMS, and with it every
// decoder logit, gradient and trained parameter of chapters 25-39, agrees
// with that edition bit for bit (chapter 35 compares fingerprints of them).
// 1 / sqrt(x) differs from it by about one ulp on some inputs: for [3, 4]
// and [30, 40] it happens to give the same normalized bits, while this form
// differs in the last bit (chapter 25's scale probe prints the difference).
#pragma once

#include <cmath>

namespace llm {

// region: inverse-square-root
/// exp(log(x) * -0.5) for x > 0 (the callers check x first).
inline double inverse_square_root(double x) noexcept {
  return std::exp(std::log(x) * -0.5);
}
// endregion: inverse-square-root

}  // namespace llm
