// The worked example of chapter 12 and the unshifted formula it is compared with.
#include "fixtures.hpp"

#include <cmath>

#include "llm/tensor/probability.hpp"

namespace ch12 {

// region: worked-example
WorkedExample worked_example() {
  llm::Tensor logits({3, 2}, {0.0, 1.0, 1000.0, 1001.0, -1001.0, -1000.0});
  llm::Tensor probabilities = llm::softmax(logits, kClassAxis);
  llm::Tensor log_probabilities = llm::log_softmax(logits, kClassAxis);
  llm::Tensor log_normalizers = llm::log_sum_exp(logits, kClassAxis);
  const double mean_nll = llm::indexed_mean_nll(logits, kClassAxis, kTargets);
  return {std::move(logits), std::move(probabilities), std::move(log_probabilities),
          std::move(log_normalizers), mean_nll};
}
// endregion: worked-example

// region: naive-softmax
std::vector<double> naive_softmax(std::span<const double> logits) {
  std::vector<double> exponentials;
  double sum = 0.0;
  for (double logit : logits) {
    exponentials.push_back(std::exp(logit));  // exp(1000) is +inf, exp(-1001) is 0
    sum += exponentials.back();
  }
  for (double& value : exponentials) value /= sum;  // inf / inf and 0 / 0 are NaN
  return exponentials;
}
// endregion: naive-softmax

}  // namespace ch12
