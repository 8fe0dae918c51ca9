// Chapter 40's cost model: the floating-point operations one token costs the
// decoder of a run's configuration, counted from its sizes. `make train`
// divides them by its measured time to compare with llm::matmul's rate.
#pragma once

#include <cstddef>

#include "llm/training/train_run_config.hpp"

namespace llm {

// region: token-cost
/// Multiply-adds per token of one forward pass, by where they happen, for a
/// decoder of `config` over a vocabulary of V bytes. Each matrix product
/// [rows, K] x [K, N] costs K * N multiply-adds per row; attention's two
/// products (Q K^T and the weighted sum of V) each cost T * D per token,
/// since every query meets all T keys of its window before the causal mask
/// zeroes the later ones. Element-wise work (RMSNorm, RoPE, softmax, the
/// SwiGLU gate, the loss) is left out: it is O(D) or O(T) per token, not O(D^2).
struct TokenCost {
  std::size_t projections = 0;   ///< N * 4 D^2: query, key, value, output
  std::size_t feed_forward = 0;  ///< N * 3 D F: SwiGLU's gate, up and down
  std::size_t attention = 0;     ///< N * 2 T D: scores and weighted values
  std::size_t head = 0;          ///< D V: the tied output head

  /// All four.
  std::size_t multiply_adds() const noexcept {
    return projections + feed_forward + attention + head;
  }
  /// Forward FLOPs: two per multiply-add.
  std::size_t forward_flops() const noexcept { return 2 * multiply_adds(); }
  /// Training FLOPs: the backward pass computes two products per forward
  /// product (the input's adjoint and the weight's), so three times forward.
  std::size_t training_flops() const noexcept { return 3 * forward_flops(); }
};

/// The cost of one token for `c` over a vocabulary of `vocabulary` tokens.
inline TokenCost token_cost(const TrainRunConfig& c, std::size_t vocabulary) {
  const std::size_t n = c.layers, d = c.model_width, f = c.feed_forward_width, t = c.context;
  return {.projections = n * 4 * d * d,
          .feed_forward = n * 3 * d * f,
          .attention = n * 2 * t * d,
          .head = d * vocabulary};
}
// endregion: token-cost

}  // namespace llm
