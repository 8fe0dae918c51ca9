// A key/value cache for one attention layer (chapter 37).
//
// Generating token t+1 needs the attention of one new query over the keys and
// values of positions 0 .. t. Keys and values of the old positions depend only
// on their own tokens and positions (causal attention never lets a row see a
// later one), so they are the same numbers at every step: the cache keeps
// them, and a step projects only the new token:
//
//     q, k, v = project_heads(x_t, position t)      [B, H, 1, Dh] each
//     K = [K_cache; k],  V = [V_cache; v]          [B, H, t+1, Dh]  (appended, never copied)
//     o = softmax(q K^T / sqrt(Dh)) V              [B, H, 1, Dh]
//     y = combine_heads(o)                         [B, 1, D]
//
// which is the last row of the full causal attention of x_0 .. x_t, to the
// bit: the same operations run on the same values in the same order.
//
// The rows are only valid for the weights and the rotary table that made
// them, so the cache records which (a ParameterBinding: node ids and
// versions) and refuses any other layer, or the same layer after an update.
#pragma once

#include <cstddef>

#include "llm/attention/multi_head_attention.hpp"
#include "llm/generation/kv_cache_error.hpp"
#include "llm/nn/parameter_set.hpp"
#include "llm/tensor/append_buffer.hpp"

namespace llm {

// region: layer-kv-cache-work
/// What one cached step computed against what recomputing the prefix would.
struct KvCacheStepWork {
  std::size_t position = 0;              ///< the new token's position t
  std::size_t complete_prefix_rows = 0;  ///< rows per projection without a cache: t + 1
  std::size_t incremental_rows = 1;      ///< rows per projection with it: 1
  std::size_t reused_rows = 0;           ///< key (and value) rows read from the cache: t
  std::size_t attention_scores = 0;      ///< scores the step computed: B * H * (t + 1)
  bool operator==(const KvCacheStepWork&) const = default;  ///< field-by-field equality
};
// endregion: layer-kv-cache-work

/// Every node of one cached step, for chapter 37's demo and figures.
struct KvCacheStep {
  HeadProjections
      heads;           ///< the new token's rotated query and key heads, value heads [B, H, 1, Dh]
  TensorValue keys;    ///< every cached key after the append [B, H, t+1, Dh] (shares the cache)
  TensorValue values;  ///< every cached value after the append [B, H, t+1, Dh]
  AttentionPass attention;  ///< weights [B, H, 1, t+1], head outputs [B, H, 1, Dh]
  TensorValue output;       ///< the layer's output for the new token [B, 1, D]
  KvCacheStepWork work;     ///< rows and scores computed and reused
};

// region: layer-kv-cache-class
/// The keys and values of every position one attention layer has seen, in
/// two append buffers [B, H, capacity, Dh] growing along axis 2, bound to
/// the layer's weights and rotary table. Copying a cache shares its storage:
/// use one owner.
class LayerKvCache {
 public:
  /// An empty cache for `layer`, batch size `batch`, room for `capacity`
  /// positions (at most the layer's context). Allocates once.
  /// @throws KvCacheError ZeroBatch, ZeroCapacity, CapacityExceedsContext;
  ///         TensorError AllocationFailed.
  static LayerKvCache create(const MultiHeadAttention& layer, std::size_t batch,
                             std::size_t capacity);

  /// Attends from one new token `input` [B, 1, D] at position length() over
  /// every cached position and itself, appends its key and value, and
  /// returns every node. Runs without recording a tape (NoGradScope).
  /// Checks before writing; a failure in the arithmetic (an overflowing
  /// score) undoes the append, so on any throw the cache is unchanged.
  /// @throws KvCacheError as check_layer(), then InputShape, CacheFull;
  ///         TensorAutodiffError NonFiniteResult from the operations.
  KvCacheStep attend(const MultiHeadAttention& layer, const TensorValue& input);

  /// Whether `layer` may use this cache: the same width and head count, the
  /// same parameter nodes at the same versions, the same rotary table.
  /// @throws KvCacheError LayerShapeMismatch, LayerMismatch, StaleWeights,
  ///         RotaryMismatch, in that order.
  void check_layer(const MultiHeadAttention& layer) const;

  /// The cached keys [B, H, length, Dh]: a view of the cache's storage, no copy.
  SharedTensor keys() const { return keys_.prefix(); }
  /// The cached values [B, H, length, Dh].
  SharedTensor values() const { return values_.prefix(); }
  /// Forgets every position; keeps the storage (and the binding) for reuse.
  void reset() noexcept;
  /// Forgets the positions from `length` on (none when `length` >= length()):
  /// how a decoder-wide step that failed in a later layer undoes this one.
  void truncate(std::size_t length) noexcept;

  /// Positions cached.
  std::size_t length() const noexcept { return keys_.length(); }
  /// Positions the cache can hold.
  std::size_t capacity() const noexcept { return keys_.capacity(); }
  /// B.
  std::size_t batch() const noexcept { return keys_.shape()[0]; }
  /// H.
  std::size_t heads() const noexcept { return keys_.shape()[1]; }
  /// Dh.
  std::size_t head_width() const noexcept { return keys_.shape()[3]; }
  /// D = H * Dh.
  std::size_t model_width() const noexcept { return heads() * head_width(); }
  /// Whether `tensor` reads this cache's key or value storage (tests of reuse).
  bool shares_storage_with(const SharedTensor& tensor) const noexcept {
    return keys_.shares_storage_with(tensor) || values_.shares_storage_with(tensor);
  }

 private:
  LayerKvCache(AppendBuffer keys, AppendBuffer values, ParameterBinding binding,
               const RotaryTable& rotary);
  AppendBuffer keys_;         ///< rotated keys [B, H, capacity, Dh]
  AppendBuffer values_;       ///< values [B, H, capacity, Dh]
  ParameterBinding binding_;  ///< the weights that computed the rows
  std::size_t rotary_width_ = 0;
  std::size_t rotary_capacity_ = 0;
  double rotary_base_ = 0.0;
};
// endregion: layer-kv-cache-class

}  // namespace llm
