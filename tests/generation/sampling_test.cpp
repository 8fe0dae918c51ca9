// Chapter 36: temperature and top-k sampling over one logit row. The
// printed numbers of the reference chapter are asserted as the chapter
// prints them (12 decimals), from our own computation: the stable order, the
// three temperatures, the tied top-k boundary, the subnormal temperature
// whose retained token has probability 0, and the seeded sequence.
#include "llm/generation/sampling.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "llm/format.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;

const std::vector<double> kLogits = {0.0, 1.0, 1.0, 2.0};

std::string probabilities_text(const SamplingDistribution& distribution) {
  std::string text = "[";
  for (const SamplingCandidate& candidate : distribution.candidates) {
    if (text.size() > 1) text += ",";
    text += format_fixed(candidate.probability, 12);
  }
  return text + "]";
}

std::string ids_text(const std::vector<TokenId>& ids) {
  std::string text = "[";
  for (TokenId id : ids) text += (text.size() > 1 ? "," : "") + std::to_string(id);
  return text + "]";
}

TEST(Sampling, RanksByDescendingLogitThenLowerId) {
  const auto distribution = sampling_distribution(kLogits, SamplingPolicy::temperature_top_k(1, 4));
  EXPECT_EQ(ids_text(distribution.retained_token_ids), "[3,1,2,0]");  // stable_order
  EXPECT_EQ(distribution.candidates[1].rank, 2u);
  EXPECT_EQ(distribution.candidates[2].rank, 3u);
}

// temperature=tau:0.500000 probabilities:[...] tau:1.000000 ... tau:2.000000 ...
TEST(Sampling, TemperatureSharpensAndFlattensLikeChapter36) {
  const std::vector<std::pair<double, std::string>> expected = {
      {0.5, "[0.014209336619,0.104993585404,0.104993585404,0.775803492574]"},
      {1.0, "[0.072329488129,0.196611933241,0.196611933241,0.534446645389]"},
      {2.0, "[0.142536956597,0.235003712202,0.235003712202,0.387455619000]"},
  };
  for (const auto& [tau, text] : expected) {
    const auto distribution =
        sampling_distribution(kLogits, SamplingPolicy::temperature_top_k(tau, 4));
    EXPECT_EQ(probabilities_text(distribution), text) << "tau " << tau;
  }
}

// top_k=k:2 retained:[3,1] tied_boundary:keep:1 remove:2 sum:1.000000000000
TEST(Sampling, ATiedTopKBoundaryKeepsTheLowerId) {
  const auto distribution = sampling_distribution(kLogits, SamplingPolicy::temperature_top_k(1, 2));
  EXPECT_EQ(ids_text(distribution.retained_token_ids), "[3,1]");
  EXPECT_TRUE(distribution.candidates[1].retained);
  EXPECT_FALSE(distribution.candidates[2].retained);  // same logit as 1, higher ID
  EXPECT_EQ(distribution.candidates[2].probability, 0.0);
  EXPECT_EQ(format_fixed(distribution.probability_sum(), 12), "1.000000000000");
}

// support=tau:2.2250738585072014e-308 top_k:3 retained:[0,1,2] positive_support:[0,1]
// probabilities:[0.500000000000,0.500000000000,0.000000000000]
TEST(Sampling, ASubnormalScaleTemperatureRetainsATokenOfProbabilityZero) {
  const double tau = std::numeric_limits<double>::min();
  EXPECT_EQ(format_shortest(tau), "2.2250738585072014e-308");
  const auto distribution = sampling_distribution(std::vector<double>{2.0, 2.0, 1.0},
                                                  SamplingPolicy::temperature_top_k(tau, 3));
  EXPECT_EQ(ids_text(distribution.retained_token_ids), "[0,1,2]");
  EXPECT_EQ(ids_text(distribution.positive_support_token_ids()), "[0,1]");
  EXPECT_EQ(std::bit_cast<std::uint64_t>(distribution.candidates[0].probability),
            std::bit_cast<std::uint64_t>(0.5));
  EXPECT_EQ(std::bit_cast<std::uint64_t>(distribution.candidates[2].probability),
            std::bit_cast<std::uint64_t>(0.0));
  EXPECT_TRUE(distribution.candidates[2].retained);
}

