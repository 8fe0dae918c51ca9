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

}  // namespace ch12
