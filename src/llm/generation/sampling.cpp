// Greedy decoding and temperature/top-k sampling over one logit row (chapter 36).
#include "llm/generation/sampling.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace llm {

namespace {

// A bug guard, not a tolerance anyone should reach: the probabilities are
// normalized by their own compensated sum.
constexpr double kProbabilitySumTolerance = 1e-12;

// region: stable-ranks
// Token IDs in rank order: descending logit, equal logits by ascending ID.
// The comparison is a strict total order on IDs, so every sort algorithm
// gives the same ranks and a tie at the top-k boundary keeps the lower ID.
std::vector<std::size_t> stable_ranks(std::span<const double> logits) {
  if (logits.empty()) throw SamplingError(SamplingErrorKind::EmptyLogits, {});
  if (logits.size() - 1 > std::numeric_limits<TokenId>::max()) {
    throw SamplingError(SamplingErrorKind::VocabularyTooLarge, {.classes = logits.size()});
  }
  for (std::size_t token = 0; token < logits.size(); ++token) {
    if (!std::isfinite(logits[token])) {
      throw SamplingError(SamplingErrorKind::NonFiniteLogit,
                          {.index = token, .value = logits[token]});
    }
  }
  std::vector<std::size_t> ranked(logits.size());
  std::iota(ranked.begin(), ranked.end(), std::size_t{0});
  std::sort(ranked.begin(), ranked.end(), [&](std::size_t a, std::size_t b) {
    return logits[a] != logits[b] ? logits[a] > logits[b] : a < b;
  });
  return ranked;
}
// endregion: stable-ranks

std::size_t retained_count(SamplingPolicy policy, std::size_t classes) {
  if (policy.is_greedy()) return 1;
  if (!std::isfinite(policy.temperature()) || policy.temperature() <= 0.0) {
    throw SamplingError(SamplingErrorKind::InvalidTemperature, {.value = policy.temperature()});
  }
  if (policy.top_k() == 0 || policy.top_k() > classes) {
    throw SamplingError(SamplingErrorKind::InvalidTopK,
                        {.classes = classes, .top_k = policy.top_k()});
  }
  return policy.top_k();
}

// region: scaled-gap
// (z - z_max) / tau, the exponent of a token's weight, always <= 0. Below
// tau = 1 the difference is formed first: dividing a large logit by a tiny
// tau would overflow to infinity, and infinity minus infinity is NaN. From
// tau = 1 up each logit is divided first, which cannot overflow and can keep
// the difference of two huge logits of opposite sign finite.
double scaled_gap(double logit, double maximum, double temperature) {
  return temperature < 1.0 ? (logit - maximum) / temperature
                           : logit / temperature - maximum / temperature;
}
// endregion: scaled-gap

struct Prepared {
  std::vector<std::size_t> ranked;
  std::vector<double> probabilities;  // token-ID order
  std::size_t keep = 0;
};

// region: prepare-sampling
Prepared prepare(std::span<const double> logits, SamplingPolicy policy) {
  Prepared prepared;
  prepared.ranked = stable_ranks(logits);
  prepared.keep = retained_count(policy, logits.size());
  prepared.probabilities.assign(logits.size(), 0.0);
  const std::span<const std::size_t> retained(prepared.ranked.data(), prepared.keep);
  if (policy.is_greedy()) {
    prepared.probabilities[retained[0]] = 1.0;
  } else {
    const double maximum = logits[retained[0]];
    std::vector<double> weights;  // rank order
    for (std::size_t position = 0; position < retained.size(); ++position) {
      const std::size_t token = retained[position];
      weights.push_back(position == 0
                            ? 1.0  // exp(0), exactly
                            : std::exp(scaled_gap(logits[token], maximum, policy.temperature())));
    }
    const double weight_sum = compensated_sum(weights);  // >= 1: the top token weighs 1
    for (std::size_t position = 0; position < retained.size(); ++position) {
      prepared.probabilities[retained[position]] = weights[position] / weight_sum;
    }
  }
  const double total = compensated_sum(prepared.probabilities);
  if (!std::isfinite(total) || std::fabs(total - 1.0) > kProbabilitySumTolerance) {
    throw SamplingError(SamplingErrorKind::InvalidProbabilitySum, {.value = total});
  }
  return prepared;
}
// endregion: prepare-sampling

SamplingDistribution distribution_of(std::span<const double> logits, SamplingPolicy policy,
                                     const Prepared& prepared) {
  SamplingDistribution distribution;
  distribution.policy = policy;
  std::vector<std::size_t> rank_of(logits.size());
  for (std::size_t position = 0; position < prepared.ranked.size(); ++position) {
    rank_of[prepared.ranked[position]] = position + 1;
  }
  for (std::size_t token = 0; token < logits.size(); ++token) {
    distribution.candidates.push_back(
        SamplingCandidate{static_cast<TokenId>(token), logits[token], rank_of[token],
                          rank_of[token] <= prepared.keep, prepared.probabilities[token]});
  }
  for (std::size_t position = 0; position < prepared.keep; ++position) {
    distribution.retained_token_ids.push_back(static_cast<TokenId>(prepared.ranked[position]));
  }
  return distribution;
}

// region: select-token
// Greedy: rank 1, no draw. Otherwise one draw u, and the tokens of positive
// probability laid end to end in token-ID order as [start, start + p); the
// last one's interval is closed at 1 so that rounding in the running sum
// can never leave a u without a token.
SampledToken select(const Prepared& prepared, SamplingPolicy policy, SplitMix64& generator) {
  if (policy.is_greedy()) {
    return SampledToken{static_cast<TokenId>(prepared.ranked[0]), std::nullopt, 0.0, 1.0};
  }
  const double draw = generator.next_unit();
  const std::vector<double>& probabilities = prepared.probabilities;
  std::size_t last = probabilities.size() - 1;
  while (probabilities[last] == 0.0) --last;  // a normalized row has positive support
  double start = 0.0;
  for (std::size_t token = 0; token <= last; ++token) {
    if (probabilities[token] == 0.0) continue;
    const double end = token == last ? 1.0 : std::min(start + probabilities[token], 1.0);
    if (draw < end || token == last) {
      return SampledToken{static_cast<TokenId>(token), draw, start, end};
    }
    start = end;
  }
  return SampledToken{static_cast<TokenId>(last), draw, start, 1.0};  // not reached
}
// endregion: select-token

}  // namespace