// sample=seed:36 top_k:3 sequence:[3,2,2,2,3,3,3,3] draws:8 greedy_token:3 greedy_draw:none
TEST(Sampling, TheSeededSequenceOfChapter36) {
  SplitMix64 generator(36);
  std::vector<TokenId> sequence;
  std::size_t draws = 0;
  for (int i = 0; i < 8; ++i) {
    const SamplingDecision decision =
        sample_next_token_with_trace(kLogits, SamplingPolicy::temperature_top_k(1.0, 3), generator);
    sequence.push_back(decision.sampled.token_id);
    draws += decision.sampled.unit_draw.has_value();
    // The draw lies in the chosen token's interval.
    EXPECT_GE(*decision.sampled.unit_draw, decision.sampled.interval_start);
    EXPECT_LT(*decision.sampled.unit_draw, decision.sampled.interval_end);
  }
  EXPECT_EQ(ids_text(sequence), "[3,2,2,2,3,3,3,3]");
  EXPECT_EQ(draws, 8u);

  SplitMix64 greedy_generator(36);
  const SampledToken greedy =
      sample_next_token(kLogits, SamplingPolicy::greedy(), greedy_generator);
  EXPECT_EQ(greedy.token_id, 3u);
  EXPECT_FALSE(greedy.unit_draw);
  EXPECT_EQ(greedy_generator.state(), 36u);  // greedy_rng_advanced:false
}

// history=... top_k:3 retained:[3,1,2] retained_full_mass:0.927670511871
// removed_full_mass:0.072329488129
TEST(Sampling, TopKRemovesTheTailOfTheFullDistribution) {
  const auto full = sampling_distribution(kLogits, SamplingPolicy::temperature_top_k(1, 4));
  const auto truncated = sampling_distribution(kLogits, SamplingPolicy::temperature_top_k(1, 3));
  EXPECT_EQ(ids_text(truncated.retained_token_ids), "[3,1,2]");
  double retained = 0.0, removed = 0.0;
  for (const SamplingCandidate& candidate : full.candidates) {
    (truncated.candidates[candidate.token_id].retained ? retained : removed) +=
        candidate.probability;
  }
  EXPECT_EQ(format_fixed(retained, 12), "0.927670511871");
  EXPECT_EQ(format_fixed(removed, 12), "0.072329488129");
}

// errors=temperature_zero:true top_k_zero:true nonfinite_logit:true rng_unchanged:true
TEST(Sampling, RefusedRequestsLeaveTheGeneratorUnchanged) {
  SplitMix64 generator(36);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    std::vector<double> logits;
    SamplingPolicy policy;
    SamplingErrorKind kind;
  };
  const std::vector<Case> cases = {
      {kLogits, SamplingPolicy::temperature_top_k(0.0, 2), SamplingErrorKind::InvalidTemperature},
      {kLogits, SamplingPolicy::temperature_top_k(inf, 2), SamplingErrorKind::InvalidTemperature},
      {kLogits, SamplingPolicy::temperature_top_k(1.0, 0), SamplingErrorKind::InvalidTopK},
      {kLogits, SamplingPolicy::temperature_top_k(1.0, 5), SamplingErrorKind::InvalidTopK},
      {{0.0, nan}, SamplingPolicy::temperature_top_k(1.0, 1), SamplingErrorKind::NonFiniteLogit},
      {{0.0, -inf}, SamplingPolicy::greedy(), SamplingErrorKind::NonFiniteLogit},
      {{}, SamplingPolicy::greedy(), SamplingErrorKind::EmptyLogits},
      // The row is checked before the policy.
      {{nan}, SamplingPolicy::temperature_top_k(0.0, 0), SamplingErrorKind::NonFiniteLogit},
  };
  for (const Case& c : cases) {
    const auto error =
        capture_error<SamplingError>([&] { sample_next_token(c.logits, c.policy, generator); });
    EXPECT_EQ(error->kind(), c.kind) << error->what();
    EXPECT_EQ(generator.state(), 36u);
  }
  const auto error = capture_error<SamplingError>(
      [&] { sample_next_token(kLogits, SamplingPolicy::temperature_top_k(1.0, 7), generator); });
  EXPECT_STREQ(error->what(), "top-k must be in 1..4, got 7");
}

// Each retained token is drawn about as often as its probability says: the
// cumulative intervals cover [0, 1) in token-ID order.
TEST(Sampling, DrawFrequenciesFollowTheProbabilities) {
  SplitMix64 generator(7);
  const auto policy = SamplingPolicy::temperature_top_k(1.0, 3);
  const auto distribution = sampling_distribution(kLogits, policy);
  std::vector<int> counts(4, 0);
  const int draws = 40000;
  for (int i = 0; i < draws; ++i) ++counts[sample_next_token(kLogits, policy, generator).token_id];
  EXPECT_EQ(counts[0], 0);
  for (TokenId token : {1u, 2u, 3u}) {
    EXPECT_NEAR(counts[token] / double(draws), distribution.candidates[token].probability, 0.01);
  }
}

}  // namespace
}  // namespace llm
