// The worked examples of chapter 36: one logit row with a tie, shaped by
// three temperatures, cut by top-k across the tie, pushed to a subnormal
// temperature where a retained token gets probability 0, and sampled eight
// times from SplitMix64 seed 36; the settings refused before any draw; an
// untied row that shows what the tie hides; and chapter 35's checkpoint
// loaded back into a decoder that generates from prompt [0].
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "llm/generation/generation.hpp"
#include "llm/generation/sampling.hpp"
#include "llm/models/decoder_model.hpp"

namespace ch36 {

// region: worked-inputs
/// The row the chapter samples from: tokens 1 and 2 tie.
inline const std::vector<double> kLogits = {0.0, 1.0, 1.0, 2.0};
/// Sharper, unchanged and flatter.
inline constexpr std::array<double, 3> kTemperatures = {0.5, 1.0, 2.0};
/// k = 2 cuts between the tied tokens 1 and 2.
inline constexpr std::size_t kBoundaryTopK = 2;
/// The seeded draws: eight tokens, top-3, tau = 1, seed 36.
inline constexpr std::uint64_t kSampleSeed = 36;
inline constexpr std::size_t kSampleCount = 8;
inline constexpr std::size_t kSampleTopK = 3;
/// A row and the smallest normal double as temperature: token 2 is retained
/// by top-3 but exp((1 - 2) / tau) underflows to 0.
inline const std::vector<double> kSupportLogits = {2.0, 2.0, 1.0};
inline constexpr double kSupportTemperature = std::numeric_limits<double>::min();
inline constexpr std::size_t kSupportTopK = 3;
/// The prompt given to the restored decoder.
inline const std::vector<llm::TokenId> kLoadedPrompt = {0};
inline constexpr std::size_t kLoadedMaxNewTokens = 4;
// endregion: worked-inputs

/// The same logits with the tie broken: 1.5 and 1.0 instead of 1.0 and 1.0.
inline const std::vector<double> kUntiedLogits = {0.0, 1.5, 1.0, 2.0};

/// The three temperatures' distributions over kLogits (k = V).
std::vector<llm::SamplingDistribution> temperature_distributions(const std::vector<double>& logits);

/// kSampleCount draws with seed kSampleSeed at tau = 1, k = kSampleTopK.
std::vector<llm::SamplingDecision> seeded_decisions(const std::vector<double>& logits);

/// Which invalid settings are refused and whether the generator moved.
struct RefusalEvidence {
  bool zero_temperature_rejected = false;
  bool zero_top_k_rejected = false;
  bool nonfinite_logit_rejected = false;
  bool generator_unchanged = false;
};
RefusalEvidence refusal_evidence();

/// Greedy against truncated sampling on kLogits.
struct DecodingContrast {
  llm::TokenId greedy_token = 0;
  bool greedy_generator_advanced = true;
  std::vector<llm::TokenId> retained;
  double retained_full_mass = 0.0;
  double removed_full_mass = 0.0;
};
DecodingContrast decoding_contrast();

/// The logits after a prefix from `model`: the whole prefix as one row.
llm::NextTokenLogits full_prefix_logits(const llm::DecoderModel& model);

/// Chapter 35's checkpoint, restored and generating from kLoadedPrompt.
struct LoadedGeneration {
  std::size_t checkpoint_bytes = 0;
  std::uint64_t generator_state = 0;
  std::size_t vocabulary = 0;
  std::size_t context = 0;
  llm::GenerationResult generated;          ///< no stop token
  bool replay_identical = false;            ///< same state, same tokens and draws
  llm::GenerationResult stopped_at_first;   ///< the first token as the stop token
  std::vector<std::vector<double>> logits;  ///< the logit rows of the first run
};
LoadedGeneration loaded_generation();

}  // namespace ch36
