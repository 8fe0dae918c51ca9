// Chapter 36 demo: one logit row with a tie under three temperatures, a
// top-k cut across the tie, a subnormal temperature whose retained token has
// probability 0, eight seeded draws, greedy, chapter 35's checkpoint
// generating until its context or a stop token ends the loop, the settings
// refused before any draw, and what truncation removes from the full
// softmax. With --trace PATH it also writes every candidate, draw and
// interval, the untied row and the restored decoder's logits for the figures.
#include <charconv>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"

namespace {

using demo::Json;
using llm::format_fixed;
using llm::SamplingDistribution;
using llm::TokenId;

template <class T>
std::string ids_text(const std::vector<T>& ids) {
  std::string text = "[";
  for (std::size_t i = 0; i < ids.size(); ++i) text += (i ? "," : "") + std::to_string(ids[i]);
  return text + "]";
}

std::string probabilities_text(const SamplingDistribution& distribution) {
  std::string text = "[";
  for (std::size_t i = 0; i < distribution.candidates.size(); ++i)
    text += (i ? "," : "") + format_fixed(distribution.candidates[i].probability, 12);
  return text + "]";
}

/// The token IDs in rank order (descending logit, ties to the lower ID).
std::vector<TokenId> stable_order(const SamplingDistribution& distribution) {
  std::vector<TokenId> order(distribution.candidates.size());
  for (const llm::SamplingCandidate& candidate : distribution.candidates)
    order[candidate.rank - 1] = candidate.token_id;
  return order;
}

/// The tokens that share the logit of the last retained token: those top-k
/// kept and those it dropped.
std::pair<std::vector<TokenId>, std::vector<TokenId>> tied_boundary(
    const SamplingDistribution& distribution) {
  const TokenId last = distribution.retained_token_ids.back();
  const double boundary_logit = distribution.candidates[last].logit;
  std::pair<std::vector<TokenId>, std::vector<TokenId>> split;
  for (const llm::SamplingCandidate& candidate : distribution.candidates) {
    if (candidate.logit != boundary_logit) continue;
    (candidate.retained ? split.first : split.second).push_back(candidate.token_id);
  }
  return split;
}

std::string joined_ids(const std::vector<TokenId>& ids) {
  std::string text;
  for (std::size_t i = 0; i < ids.size(); ++i) text += (i ? "," : "") + std::to_string(ids[i]);
  return text;
}

/// The shortest round-trip digits in exponent form (Rust's `{:e}`).
std::string shortest_exponent(double value) {
  char digits[64];
  const auto result =
      std::to_chars(digits, digits + sizeof digits, value, std::chars_format::scientific);
  return std::string(digits, result.ptr);
}

std::string hex_state(std::uint64_t state) {
  char digits[19];
  std::snprintf(digits, sizeof digits, "0x%016llx", static_cast<unsigned long long>(state));
  return digits;
}

const char* bool_text(bool value) {
  return value ? "true" : "false";
}

std::vector<std::size_t> prefix_lengths(const llm::GenerationResult& result) {
  std::vector<std::size_t> lengths;
  for (const llm::GenerationStep& step : result.steps) lengths.push_back(step.prefix_length);
  return lengths;
}

Json distribution_json(const SamplingDistribution& distribution) {
  Json candidates = Json::array();
  for (const llm::SamplingCandidate& candidate : distribution.candidates) {
    candidates.push_back({{"id", candidate.token_id},
                          {"logit", candidate.logit},
                          {"rank", candidate.rank},
                          {"retained", candidate.retained},
                          {"probability", candidate.probability}});
  }
  return {{"temperature", distribution.policy.temperature()},
          {"top_k", distribution.policy.top_k()},
          {"retained", distribution.retained_token_ids},
          {"sum", distribution.probability_sum()},
          {"candidates", candidates}};
}

Json draws_json(const std::vector<llm::SamplingDecision>& decisions) {
  Json draws = Json::array();
  for (const llm::SamplingDecision& decision : decisions) {
    draws.push_back({{"unit", decision.sampled.unit_draw.value()},
                     {"start", decision.sampled.interval_start},
                     {"end", decision.sampled.interval_end},
                     {"token", decision.sampled.token_id}});
  }
  return draws;
}

Json generation_json(const llm::GenerationResult& result) {
  Json steps = Json::array();
  for (const llm::GenerationStep& step : result.steps) {
    steps.push_back({{"prefix_length", step.prefix_length},
                     {"token", step.token_id},
                     {"unit", step.unit_draw.value_or(-1.0)},
                     {"start", step.interval_start},
                     {"end", step.interval_end}});
  }
  return {{"generated", result.generated},
          {"stop", llm::generation_stop_name(result.stop)},
          {"model_calls", result.model_calls},
          {"steps", steps}};
}

}  // namespace