double compensated_sum(std::span<const double> values) noexcept {
  double sum = 0.0;
  double compensation = 0.0;  // the low-order part lost by the last addition
  for (double value : values) {
    const double corrected = value - compensation;
    const double next = sum + corrected;
    compensation = (next - sum) - corrected;
    sum = next;
  }
  return sum;
}

std::vector<TokenId> SamplingDistribution::positive_support_token_ids() const {
  std::vector<TokenId> support;
  for (const SamplingCandidate& candidate : candidates) {
    if (candidate.probability > 0.0) support.push_back(candidate.token_id);
  }
  return support;
}

double SamplingDistribution::probability_sum() const noexcept {
  std::vector<double> probabilities;
  for (const SamplingCandidate& candidate : candidates) {
    probabilities.push_back(candidate.probability);
  }
  return compensated_sum(probabilities);
}

SamplingDistribution sampling_distribution(std::span<const double> logits, SamplingPolicy policy) {
  return distribution_of(logits, policy, prepare(logits, policy));
}

SampledToken sample_next_token(std::span<const double> logits, SamplingPolicy policy,
                               SplitMix64& generator) {
  const Prepared prepared = prepare(logits, policy);  // every check before the draw
  return select(prepared, policy, generator);
}

SamplingDecision sample_next_token_with_trace(std::span<const double> logits, SamplingPolicy policy,
                                              SplitMix64& generator) {
  const Prepared prepared = prepare(logits, policy);
  SamplingDistribution distribution = distribution_of(logits, policy, prepared);
  return SamplingDecision{select(prepared, policy, generator), std::move(distribution)};
}

}  // namespace llm
