// The typed error of the key/value caches (area `kv-cache`): one attention
// layer's cache (chapter 37) and the decoder-wide cache of cached generation
// (chapter 38). Written in the one pattern of src/llm/error.hpp.
//
// Every kind is checked before the cache changes, and a step that fails in
// the arithmetic underneath (an overflowing score, say) is rolled back, so a
// refusal leaves the cache's length and rows exactly as they were. Errors of
// the operations underneath (the tape's TensorAutodiffError, a rotary table's
// DecoderOpError) propagate unchanged.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "llm/error.hpp"
#include "llm/tensor/shape.hpp"

namespace llm {

// region: kv-cache-error-kinds
/// What a key/value cache refused.
enum class KvCacheErrorKind {
  ZeroBatch,               ///< a cache for batch size 0
  ZeroCapacity,            ///< a cache that can hold no position
  CapacityExceedsContext,  ///< more positions than the layer's rotary table holds
  InputShape,              ///< a step input that is not [B, 1, D] for this cache
  CacheFull,               ///< every position is taken: no room for one more token
  LayerShapeMismatch,      ///< the layer's width or head count differs from the cache's
  LayerMismatch,           ///< the rows were computed by another layer's or model's weights
  StaleWeights,            ///< a weight was assigned (an optimizer step) since the rows were made
  RotaryMismatch,          ///< the layer rotates with another table (width, positions or base)
  ConfigMismatch,          ///< a decoder of another configuration than the cache's
  NoLayers,                ///< a decoder without blocks: no attention to cache
  EmptyPrompt,             ///< a prefill of no token
  PrefillNotEmpty,         ///< a prefill into a cache that already holds tokens
  DecodeBeforePrefill,     ///< a decode step into an empty cache
  TokenOutOfRange,         ///< a token ID >= V
};
// endregion: kv-cache-error-kinds

/// The offending values of a KvCacheError; a kind leaves the fields it does
/// not use empty or zero.
struct KvCacheErrorEvidence {
  Shape shape{};             ///< InputShape: the input's shape
  Shape expected_shape{};    ///< InputShape: [B, 1, D] of this cache
  std::size_t expected = 0;  ///< the cache's width, heads, capacity or vocabulary
  std::size_t actual = 0;    ///< the layer's or request's value
  std::size_t length = 0;    ///< positions the cache holds
  std::size_t capacity = 0;  ///< positions it can hold
  std::size_t position = 0;  ///< TokenOutOfRange: the prompt position
  std::uint64_t token = 0;   ///< TokenOutOfRange: the token ID
  std::string parameter{};   ///< LayerMismatch, StaleWeights: the first parameter that differs
  std::string quantity{};    ///< which quantity differs (`width`, `heads`, `base`, ...)
};

// region: kv-cache-error-table
/// The `kv-cache` area: each kind's stable name and message, in enum order.
struct KvCacheErrorTraits {
  using Kind = KvCacheErrorKind;                        ///< the area's kinds
  using Evidence = KvCacheErrorEvidence;                ///< the offending values
  static constexpr std::string_view area = "kv-cache";  ///< Error::area()
  /// Each kind's stable name and message, in enum order.
  static constexpr std::array<ErrorKindSpec<Kind>, 15> kinds{{
      {Kind::ZeroBatch, "zero-batch", "a key/value cache needs a batch size of at least 1"},
      {Kind::ZeroCapacity, "zero-capacity", "a key/value cache needs room for at least 1 position"},
      {Kind::CapacityExceedsContext, "capacity-exceeds-context",
       "a capacity of {capacity} positions exceeds the layer's context of {expected}"},
      {Kind::InputShape, "input-shape",
       "a cache step takes one new token [B, 1, D] = {expected_shape}, got {shape}"},
      {Kind::CacheFull, "cache-full",
       "the cache cannot take {actual} more: {length} of {capacity} positions are taken"},
      {Kind::LayerShapeMismatch, "layer-shape-mismatch",
       "the cache was made for {quantity} {expected}, the layer has {actual}"},
      {Kind::LayerMismatch, "layer-mismatch",
       "the cached rows belong to other weights: parameter {parameter} differs ({quantity})"},
      {Kind::StaleWeights, "stale-weights",
       "parameter {parameter} was assigned since the cached rows were computed (version "
       "{expected}, now {actual})"},
      {Kind::RotaryMismatch, "rotary-mismatch",
       "the layer's rotary table differs from the cache's in its {quantity}"},
      {Kind::ConfigMismatch, "config-mismatch",
       "the decoder's configuration differs from the cache's in its {quantity}"},
      {Kind::NoLayers, "no-layers", "a decoder without blocks has no attention to cache"},
      {Kind::EmptyPrompt, "empty-prompt", "a prefill needs at least one token"},
      {Kind::PrefillNotEmpty, "prefill-not-empty",
       "a prefill needs an empty cache; this one holds {length} positions"},
      {Kind::DecodeBeforePrefill, "decode-before-prefill",
       "a decode step needs the prompt's positions: prefill first"},
      {Kind::TokenOutOfRange, "token-out-of-range",
       "token {token} at position {position} is outside the vocabulary of {expected}"},
  }};
  /// One evidence field as the message prints it.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};
// endregion: kv-cache-error-table

/// An error of a key/value cache (area `kv-cache`); the cache is unchanged.
class KvCacheError : public KindedError<KvCacheErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw KvCacheError(KvCacheErrorKind::..., {.field = value});`
  explicit KvCacheError(KvCacheErrorKind kind, KvCacheErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}
};

}  // namespace llm
