// A decoder-wide key/value cache and cached generation (chapter 38).
#include "llm/generation/decoder_kv_cache.hpp"

#include <bit>
#include <cstdint>
#include <stdexcept>
#include <utility>

namespace llm {
namespace {

// The first quantity in which two decoder configurations differ, or nullptr.
const char* config_difference(const DecoderConfig& cached, const DecoderConfig& model) {
  const auto same_double = [](double a, double b) {
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
  };
  if (cached.vocabulary_size != model.vocabulary_size) return "vocabulary size";
  if (cached.layers != model.layers) return "layer count";
  if (cached.block.model_width != model.block.model_width) return "model width";
  if (cached.block.heads != model.block.heads) return "head count";
  if (cached.block.feed_forward_width != model.block.feed_forward_width) {
    return "feed-forward width";
  }
  if (cached.block.context != model.block.context) return "context";
  if (!same_double(cached.block.rope_base, model.block.rope_base)) return "rotary base";
  if (!same_double(cached.block.epsilon, model.block.epsilon)) return "normalization epsilon";
  if (cached.head != model.head) return "head tying";
  return nullptr;
}

}  // namespace

// region: decoder-kv-cache-create
DecoderKvCache DecoderKvCache::create(const DecoderModel& model, std::size_t capacity) {
  const std::size_t positions = capacity == 0 ? model.config().block.context : capacity;
  std::vector<LayerKvCache> layers;
  layers.reserve(model.blocks().size());
  for (const DecoderBlock& block : model.blocks()) {  // one cache per block, never shared
    layers.push_back(LayerKvCache::create(block.attention(), 1, positions));
  }
  if (layers.empty()) throw KvCacheError(KvCacheErrorKind::NoLayers);
  return DecoderKvCache(model.config(), ParameterBinding::capture(model.parameters()),
                        std::move(layers));
}
// endregion: decoder-kv-cache-create

// region: decoder-kv-cache-check-model
void DecoderKvCache::check_model(const DecoderModel& model) const {
  if (const char* differs = config_difference(config_, model.config())) {
    throw KvCacheError(KvCacheErrorKind::ConfigMismatch, {.quantity = differs});
  }
  if (const auto mismatch = binding_.compare(model.parameters())) {
    if (mismatch->kind == BindingMismatchKind::Version) {
      throw KvCacheError(KvCacheErrorKind::StaleWeights,
                         {.expected = static_cast<std::size_t>(mismatch->captured),
                          .actual = static_cast<std::size_t>(mismatch->current),
                          .parameter = mismatch->name});
    }
    throw KvCacheError(KvCacheErrorKind::LayerMismatch,
                       {.parameter = mismatch->name, .quantity = "another tensor"});
  }
}
// endregion: decoder-kv-cache-check-model

void DecoderKvCache::check_tokens(std::span<const TokenId> tokens,
                                  std::size_t first_position) const {
  if (tokens.size() > capacity() - length()) {
    throw KvCacheError(KvCacheErrorKind::CacheFull,
                       {.actual = tokens.size(), .length = length(), .capacity = capacity()});
  }
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] >= config_.vocabulary_size) {
      throw KvCacheError(KvCacheErrorKind::TokenOutOfRange, {.expected = config_.vocabulary_size,
                                                             .position = first_position + i,
                                                             .token = tokens[i]});
    }
  }
}

// region: decoder-kv-cache-step
// One token through every block, each block's attention reading and
// extending its own cache: the same operations as DecoderModel::forward on
// the token's row.
std::vector<double> DecoderKvCache::step(const DecoderModel& model, TokenId token) {
  const NoGradScope inference;
  const TokenId ids[] = {token};
  TensorValue stream = model.embedding().forward(ids, {1, 1});  // [1, 1, D]
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    const DecoderBlock& block = model.blocks()[l];
    const KvCacheStep attention =
        layers_[l].attend(block.attention(), block.attention_norm().forward(stream));
    const TensorValue after_attention = stream.add(attention.output);
    stream = after_attention.add(
        block.feed_forward().forward(block.feed_forward_norm().forward(after_attention)));
    work_.attention_scores += attention.work.attention_scores;
  }
  const TensorValue normalized = model.final_norm().forward(stream);
  const TensorValue logits = model.head()
                                 ? model.head()->forward(normalized)
                                 : normalized.matmul(model.embedding().table().transpose(0, 1));
  work_.cache_appends += layers_.size();
  work_.qkv_rows += 3 * layers_.size();
  const Tensor row = logits.value().materialize();
  return {row.values().begin(), row.values().end()};
}
// endregion: decoder-kv-cache-step

// region: decoder-kv-cache-prefill-decode
CachedLogits DecoderKvCache::prefill(const DecoderModel& model, std::span<const TokenId> prompt) {
  check_model(model);
  if (prompt.empty()) throw KvCacheError(KvCacheErrorKind::EmptyPrompt);
  if (length() != 0) throw KvCacheError(KvCacheErrorKind::PrefillNotEmpty, {.length = length()});
  check_tokens(prompt, 0);
  const DecoderKvWork before = work_;
  try {
    std::vector<double> logits;
    for (const TokenId token : prompt) logits = step(model, token);  // the last one's logits count
    work_.prefill_tokens += prompt.size();
    return {prompt.size() - 1, length(), std::move(logits),
            work_.attention_scores - before.attention_scores};
  } catch (...) {  // undo every layer's appends and the counts: the cache is as it was
    for (LayerKvCache& layer : layers_) layer.truncate(0);
    work_ = before;
    throw;
  }
}

CachedLogits DecoderKvCache::decode(const DecoderModel& model, TokenId token) {
  check_model(model);
  if (length() == 0) throw KvCacheError(KvCacheErrorKind::DecodeBeforePrefill);
  const TokenId tokens[] = {token};
  check_tokens(tokens, length());
  const std::size_t position = length();
  const DecoderKvWork before = work_;
  try {
    std::vector<double> logits = step(model, token);
    ++work_.decode_tokens;
    return {position, length(), std::move(logits),
            work_.attention_scores - before.attention_scores};
  } catch (...) {  // a later layer failed: earlier layers already appended
    for (LayerKvCache& layer : layers_) layer.truncate(position);
    work_ = before;
    throw;
  }
}
// endregion: decoder-kv-cache-prefill-decode

void DecoderKvCache::reset() noexcept {
  for (LayerKvCache& layer : layers_) layer.reset();
  work_ = {};
}

void DecoderKvCache::truncate(std::size_t length) noexcept {
  for (LayerKvCache& layer : layers_) layer.truncate(length);
}

// region: generate-cached
GenerationResult generate_cached(const DecoderModel& model, DecoderKvCache& cache,
                                 std::span<const TokenId> prompt, const GenerationConfig& config,
                                 SplitMix64& generator,
                                 const std::function<void(TokenId)>& on_token) {
  cache.check_model(model);
  if (cache.length() != 0) {
    throw KvCacheError(KvCacheErrorKind::PrefillNotEmpty, {.length = cache.length()});
  }
  // The loop hands over the whole prefix; the cache has seen all of it but
  // the newest token, which is the only one it reads.
  const NextTokenLogits next_logits = [&](std::span<const TokenId> prefix) {
    if (cache.length() == 0) return cache.prefill(model, prefix).logits;
    if (prefix.size() != cache.length() + 1) {
      throw std::logic_error("generate_cached: the prefix outran the cache");
    }
    return cache.decode(model, prefix.back()).logits;
  };
  return generate(model.config().vocabulary_size, model.config().block.context, prompt, config,
                  generator, next_logits, on_token);
}
// endregion: generate-cached

}  // namespace llm
