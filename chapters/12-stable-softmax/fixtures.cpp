// The worked example of chapter 12 and the unshifted formula it is compared with.
#include "fixtures.hpp"

#include <algorithm>
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

// region: log-normalizer-cases
std::vector<LogNormalizerCase> log_normalizer_cases() {
  std::vector<LogNormalizerCase> cases;
  for (double gap : kLogNormalizerGaps) {
    const llm::Tensor row({1, 2}, {0.0, -gap});
    LogNormalizerCase entry;
    entry.gap = gap;
    entry.tail = std::exp(-gap);
    entry.normalizer = 0.0 + 1.0 + entry.tail;  // group_statistics: from 0.0, in class order
    entry.log_normalizer = llm::log_sum_exp(row, kClassAxis).values()[0];  // m + ln Z, m = 0
    entry.log1p_tail = std::log1p(entry.tail);
    entry.library_log_probability = llm::log_softmax(row, kClassAxis).values()[0];
    entry.log1p_log_probability = 0.0 - entry.log1p_tail;
    cases.push_back(entry);
  }
  return cases;
}
// endregion: log-normalizer-cases

Log1pSweep log1p_sweep(std::size_t count, double step) {
  Log1pSweep sweep;
  for (std::size_t i = 1; i <= count; ++i) {
    const double tail = std::exp(-step * static_cast<double>(i));
    const double difference = std::fabs(std::log(1.0 + tail) - std::log1p(tail));
    if (difference != 0.0) ++sweep.differ;
    sweep.largest_absolute_difference = std::max(sweep.largest_absolute_difference, difference);
  }
  return sweep;
}

}  // namespace ch12
