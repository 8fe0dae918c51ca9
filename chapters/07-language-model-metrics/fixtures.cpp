// The chapter 7 fixed-input examples: every number the demo prints before
// its corpus part comes from llm::score_assigned_probabilities or
// llm::NllAccumulator here.
#include "fixtures.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace ch07 {

using llm::LanguageModelMetrics;
using llm::score_assigned_probabilities;

// region: tiny-example
TinyExample tiny_example() {
  const std::vector<double> probabilities = {0.5, 0.25};
  std::vector<LanguageModelMetrics> per_target;
  for (const double& probability : probabilities) {
    per_target.push_back(score_assigned_probabilities({&probability, 1}));
  }
  return {probabilities, per_target, score_assigned_probabilities(probabilities)};
}
// endregion: tiny-example

ScaleAnchors scale_anchors() {
  const std::size_t vocabulary = 5;
  const std::vector<double> uniform(vocabulary, 1.0 / static_cast<double>(vocabulary));
  return {score_assigned_probabilities(std::vector<double>{1.0, 1.0}), vocabulary,
          score_assigned_probabilities(uniform)};
}

// region: edge-cases
EdgeCases edge_cases() {
  const std::vector<double> impossible = {0.8, 0.0};
  std::string kind, message;
  try {
    score_assigned_probabilities({});
  } catch (const llm::MetricError& error) {
    kind = error.kind_name();
    message = error.what();
  }
  return {impossible, score_assigned_probabilities(impossible), kind, message};
}
// endregion: edge-cases

// region: document-weighting
DocumentWeighting document_weighting() {
  const std::vector<std::vector<double>> documents = {{1.0}, {0.25, 0.25, 0.25}};
  llm::NllAccumulator pooled;  // one accumulator: every target weighs the same
  std::vector<double> document_means;
  for (const std::vector<double>& document : documents) {
    for (double probability : document) pooled.add(probability);
    document_means.push_back(score_assigned_probabilities(document).mean_nll());
  }
  // The mistake: average the per-document means, so each document weighs the same.
  double sum_of_means = 0.0;
  for (double mean : document_means) sum_of_means += mean;
  const double mean_of_means = sum_of_means / static_cast<double>(document_means.size());
  return {documents, pooled.finish(), document_means, mean_of_means, std::exp(mean_of_means)};
}
// endregion: document-weighting

SameArgmax same_argmax() {
  const std::vector<double> q = {0.60, 0.30, 0.10};
  const std::vector<double> r = {0.60, 0.20, 0.20};
  const std::size_t target = 1;  // B
  auto argmax = [](const std::vector<double>& distribution) {
    return static_cast<std::size_t>(std::distance(
        distribution.begin(), std::max_element(distribution.begin(), distribution.end())));
  };
  return {{"A", "B", "C"},
          q,
          r,
          target,
          argmax(q),
          argmax(r),
          score_assigned_probabilities({&q[target], 1}).mean_nll(),
          score_assigned_probabilities({&r[target], 1}).mean_nll()};
}

// region: underflow
Underflow underflow() {
  const std::vector<double> halves(2000, 0.5);
  double product = 1.0;
  for (double probability : halves) product *= probability;  // 2^-2000 is below every double
  return {halves.size(), product, score_assigned_probabilities(halves)};
}
// endregion: underflow

}  // namespace ch07
