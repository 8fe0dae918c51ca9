// The worked examples of chapter 38: a two-block decoder fed a two-token
// prompt (prefill) and one more token (decode) through a decoder-wide
// key/value cache, each phase against the full decoder; the work counters;
// generation with and without the cache from chapter 35's trained
// checkpoint, to the context limit and to a stop token; reset and replay;
// and five refused requests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "llm/generation/decoder_kv_cache.hpp"
#include "llm/training/checkpoint.hpp"

namespace ch38 {

inline constexpr std::uint64_t kModelSeed = 38;
inline constexpr double kTolerance = 2e-12;
inline const std::vector<llm::TokenId> kPrompt{0, 1};
inline constexpr llm::TokenId kDecodeToken = 2;

/// V = 5, 2 blocks, D = 4, H = 2, F = 4, context 4, base 10000, epsilon `epsilon`; tied head.
llm::DecoderConfig fixture_config(double epsilon = 1e-6);
/// DecoderModel::initialized(fixture_config(), SplitMix64(38)).
llm::DecoderModel fixture_model();

/// The full decoder's logits after `prefix` and the attention scores it computed.
struct CompletePrefix {
  std::vector<double> logits;        ///< the last row [V]
  std::size_t attention_scores = 0;  ///< every layer's and head's T x T weights
};
CompletePrefix complete_prefix(const llm::DecoderModel& model,
                               const std::vector<llm::TokenId>& prefix);

/// One prefill or decode call against the full decoder.
struct PhaseEvidence {
  std::size_t position = 0;
  std::size_t cache_before = 0;
  std::size_t cache_after = 0;
  std::vector<std::size_t> layer_lengths;
  std::vector<std::size_t> cache_shape;  ///< the first layer's keys [B, H, length, Dh]
  std::vector<double> cached_logits;
  std::vector<double> full_logits;
  std::size_t cached_scores = 0;
  std::size_t full_scores = 0;
  double max_abs_difference = 0.0;
  bool bit_identical = false;
};
PhaseEvidence phase_evidence(const llm::DecoderModel& model, const llm::DecoderKvCache& cache,
                             const llm::CachedLogits& call, std::size_t cache_before,
                             const std::vector<llm::TokenId>& prefix);

/// Generation from the loaded checkpoint, with and without the cache.
struct LoadedGeneration {
  std::size_t checkpoint_bytes = 0;
  std::size_t context = 0;
  std::uint64_t generator_state = 0;
  std::vector<llm::TokenId> prompt;
  llm::GenerationResult cached;
  llm::GenerationResult uncached;
  std::string text;  ///< the generated tokens spelled by the checkpoint's tokenizer
  std::size_t final_cache = 0;
  llm::DecoderKvWork work;
  std::size_t full_scores = 0;  ///< what the uncached calls computed
  bool tokens_match = false;    ///< same tokens, draws, intervals, stop
  bool generator_match = false;
};
/// Generates up to `max_new_tokens` (temperature 1, top-k 3) from prompt [0], stopping at `eos`.
LoadedGeneration loaded_generation(std::optional<llm::TokenId> eos);

/// What reset kept and what the replay gave.
struct ResetEvidence {
  std::size_t before = 0;
  std::size_t after = 0;
  bool allocation_reused = false;
  bool storage_unchanged = false;
  bool work_zeroed = false;
  bool replay_identical = false;
};
ResetEvidence reset_and_replay(const llm::DecoderModel& model, llm::DecoderKvCache& cache,
                               const std::vector<double>& decode_logits);

/// One refused request: refused, and the cache exactly as before?
struct Refusal {
  std::string label;
  bool refused_unchanged = false;
  std::string error;  ///< `area/kind`
};
std::vector<Refusal> refusals(const llm::DecoderModel& model);

}  // namespace ch38
