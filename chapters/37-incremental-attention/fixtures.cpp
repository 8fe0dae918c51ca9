// Chapter 37's worked examples (see fixtures.hpp).
#include "fixtures.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <utility>

#include "llm/error.hpp"

namespace ch37 {
namespace {

using llm::KvCacheStep;
using llm::LayerKvCache;
using llm::Linear;
using llm::MultiHeadAttention;
using llm::SharedTensor;
using llm::Tensor;
using llm::TensorValue;

Linear square(const std::vector<double>& values) {
  return Linear(TensorValue::parameter(Tensor({kModelWidth, kModelWidth}, values)), std::nullopt);
}

std::vector<double> values_of(const SharedTensor& tensor) {
  const Tensor contiguous = tensor.materialize();
  return {contiguous.values().begin(), contiguous.values().end()};
}

std::vector<double> row_values(const std::vector<double>& values, std::size_t row,
                               std::size_t width) {
  return {values.begin() + static_cast<std::ptrdiff_t>(row * width),
          values.begin() + static_cast<std::ptrdiff_t>((row + 1) * width)};
}

TensorValue rows(std::size_t first, std::size_t count) {
  const std::vector<double> all = input_rows();
  return TensorValue::constant(
      Tensor({1, count, kModelWidth},
             std::vector<double>(
                 all.begin() + static_cast<std::ptrdiff_t>(first * kModelWidth),
                 all.begin() + static_cast<std::ptrdiff_t>((first + count) * kModelWidth))));
}

double max_abs_difference(const std::vector<double>& left, const std::vector<double>& right) {
  double largest = 0.0;
  for (std::size_t i = 0; i < left.size(); ++i) {
    largest = std::max(largest, std::abs(left[i] - right[i]));
  }
  return largest;
}

// The cache's length and rows, to tell whether a refused request changed it.
struct CacheState {
  std::size_t length = 0;
  std::vector<double> keys;
  std::vector<double> values;
  bool operator==(const CacheState&) const = default;
};

CacheState state_of(const LayerKvCache& cache) {
  return {cache.length(), values_of(cache.keys()), values_of(cache.values())};
}

}  // namespace

std::vector<double> input_rows() {
  return {1.0,           0.0,
          1.0,           0.0,  // x_0
          std::cos(1.0), -std::sin(1.0),
          0.0,           1.0,  // x_1
          std::cos(2.0), -std::sin(2.0),
          1.0,           1.0};  // x_2
}

// region: fixture-layer
MultiHeadAttention fixture_layer() {
  const std::vector<double> identity{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  // W_O sends merged features 0, 1 (head 0) to outputs 2, 3 and 2, 3 to 0, 1.
  const std::vector<double> swap_heads{0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0};
  return MultiHeadAttention(
      llm::QkvProjections(square(identity), square(identity), square(identity)), square(swap_heads),
      kHeads, llm::RotaryTable(kHeadWidth, kContext, kRopeBase));
}
// endregion: fixture-layer

MultiHeadAttention random_layer() {
  llm::SplitMix64 generator(kRandomLayerSeed);
  return MultiHeadAttention::initialized(kModelWidth, kHeads, kContext, kRopeBase, generator);
}

// region: cache-step
std::vector<StepEvidence> collect_steps(const MultiHeadAttention& layer, LayerKvCache& cache) {
  std::vector<StepEvidence> steps;
  for (std::size_t position = 0; position < kTokens; ++position) {
    StepEvidence step;
    step.position = position;
    step.cache_before = cache.length();
    // One new row at position cache.length() ...
    const KvCacheStep cached = cache.attend(layer, rows(position, 1));
    // ... against the full causal pass over rows 0 .. position.
    const llm::MultiHeadAttentionPass full =
        layer.forward_with_intermediates(rows(0, position + 1));
    step.cache_after = cache.length();
    const llm::Shape shape = cache.keys().shape();
    step.cache_shape.assign(shape.begin(), shape.end());
    step.input = row_values(input_rows(), position, kModelWidth);
    step.cached_output = values_of(cached.output.value());
    step.full_output = row_values(values_of(full.output.value()), position, kModelWidth);
    step.max_abs_difference = max_abs_difference(step.cached_output, step.full_output);
    step.bit_identical = step.cached_output == step.full_output;  // == on doubles: every bit
    step.cache_matches_full =
        values_of(cache.keys()) == values_of(full.rotated_key_heads.value()) &&
        values_of(cache.values()) == values_of(full.value_heads.value());
    step.work = cached.work;
    const std::vector<double> key = values_of(cached.heads.key.value());
    const std::vector<double> value = values_of(cached.heads.value.value());
    const std::vector<double> keys = values_of(cache.keys());
    const std::vector<double> values = values_of(cache.values());
    const std::vector<double> weights = values_of(cached.attention.weights.value());
    const std::size_t span = position + 1;
    for (std::size_t head = 0; head < kHeads; ++head) {
      step.heads.push_back({row_values(key, head, kHeadWidth), row_values(value, head, kHeadWidth),
                            row_values(keys, head, span * kHeadWidth),
                            row_values(values, head, span * kHeadWidth),
                            row_values(weights, head, span)});
    }
    steps.push_back(std::move(step));
  }
  return steps;
}
// endregion: cache-step

WorkEvidence work_evidence(const std::vector<StepEvidence>& steps) {
  WorkEvidence work;
  for (const StepEvidence& step : steps) {
    work.full_rows_per_projection += step.work.complete_prefix_rows;
    work.incremental_rows_per_projection += step.work.incremental_rows;
    work.reused_rows_per_kv_projection += step.work.reused_rows;
  }
  work.avoided_rows_across_kv = 2 * work.reused_rows_per_kv_projection;  // keys and values
  return work;
}

// region: cache-reset
ResetEvidence reset_and_replay(const MultiHeadAttention& layer, LayerKvCache& cache,
                               const std::vector<StepEvidence>& first) {
  ResetEvidence evidence;
  evidence.before = cache.length();
  {
    const SharedTensor keys = cache.keys();  // a handle on the rows, to look at after the reset
    const std::vector<double> stored = values_of(keys);
    cache.reset();
    evidence.after = cache.length();
    evidence.allocation_reused = cache.shares_storage_with(keys);
    evidence.storage_unchanged = values_of(keys) == stored;  // reset wrote nothing
  }  // the handle goes: the replay may write over the old rows
  const std::vector<StepEvidence> replay = collect_steps(layer, cache);
  evidence.replay_identical = true;
  for (std::size_t i = 0; i < replay.size(); ++i) {
    evidence.replay_identical = evidence.replay_identical &&
                                replay[i].cached_output == first[i].cached_output &&
                                replay[i].heads.back().keys == first[i].heads.back().keys;
  }
  return evidence;
}
// endregion: cache-reset

// region: cache-errors
std::vector<Refusal> refusals(const MultiHeadAttention& layer) {
  // Runs `request` against `cache`: refused, and the cache exactly as before?
  const auto refuse = [](std::string label, LayerKvCache& cache,
                         const std::function<void(LayerKvCache&)>& request) {
    const CacheState before = state_of(cache);
    Refusal refusal{std::move(label), false, ""};
    try {
      request(cache);
    } catch (const llm::Error& error) {
      refusal.refused_unchanged = state_of(cache) == before;
      refusal.error = std::string(error.area()) + "/" + std::string(error.kind_name());
    }
    return refusal;
  };
  const TensorValue one = rows(0, 1);
  llm::SplitMix64 generator(kRandomLayerSeed);
  std::vector<Refusal> out;

  LayerKvCache cache = LayerKvCache::create(layer, 1, kCapacity);
  out.push_back(refuse("two_tokens", cache, [&](LayerKvCache& c) { c.attend(layer, rows(0, 2)); }));

  LayerKvCache full = LayerKvCache::create(layer, 1, 1);
  full.attend(layer, one);
  out.push_back(refuse("full_cache", full, [&](LayerKvCache& c) { c.attend(layer, one); }));

  const MultiHeadAttention wider =
      MultiHeadAttention::initialized(8, kHeads, kContext, kRopeBase, generator);
  LayerKvCache wide = LayerKvCache::create(wider, 1, kCapacity);
  out.push_back(refuse("model_mismatch", wide, [&](LayerKvCache& c) { c.attend(layer, one); }));

  const MultiHeadAttention one_head =
      MultiHeadAttention::initialized(kModelWidth, 1, kContext, kRopeBase, generator);
  LayerKvCache single = LayerKvCache::create(one_head, 1, kCapacity);
  out.push_back(refuse("head_mismatch", single, [&](LayerKvCache& c) { c.attend(layer, one); }));

  // Equal values in other tensors: still another layer.
  const MultiHeadAttention twin = fixture_layer();
  LayerKvCache twins = LayerKvCache::create(twin, 1, kCapacity);
  out.push_back(refuse("layer_mismatch", twins, [&](LayerKvCache& c) { c.attend(layer, one); }));

  // The same weight tensors, rotated with another base, or a table of more positions.
  const auto rotated_by = [&](llm::RotaryTable table) {
    return MultiHeadAttention(layer.projections(), layer.output(), kHeads, std::move(table));
  };
  const MultiHeadAttention other_base =
      rotated_by(llm::RotaryTable(kHeadWidth, kContext, 2 * kRopeBase));
  LayerKvCache base_cache = LayerKvCache::create(layer, 1, kCapacity);
  out.push_back(
      refuse("rope_mismatch", base_cache, [&](LayerKvCache& c) { c.attend(other_base, one); }));
  const MultiHeadAttention longer =
      rotated_by(llm::RotaryTable(kHeadWidth, kContext + 1, kRopeBase));
  LayerKvCache position_cache = LayerKvCache::create(layer, 1, kCapacity);
  out.push_back(refuse("rope_positions_mismatch", position_cache,
                       [&](LayerKvCache& c) { c.attend(longer, one); }));

  // Finite inputs whose scores overflow: the step fails after its append and undoes it.
  const TensorValue huge = TensorValue::constant(Tensor(
      {1, 1, kModelWidth}, std::vector<double>(kModelWidth, std::numeric_limits<double>::max())));
  LayerKvCache overflow = LayerKvCache::create(layer, 1, kCapacity);
  out.push_back(
      refuse("nonfinite_projection", overflow, [&](LayerKvCache& c) { c.attend(layer, huge); }));
  return out;
}
// endregion: cache-errors

// region: historical-kv-contrast
HistoryEvidence history_evidence(const std::vector<StepEvidence>& steps) {
  HistoryEvidence history;
  for (const StepEvidence& step : steps) {
    // The newest query read every cached key row, its own included.
    history.newest_query_key_rows.push_back(step.heads.front().weights.size());
    history.complete_prefix_rows_per_projection += step.work.complete_prefix_rows;
    history.incremental_rows_per_projection += step.work.incremental_rows;
    history.reused_key_rows += step.work.reused_rows;
    history.reused_value_rows += step.work.reused_rows;
  }
  if (history.complete_prefix_rows_per_projection !=
      history.incremental_rows_per_projection + history.reused_key_rows) {
    throw std::logic_error("every prefix row is either projected now or reused");
  }
  return history;
}
// endregion: historical-kv-contrast

}  // namespace ch37