// region: learner-sampling-output
int main(int argc, char** argv) try {
  const auto trace_path = demo::trace_path(argc, argv);
  const auto temperatures = ch36::temperature_distributions(ch36::kLogits);
  const SamplingDistribution boundary = llm::sampling_distribution(
      ch36::kLogits, llm::SamplingPolicy::temperature_top_k(1.0, ch36::kBoundaryTopK));
  const SamplingDistribution support = llm::sampling_distribution(
      ch36::kSupportLogits,
      llm::SamplingPolicy::temperature_top_k(ch36::kSupportTemperature, ch36::kSupportTopK));
  llm::SplitMix64 greedy_generator(ch36::kSampleSeed);
  const llm::SampledToken greedy =
      llm::sample_next_token(ch36::kLogits, llm::SamplingPolicy::greedy(), greedy_generator);
  const auto decisions = ch36::seeded_decisions(ch36::kLogits);
  const ch36::LoadedGeneration loaded = ch36::loaded_generation();
  const ch36::RefusalEvidence refusals = ch36::refusal_evidence();
  const ch36::DecodingContrast contrast = ch36::decoding_contrast();

  std::vector<TokenId> sequence;
  for (const llm::SamplingDecision& decision : decisions)
    sequence.push_back(decision.sampled.token_id);

  std::cout << "chapter=36-temperature-top-k\n";
  std::cout << "input=logits:[";
  for (std::size_t i = 0; i < ch36::kLogits.size(); ++i)
    std::cout << (i ? "," : "") << format_fixed(ch36::kLogits[i], 6);
  std::cout << "] stable_order:" << ids_text(stable_order(temperatures[0])) << '\n';
  std::cout << "temperature=";
  for (std::size_t i = 0; i < temperatures.size(); ++i) {
    std::cout << (i ? " " : "") << "tau:" << format_fixed(ch36::kTemperatures[i], 6)
              << " probabilities:" << probabilities_text(temperatures[i]);
  }
  std::cout << '\n';
  const auto [kept, removed] = tied_boundary(boundary);
  std::cout << "top_k=k:" << ch36::kBoundaryTopK
            << " retained:" << ids_text(boundary.retained_token_ids)
            << " tied_boundary:keep:" << joined_ids(kept) << " remove:" << joined_ids(removed)
            << " sum:" << format_fixed(boundary.probability_sum(), 12) << '\n';
  std::cout << "support=tau:" << shortest_exponent(ch36::kSupportTemperature)
            << " top_k:" << ch36::kSupportTopK
            << " retained:" << ids_text(support.retained_token_ids)
            << " positive_support:" << ids_text(support.positive_support_token_ids())
            << " probabilities:" << probabilities_text(support) << '\n';
  std::cout << "sample=seed:" << ch36::kSampleSeed << " top_k:" << ch36::kSampleTopK
            << " sequence:" << ids_text(sequence) << " draws:" << decisions.size()
            << " greedy_token:" << greedy.token_id
            << " greedy_draw:" << (greedy.unit_draw ? "drawn" : "none") << '\n';
  std::cout << "checkpoint=loaded_bytes:" << loaded.checkpoint_bytes
            << " rng_state:" << hex_state(loaded.generator_state)
            << " vocabulary:" << loaded.vocabulary << " context:" << loaded.context
            << " eos:none max_new_tokens:" << ch36::kLoadedMaxNewTokens
            << " prompt:" << ids_text(ch36::kLoadedPrompt)
            << " generated:" << ids_text(loaded.generated.generated)
            << " prefixes:" << ids_text(prefix_lengths(loaded.generated))
            << " stop:" << llm::generation_stop_name(loaded.generated.stop)
            << " full_prefix_calls:" << loaded.generated.model_calls
            << " replay_identical:" << bool_text(loaded.replay_identical) << '\n';
  std::cout << "eos=vocabulary:" << loaded.vocabulary << " context:" << loaded.context
            << " eos_token:" << loaded.stopped_at_first.generated.front()
            << " max_new_tokens:" << ch36::kLoadedMaxNewTokens
            << " generated:" << ids_text(loaded.stopped_at_first.generated)
            << " stop:" << llm::generation_stop_name(loaded.stopped_at_first.stop)
            << " full_prefix_calls:" << loaded.stopped_at_first.model_calls << '\n';
  std::cout << "errors=temperature_zero:" << bool_text(refusals.zero_temperature_rejected)
            << " top_k_zero:" << bool_text(refusals.zero_top_k_rejected)
            << " nonfinite_logit:" << bool_text(refusals.nonfinite_logit_rejected)
            << " rng_unchanged:" << bool_text(refusals.generator_unchanged) << '\n';
  std::cout << "history=greedy_token:" << contrast.greedy_token
            << " greedy_rng_advanced:" << bool_text(contrast.greedy_generator_advanced)
            << " top_k:" << ch36::kSampleTopK << " retained:" << ids_text(contrast.retained)
            << " retained_full_mass:" << format_fixed(contrast.retained_full_mass, 12)
            << " removed_full_mass:" << format_fixed(contrast.removed_full_mass, 12) << '\n';
  std::cout << "next=cache one attention layer while preserving its newest-position output\n";

  Json temperature_trace = Json::array();
  for (const SamplingDistribution& distribution : temperatures)
    temperature_trace.push_back(distribution_json(distribution));
  Json untied_temperatures = Json::array();
  for (const SamplingDistribution& distribution :
       ch36::temperature_distributions(ch36::kUntiedLogits))
    untied_temperatures.push_back(distribution_json(distribution));
  demo::write_trace(
      trace_path,
      {{"logits", ch36::kLogits},
       {"temperatures", temperature_trace},
       {"boundary", distribution_json(boundary)},
       {"support", distribution_json(support)},
       {"support_logits", ch36::kSupportLogits},
       {"draw_distribution", distribution_json(decisions.front().distribution)},
       {"draws", draws_json(decisions)},
       {"untied",
        {{"logits", ch36::kUntiedLogits},
         {"temperatures", untied_temperatures},
         {"boundary", distribution_json(llm::sampling_distribution(
                          ch36::kUntiedLogits,
                          llm::SamplingPolicy::temperature_top_k(1.0, ch36::kBoundaryTopK)))},
         {"draw_distribution",
          distribution_json(ch36::seeded_decisions(ch36::kUntiedLogits).front().distribution)},
         {"draws", draws_json(ch36::seeded_decisions(ch36::kUntiedLogits))}}},
       {"loaded",
        {{"bytes", loaded.checkpoint_bytes},
         {"generator_state", hex_state(loaded.generator_state)},
         {"vocabulary", loaded.vocabulary},
         {"context", loaded.context},
         {"logits", loaded.logits},
         {"run", generation_json(loaded.generated)},
         {"eos", generation_json(loaded.stopped_at_first)}}},
       {"history",
        {{"retained", contrast.retained},
         {"retained_full_mass", contrast.retained_full_mass},
         {"removed_full_mass", contrast.removed_full_mass}}}});
  return 0;
} catch (const std::exception& error) {
  std::cerr << "chapter 36 demo failed: " << error.what() << '\n';
  return 1;
}
// endregion: learner-sampling-output
