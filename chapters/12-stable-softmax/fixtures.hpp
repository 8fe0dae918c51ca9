// The worked example of chapter 12: three rows of two logits that differ by
// exactly one in every row but sit at 0, +1000 and -1000, the stable
// probabilities the library computes from them, and the textbook formula
// that fails on the extreme rows.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "llm/tensor/tensor.hpp"

namespace ch12 {

/// The class axis of every example: axis 1, the last one.
inline constexpr std::size_t kClassAxis = 1;
/// The target class of each of the three rows.
inline constexpr std::array<std::size_t, 3> kTargets = {1, 0, 1};

/// Every result of the worked calculation.
struct WorkedExample {
  llm::Tensor logits;             ///< [3, 2]: rows [0, 1], [1000, 1001], [-1001, -1000]
  llm::Tensor probabilities;      ///< [3, 2]: softmax along the class axis
  llm::Tensor log_probabilities;  ///< [3, 2]: log-softmax along the class axis
  llm::Tensor log_normalizers;    ///< [3]: log-sum-exp of each row, the class axis removed
  double mean_nll = 0.0;          ///< indexed mean NLL of kTargets, in nats per target
};

/// The worked logits and everything the library computes from them.
WorkedExample worked_example();

/// The formula as a textbook writes it, exp(x_c) / sum_k exp(x_k), with no
/// shift: correct for small logits, NaN once exp overflows to infinity or
/// underflows to zero for every class. The chapter's contrast, not library code.
std::vector<double> naive_softmax(std::span<const double> logits);

/// The row [0, -gap] normalized two ways. The library forms Z = 1 + tail
/// (tail = e^{-gap}, the other class's shifted exponential) and takes ln Z;
/// the earlier edition took log1p(tail). Once Z is rounded, the tail's last
/// bits (or, below 2^-53, all of it) are gone from ln Z and cannot come back.
struct LogNormalizerCase {
  double gap = 0.0;                      ///< the row is [0, -gap]
  double tail = 0.0;                     ///< e^{-gap}
  double normalizer = 0.0;               ///< Z = 1 + tail, rounded as the library sums it
  double log_normalizer = 0.0;           ///< ln Z: the library's log_sum_exp of the row (m = 0)
  double log1p_tail = 0.0;               ///< log1p(tail)
  double library_log_probability = 0.0;  ///< log_softmax of class 0: 0 - ln Z
  double log1p_log_probability = 0.0;    ///< the same with log1p: -log1p(tail)
};

/// The gaps of the traced rows: the worked row's, then two whose tails are
/// below the last bit of 1 (about 1.1e-16) only after rounding, and entirely.
inline constexpr std::array<double, 3> kLogNormalizerGaps = {1.0, 25.0, 40.0};

/// One case per gap of kLogNormalizerGaps, computed by the library.
std::vector<LogNormalizerCase> log_normalizer_cases();

/// log(1 + tail) against log1p(tail) over the tails e^{-gap}, gap = step * i
/// for i = 1..count: how many differ in their bits, and by how much at most.
struct Log1pSweep {
  std::size_t differ = 0;
  double largest_absolute_difference = 0.0;
};
Log1pSweep log1p_sweep(std::size_t count, double step);

}  // namespace ch12
