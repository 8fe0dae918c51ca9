#include "fixtures.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "llm/generation/sampling_error.hpp"

namespace ch36 {

using llm::SamplingDecision;
using llm::SamplingDistribution;
using llm::SamplingPolicy;
using llm::SplitMix64;
using llm::TokenId;

namespace {

void require(bool condition, const char* what) {
  if (!condition) throw std::logic_error(std::string("chapter 36 fixture: ") + what);
}

/// Whether `call` throws a SamplingError.
template <class Call>
bool refused(Call&& call) {
  try {
    call();
  } catch (const llm::SamplingError&) {
    return true;
  }
  return false;
}

}  // namespace

std::vector<SamplingDistribution> temperature_distributions(const std::vector<double>& logits) {
  std::vector<SamplingDistribution> distributions;
  for (double temperature : kTemperatures) {
    distributions.push_back(llm::sampling_distribution(
        logits, SamplingPolicy::temperature_top_k(temperature, logits.size())));
  }
  return distributions;
}

// region: seeded-draws
std::vector<SamplingDecision> seeded_decisions(const std::vector<double>& logits) {
  SplitMix64 generator(kSampleSeed);
  const SamplingPolicy policy = SamplingPolicy::temperature_top_k(1.0, kSampleTopK);
  std::vector<SamplingDecision> decisions;
  for (std::size_t draw = 0; draw < kSampleCount; ++draw) {
    decisions.push_back(llm::sample_next_token_with_trace(logits, policy, generator));
  }
  return decisions;
}
// endregion: seeded-draws

// region: refusals
RefusalEvidence refusal_evidence() {
  SplitMix64 generator(kSampleSeed);
  const std::uint64_t before = generator.state();
  RefusalEvidence evidence;
  evidence.zero_temperature_rejected = refused([&] {
    llm::sample_next_token(kLogits, SamplingPolicy::temperature_top_k(0.0, 2), generator);
  });
  evidence.zero_top_k_rejected = refused([&] {
    llm::sample_next_token(kLogits, SamplingPolicy::temperature_top_k(1.0, 0), generator);
  });
  const std::vector<double> with_nan = {0.0, std::nan("")};
  evidence.nonfinite_logit_rejected = refused([&] {
    llm::sample_next_token(with_nan, SamplingPolicy::temperature_top_k(1.0, 1), generator);
  });
  evidence.generator_unchanged = generator.state() == before;
  return evidence;
}
// endregion: refusals

// region: decoding-contrast
DecodingContrast decoding_contrast() {
  const SamplingDistribution full =
      llm::sampling_distribution(kLogits, SamplingPolicy::temperature_top_k(1.0, kLogits.size()));
  const SamplingDistribution truncated =
      llm::sampling_distribution(kLogits, SamplingPolicy::temperature_top_k(1.0, kSampleTopK));
  DecodingContrast contrast;
  contrast.retained = truncated.retained_token_ids;
  // The full softmax's mass, split into what top-k keeps and what it drops
  // (summed in token-ID order, as the reference edition does).
  for (const llm::SamplingCandidate& candidate : full.candidates) {
    const bool kept =
        std::ranges::find(contrast.retained, candidate.token_id) != contrast.retained.end();
    (kept ? contrast.retained_full_mass : contrast.removed_full_mass) += candidate.probability;
  }
  SplitMix64 generator(kSampleSeed);
  const std::uint64_t before = generator.state();
  contrast.greedy_token =
      llm::sample_next_token(kLogits, SamplingPolicy::greedy(), generator).token_id;
  contrast.greedy_generator_advanced = generator.state() != before;
  require(std::abs(contrast.retained_full_mass + contrast.removed_full_mass - 1.0) < 1e-12,
          "the full softmax no longer sums to one");
  return contrast;
}
// endregion: decoding-contrast

}  // namespace ch36
