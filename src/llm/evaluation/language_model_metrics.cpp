// Mean NLL and perplexity from assigned probabilities (chapter 7): validate,
// add -ln p in log space, divide by the target count, exponentiate.
#include "llm/evaluation/language_model_metrics.hpp"

#include <cmath>
#include <string>

#include "llm/format.hpp"

namespace llm {

std::string MetricErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "index") return std::to_string(evidence.index);
  if (field == "probability") return format_shortest(evidence.probability);
  error_detail::unknown_field(area, field);
}

namespace {

// Whether a probability can be scored: a number in the closed interval [0, 1].
// NaN fails both comparisons; -0.0 passes and counts as zero.
bool is_probability(double value) {
  return value >= 0.0 && value <= 1.0;
}

}  // namespace

LanguageModelMetrics::LanguageModelMetrics(double total_nll, std::size_t target_count)
    : total_nll_(total_nll),
      target_count_(target_count),
      mean_nll_(total_nll / static_cast<double>(target_count)),
      perplexity_(std::exp(mean_nll_)) {}

// region: nll-accumulator
void NllAccumulator::add(double probability) {
  if (!is_probability(probability)) {
    throw MetricError(MetricErrorKind::InvalidProbability,
                      {.index = target_count_, .probability = probability});
  }
  // -ln p: 0 for p = 1, +inf for p = 0, and +inf stays +inf once reached.
  total_nll_ += -std::log(probability);
  target_count_ += 1;
}

LanguageModelMetrics NllAccumulator::finish() const {
  if (target_count_ == 0) throw MetricError(MetricErrorKind::EmptyTargets);
  return LanguageModelMetrics(total_nll_, target_count_);
}
// endregion: nll-accumulator

// region: score-assigned-probabilities
LanguageModelMetrics score_assigned_probabilities(std::span<const double> probabilities) {
  if (probabilities.empty()) throw MetricError(MetricErrorKind::EmptyTargets);
  for (std::size_t index = 0; index < probabilities.size(); ++index) {
    if (!is_probability(probabilities[index])) {
      throw MetricError(MetricErrorKind::InvalidProbability,
                        {.index = index, .probability = probabilities[index]});
    }
  }
  NllAccumulator accumulator;
  for (double probability : probabilities) accumulator.add(probability);
  return accumulator.finish();
}
// endregion: score-assigned-probabilities

}  // namespace llm
