// The worked example of chapter 10: two token rows of three features, one
// feature bias shared by both rows, and the tensors the library computes from
// them (a broadcast sum, an elementwise square and three axis reductions).
// The demo prints these values and writes them into its trace.
#pragma once

#include "llm/tensor/tensor.hpp"

namespace ch10 {

/// Every tensor of the worked calculation, in the order it is computed.
struct WorkedExample {
  llm::Tensor tokens;           ///< [2, 3]: two token rows, three features each
  llm::Tensor bias;             ///< [3]: one value per feature, no token axis
  llm::Tensor biased;           ///< [2, 3]: tokens + bias, the bias reused by each row
  llm::Tensor squared;          ///< [2, 3]: every token feature squared
  llm::Tensor sum_over_tokens;  ///< [3]: biased summed along axis 0, axis removed
  llm::Tensor mean_per_token;   ///< [2, 1]: biased averaged along axis 1, axis kept
  llm::Tensor max_per_token;    ///< [2]: the largest biased value along axis 1, axis removed
};

/// tokens = [[1, 2, 3], [4, 5, 6]] and bias = [10, 20, 30], and every result
/// the chapter derives from them.
WorkedExample worked_example();

/// A [2, 0, 3] tensor: valid, and holding no values at all.
llm::Tensor empty_fixture();

}  // namespace ch10
