// One attention layer's key/value cache (chapter 37): checks, one append per
// step, attention over the cached prefix without copying it.
#include "llm/generation/layer_kv_cache.hpp"

#include <bit>
#include <utility>

namespace llm {

LayerKvCache::LayerKvCache(AppendBuffer keys, AppendBuffer values, ParameterBinding binding,
                           const RotaryTable& rotary)
    : keys_(std::move(keys)),
      values_(std::move(values)),
      binding_(std::move(binding)),
      rotary_width_(rotary.width()),
      rotary_capacity_(rotary.capacity()),
      rotary_base_(rotary.base()) {}

// region: layer-kv-cache-create
LayerKvCache LayerKvCache::create(const MultiHeadAttention& layer, std::size_t batch,
                                  std::size_t capacity) {
  if (batch == 0) throw KvCacheError(KvCacheErrorKind::ZeroBatch);
  if (capacity == 0) throw KvCacheError(KvCacheErrorKind::ZeroCapacity);
  if (capacity > layer.context()) {
    throw KvCacheError(KvCacheErrorKind::CapacityExceedsContext,
                       {.expected = layer.context(), .capacity = capacity});
  }
  // [B, H, capacity, Dh]: each head's positions are contiguous, the layout
  // project_heads() gives, so a prefix is a strided view of the first rows.
  const Shape shape{batch, layer.heads(), capacity, layer.head_width()};
  return LayerKvCache(AppendBuffer::create(shape, 2), AppendBuffer::create(shape, 2),
                      ParameterBinding::capture(layer.parameters()), layer.rotary());
}
// endregion: layer-kv-cache-create

// region: layer-kv-cache-check-layer
void LayerKvCache::check_layer(const MultiHeadAttention& layer) const {
  const auto shape_mismatch = [](const char* quantity, std::size_t cached, std::size_t actual) {
    return KvCacheError(KvCacheErrorKind::LayerShapeMismatch,
                        {.expected = cached, .actual = actual, .quantity = quantity});
  };
  if (layer.model_width() != model_width()) {
    throw shape_mismatch("model width", model_width(), layer.model_width());
  }
  if (layer.heads() != heads()) throw shape_mismatch("head count", heads(), layer.heads());
  // Equal values are not enough: rows belong to these parameter nodes, at
  // these versions (an optimizer step bumps the version).
  if (const auto mismatch = binding_.compare(layer.parameters())) {
    if (mismatch->kind == BindingMismatchKind::Version) {
      throw KvCacheError(KvCacheErrorKind::StaleWeights,
                         {.expected = static_cast<std::size_t>(mismatch->captured),
                          .actual = static_cast<std::size_t>(mismatch->current),
                          .parameter = mismatch->name});
    }
    const char* what = mismatch->kind == BindingMismatchKind::Node   ? "another tensor"
                       : mismatch->kind == BindingMismatchKind::Name ? "another name"
                                                                     : "another count";
    throw KvCacheError(KvCacheErrorKind::LayerMismatch,
                       {.parameter = mismatch->name, .quantity = what});
  }
  // Cached keys were turned by this table: another base or another number of
  // positions is another rotation.
  const RotaryTable& rotary = layer.rotary();
  const char* differs =
      rotary.width() != rotary_width_         ? "width"
      : rotary.capacity() != rotary_capacity_ ? "positions"
      : std::bit_cast<std::uint64_t>(rotary.base()) != std::bit_cast<std::uint64_t>(rotary_base_)
          ? "base"
          : nullptr;
  if (differs != nullptr) {
    throw KvCacheError(KvCacheErrorKind::RotaryMismatch, {.quantity = differs});
  }
}
// endregion: layer-kv-cache-check-layer

// region: layer-kv-cache-attend
KvCacheStep LayerKvCache::attend(const MultiHeadAttention& layer, const TensorValue& input) {
  check_layer(layer);
  const Shape expected{batch(), 1, model_width()};
  if (input.shape() != expected) {
    throw KvCacheError(KvCacheErrorKind::InputShape,
                       {.shape = input.shape(), .expected_shape = expected});
  }
  const std::size_t position = length();
  if (position == capacity()) {
    throw KvCacheError(KvCacheErrorKind::CacheFull,
                       {.actual = 1, .length = position, .capacity = capacity()});
  }
  const NoGradScope inference;  // generation needs no gradient: nothing is recorded
  // The new token alone: one row per projection, rotated at its position.
  const HeadProjections fresh = layer.project_heads(input, position);
  const SharedTensor key = fresh.key.value();
  const SharedTensor value = fresh.value.value();
  try {
    keys_.append(key.view());
    values_.append(value.view());
    // The whole prefix, new row included, as views of the cache: no copy.
    const TensorValue keys = TensorValue::constant(keys_.prefix());
    const TensorValue values = TensorValue::constant(values_.prefix());
    // One query against t + 1 keys: Tq < Tk, so the causal mask hides nothing.
    AttentionPass attention =
        scaled_dot_product_attention(fresh.query, keys, values, Masking::Causal);
    const TensorValue output = layer.combine_heads(attention.output);
    const KvCacheStepWork work{.position = position,
                               .complete_prefix_rows = position + 1,
                               .incremental_rows = 1,
                               .reused_rows = position,
                               .attention_scores = batch() * heads() * (position + 1)};
    return {fresh, keys, values, std::move(attention), output, work};
  } catch (...) {
    keys_.truncate(position);  // undo the append: the cache is as it was
    values_.truncate(position);
    throw;
  }
}
// endregion: layer-kv-cache-attend

void LayerKvCache::reset() noexcept {
  keys_.reset();
  values_.reset();
}

void LayerKvCache::truncate(std::size_t length) noexcept {
  keys_.truncate(length);
  values_.truncate(length);
}

}  // namespace llm
