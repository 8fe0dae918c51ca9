// The worked examples of chapter 37: three tokens fed one at a time through
// one two-head attention layer with a key/value cache, each step compared
// with full causal attention over the whole prefix; the work saved; a reset
// and replay; eight refused requests; and the same steps through a layer of
// random weights, where a cache that kept queries for keys would show.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "llm/generation/layer_kv_cache.hpp"

namespace ch37 {

inline constexpr std::size_t kModelWidth = 4;
inline constexpr std::size_t kHeads = 2;
inline constexpr std::size_t kHeadWidth = kModelWidth / kHeads;
inline constexpr std::size_t kTokens = 3;
inline constexpr std::size_t kCapacity = 4;
inline constexpr std::size_t kContext = 5;  ///< positions of the rotary table
inline constexpr double kRopeBase = 100.0;
inline constexpr double kTolerance = 1e-12;
inline constexpr std::uint64_t kRandomLayerSeed = 37;

/// The three input rows [1, 3, 4]: x_t = (cos t, -sin t, ...) style rows.
std::vector<double> input_rows();
/// Identity Q/K/V, the head-swapping W_O, 2 heads, 5 positions, base 100.
llm::MultiHeadAttention fixture_layer();
/// Xavier-uniform weights drawn from SplitMix64(37): every projection differs.
llm::MultiHeadAttention random_layer();

/// One head's view of one step.
struct HeadStep {
  std::vector<double> appended_key;    ///< the new rotated key [Dh]
  std::vector<double> appended_value;  ///< the new value [Dh]
  std::vector<double> keys;            ///< every cached key after the append [(t+1) * Dh]
  std::vector<double> values;          ///< every cached value [(t+1) * Dh]
  std::vector<double> weights;         ///< the new query's weights over t+1 keys
};

/// One cached step against the full pass over the same prefix.
struct StepEvidence {
  std::size_t position = 0;
  std::size_t cache_before = 0;
  std::size_t cache_after = 0;
  std::vector<std::size_t> cache_shape;  ///< the cached keys' shape [B, H, t+1, Dh]
  std::vector<double> input;             ///< x_t [D]
  std::vector<double> cached_output;     ///< the cache's output [D]
  std::vector<double> full_output;       ///< the last row of full attention [D]
  double max_abs_difference = 0.0;       ///< largest |cached - full|
  bool bit_identical = false;            ///< every bit equal
  bool cache_matches_full = false;       ///< cached keys and values equal the full pass's
  std::vector<HeadStep> heads;
  llm::KvCacheStepWork work;
};

/// Feeds the three rows through `layer` one at a time into `cache`.
std::vector<StepEvidence> collect_steps(const llm::MultiHeadAttention& layer,
                                        llm::LayerKvCache& cache);

/// Projection rows over the three steps.
struct WorkEvidence {
  std::size_t full_rows_per_projection = 0;
  std::size_t incremental_rows_per_projection = 0;
  std::size_t reused_rows_per_kv_projection = 0;
  std::size_t avoided_rows_across_kv = 0;
};
WorkEvidence work_evidence(const std::vector<StepEvidence>& steps);

/// What reset kept and what the replay gave.
struct ResetEvidence {
  std::size_t before = 0;
  std::size_t after = 0;
  bool allocation_reused = false;
  bool storage_unchanged = false;
  bool replay_identical = false;
};
ResetEvidence reset_and_replay(const llm::MultiHeadAttention& layer, llm::LayerKvCache& cache,
                               const std::vector<StepEvidence>& first);

/// One refused request: was it refused, and is the cache as it was?
struct Refusal {
  std::string label;               ///< the demo's name for the request
  bool refused_unchanged = false;  ///< refused, and the cache's length and rows as before
  std::string error;               ///< `area/kind` of the error thrown
};
/// The eight requests chapter 37 refuses, in the order the demo prints them.
std::vector<Refusal> refusals(const llm::MultiHeadAttention& layer);

/// Rows per step: the key rows each new query read, and the totals.
struct HistoryEvidence {
  std::vector<std::size_t> newest_query_key_rows;
  std::size_t complete_prefix_rows_per_projection = 0;
  std::size_t incremental_rows_per_projection = 0;
  std::size_t reused_key_rows = 0;
  std::size_t reused_value_rows = 0;
};
HistoryEvidence history_evidence(const std::vector<StepEvidence>& steps);

}  // namespace ch37
