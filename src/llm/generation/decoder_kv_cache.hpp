// A key/value cache for a whole decoder, and generation through it
// (chapter 38).
//
// Every block's attention layer gets its own LayerKvCache (chapter 37); one
// token goes through the blocks in order, and each block's attention appends
// to its own cache. Generation then has two phases:
//
//     prefill(prompt)   the prompt's tokens, one after another, into empty caches:
//                       the logits of the position after the prompt
//     decode(token)     one more token at position length(): the next logits
//
// Both give exactly the last row of the logits the full decoder computes for
// the same prefix (chapter 32's DecoderModel::forward), bit for bit, and
// generate_cached() plugs them into chapter 36's generation loop, which then
// chooses the same tokens with the same draws as without the cache.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "llm/generation/generation.hpp"
#include "llm/generation/layer_kv_cache.hpp"
#include "llm/models/decoder_model.hpp"

namespace llm {

// region: decoder-kv-work
/// What a decoder cache has computed since it was made or reset.
struct DecoderKvWork {
  std::size_t prefill_tokens = 0;    ///< prompt tokens fed by prefill()
  std::size_t decode_tokens = 0;     ///< tokens fed by decode()
  std::size_t cache_appends = 0;     ///< key/value rows appended, summed over layers
  std::size_t qkv_rows = 0;          ///< rows projected to Q, K and V: 3 per token per layer
  std::size_t attention_scores = 0;  ///< query-key scores, summed over layers and heads
  bool operator==(const DecoderKvWork&) const = default;  ///< field-by-field equality
};
// endregion: decoder-kv-work

/// The result of one prefill() or decode() call.
struct CachedLogits {
  std::size_t position = 0;          ///< the position of the last token fed
  std::size_t cache_length = 0;      ///< positions cached after the call
  std::vector<double> logits;        ///< the next token's logits [V]
  std::size_t attention_scores = 0;  ///< scores this call computed, over layers and heads
};

// region: decoder-kv-cache-class
/// One LayerKvCache per block of one decoder (batch 1), bound to the
/// decoder's configuration and parameters, and the work done through it.
/// Copying a cache shares its storage: use one owner.
class DecoderKvCache {
 public:
  /// Empty caches for every block of `model`, each with room for
  /// `capacity` positions (0: the model's context). Allocates once.
  /// @throws KvCacheError NoLayers, then as LayerKvCache::create;
  ///         TensorError AllocationFailed.
  static DecoderKvCache create(const DecoderModel& model, std::size_t capacity = 0);

  /// Feeds `prompt` into the empty caches and returns the logits after its
  /// last token. Checks before any work; a failure in the arithmetic undoes
  /// every append, so on any throw the cache is unchanged.
  /// @throws KvCacheError as check_model(), then EmptyPrompt, PrefillNotEmpty,
  ///         CacheFull (the prompt does not fit), TokenOutOfRange.
  CachedLogits prefill(const DecoderModel& model, std::span<const TokenId> prompt);

  /// Feeds one token at position length() and returns the next logits.
  /// @throws KvCacheError as check_model(), then DecodeBeforePrefill,
  ///         CacheFull, TokenOutOfRange; on any throw the cache is unchanged.
  CachedLogits decode(const DecoderModel& model, TokenId token);

  /// Whether `model` may use this cache: the same configuration, then the
  /// same parameter nodes at the same versions.
  /// @throws KvCacheError ConfigMismatch, LayerMismatch, StaleWeights.
  void check_model(const DecoderModel& model) const;

  /// Forgets every position and zeroes the work; keeps the storage.
  void reset() noexcept;
  /// Forgets the positions from `length` on in every layer (none when
  /// `length` >= length()), keeping the work counts: rewinds to a prefix,
  /// e.g. to decode another continuation of the same prompt.
  void truncate(std::size_t length) noexcept;

  /// Positions cached (the same in every layer).
  std::size_t length() const noexcept { return layers_.front().length(); }
  /// Positions each layer can hold.
  std::size_t capacity() const noexcept { return layers_.front().capacity(); }
  /// One cache per block, in block order.
  const std::vector<LayerKvCache>& layers() const noexcept { return layers_; }
  /// The work done since create() or reset().
  const DecoderKvWork& work() const noexcept { return work_; }

 private:
  DecoderKvCache(DecoderConfig config, ParameterBinding binding, std::vector<LayerKvCache> layers)
      : config_(std::move(config)), binding_(std::move(binding)), layers_(std::move(layers)) {}
  void check_tokens(std::span<const TokenId> tokens, std::size_t first_position) const;
  std::vector<double> step(const DecoderModel& model, TokenId token);
  DecoderConfig config_;
  ParameterBinding binding_;
  std::vector<LayerKvCache> layers_;
  DecoderKvWork work_;
};
// endregion: decoder-kv-cache-class

// region: generate-cached-declaration
/// Chapter 36's generate() with the logits from `cache`: the first call
/// prefills the prompt, every later call decodes the token chosen last. The
/// cache must be empty; a capacity below the model's context throws
/// CacheFull when the loop outgrows it. Afterwards it holds the prompt and every generated token
/// the loop fed back. Chooses the same tokens with the same draws as generate() with the full
/// decoder.
/// @throws SamplingError as generate(); KvCacheError as prefill() and
///         decode() (PrefillNotEmpty for a cache in use).
GenerationResult generate_cached(const DecoderModel& model, DecoderKvCache& cache,
                                 std::span<const TokenId> prompt, const GenerationConfig& config,
                                 SplitMix64& generator,
                                 const std::function<void(TokenId)>& on_token = {});
// endregion: generate-cached-declaration

}  // namespace llm
