// The worked chain without the tape: fixed arrays, every value and every
// adjoint written out by hand, in the model-specific style that preceded
// reusable operation VJPs. The demo checks the tape against it.
#include <algorithm>
#include <cmath>

#include "fixtures.hpp"
#include "llm/tensor/probability.hpp"

namespace ch16 {

// region: handwritten-model-backward
HandwrittenModelBaseline handwritten_model_backward(const std::array<double, 4>& weights) {
  HandwrittenModelBaseline b{};
  constexpr std::size_t positions = kTokenIds.size();  // 4 rows, 2 features, 2 classes
  const double groups = static_cast<double>(positions);

  // Row gather: X[p, :] = E[z_p, :].
  for (std::size_t p = 0; p < positions; ++p) {
    for (std::size_t f = 0; f < 2; ++f) {
      b.gathered[p * 2 + f] = kEmbeddingValues[kTokenIds[p] * 2 + f];
    }
  }
  // Projection: XW[p, c] = sum_f X[p, f] W[f, c].
  for (std::size_t p = 0; p < positions; ++p) {
    for (std::size_t c = 0; c < 2; ++c) {
      for (std::size_t f = 0; f < 2; ++f) {
        b.projection_preactivations[p * 2 + c] += b.gathered[p * 2 + f] * weights[f * 2 + c];
      }
    }
  }

  // SiLU, log-softmax, mean NLL; reverse through the loss and SiLU per row.
  b.loss = 0.0;
  for (std::size_t p = 0; p < positions; ++p) {
    for (std::size_t c = 0; c < 2; ++c) {
      const double x = b.projection_preactivations[p * 2 + c];
      b.activated[p * 2 + c] = x * llm::stable_sigmoid(x);
    }
    const double maximum = std::max(b.activated[p * 2], b.activated[p * 2 + 1]);
    const double denominator =
        std::exp(b.activated[p * 2] - maximum) + std::exp(b.activated[p * 2 + 1] - maximum);
    for (std::size_t c = 0; c < 2; ++c) {
      const std::size_t k = p * 2 + c;
      const double probability = std::exp(b.activated[k] - maximum) / denominator;
      b.probabilities[k] = probability;
      b.log_probabilities[k] = std::log(probability);
      const double target = kTargets[p] == c ? 1.0 : 0.0;
      b.loss_input_gradient[k] = (probability - target) / groups;  // (P - one_hot) / G
      // Log-softmax reverse for the upstream Ybar = -one_hot / G of a masked
      // sum of Y: Zbar = Ybar - P * sum_c Ybar, where sum_c Ybar = -1 / G.
      b.log_softmax_input_gradient[k] = -target / groups - probability * (-1.0 / groups);
      const double x = b.projection_preactivations[k];
      const double sigmoid = llm::stable_sigmoid(x);
      b.matmul_output_gradient[k] =
          b.loss_input_gradient[k] * (sigmoid * (1.0 + x * (1.0 - sigmoid)));
    }
    b.loss -= b.log_probabilities[p * 2 + kTargets[p]] / groups;
  }

  // Matmul reverse: dX = dC W^T and dW = X^T dC.
  for (std::size_t p = 0; p < positions; ++p) {
    for (std::size_t f = 0; f < 2; ++f) {
      for (std::size_t c = 0; c < 2; ++c) {
        b.gathered_gradient[p * 2 + f] += b.matmul_output_gradient[p * 2 + c] * weights[f * 2 + c];
        b.weight_gradient[f * 2 + c] += b.gathered[p * 2 + f] * b.matmul_output_gradient[p * 2 + c];
      }
    }
  }
  // Gather reverse: every occurrence adds its row into the row its ID names.
  for (std::size_t p = 0; p < positions; ++p) {
    for (std::size_t f = 0; f < 2; ++f) {
      b.embedding_gradient[kTokenIds[p] * 2 + f] += b.gathered_gradient[p * 2 + f];
    }
  }
  return b;
}
// endregion: handwritten-model-backward

}  // namespace ch16
