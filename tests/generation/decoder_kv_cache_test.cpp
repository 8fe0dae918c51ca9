// The decoder-wide key/value cache against chapter 38's expected.txt:
// prefill and decode logits equal the full decoder's last row bit for bit,
// the work counters, reset, cached generation choosing the same tokens and
// draws as uncached generation, and every refusal leaving the cache unchanged.
#include "llm/generation/decoder_kv_cache.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "support/printed.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;
using testing::printed;
using testing::values_of;

DecoderConfig chapter_38_config(double epsilon = 1e-6) {
  return {.vocabulary_size = 5,
          .layers = 2,
          .block = {.model_width = 4,
                    .heads = 2,
                    .feed_forward_width = 4,
                    .context = 4,
                    .rope_base = 10000.0,
                    .epsilon = epsilon},
          .head = HeadTying::Tied};
}

DecoderModel chapter_38_model() {
  SplitMix64 generator(38);
  return DecoderModel::initialized(chapter_38_config(), generator);
}

// The full decoder's logits of the position after `prefix`.
std::vector<double> full_last_row(const DecoderModel& model, const std::vector<TokenId>& prefix) {
  const NoGradScope inference;
  const std::vector<double> all = values_of(model.forward(prefix, {1, prefix.size()}).value());
  return {all.end() - 5, all.end()};
}

TEST(DecoderKvCache, ReproducesChapter38sPrefillAndDecodeBitForBit) {
  const DecoderModel model = chapter_38_model();
  DecoderKvCache cache = DecoderKvCache::create(model);
  const std::vector<TokenId> prompt{0, 1};
  const CachedLogits prefill = cache.prefill(model, prompt);
  EXPECT_EQ(printed(prefill.logits, 9),
            "[1.768374438,0.208825256,1.056205728,-0.451857108,0.388467944]");
  EXPECT_EQ(prefill.logits, full_last_row(model, prompt));  // == on doubles: every bit
  EXPECT_EQ(prefill.attention_scores, 12u);                 // 2 layers x 2 heads x (1 + 2)
  EXPECT_EQ(cache.length(), 2u);
  const CachedLogits decode = cache.decode(model, 2);
  EXPECT_EQ(printed(decode.logits, 9),
            "[0.032908910,-0.679583624,1.408381841,0.525525421,-0.588014095]");
  EXPECT_EQ(decode.logits, full_last_row(model, {0, 1, 2}));
  EXPECT_EQ(decode.position, 2u);
  EXPECT_EQ(decode.attention_scores, 12u);  // 2 x 2 x 3
  EXPECT_EQ(cache.work(), (DecoderKvWork{.prefill_tokens = 2,
                                         .decode_tokens = 1,
                                         .cache_appends = 6,
                                         .qkv_rows = 18,
                                         .attention_scores = 24}));
  // Each block has its own storage.
  EXPECT_FALSE(cache.layers()[0].shares_storage_with(cache.layers()[1].keys()));
}

TEST(DecoderKvCache, ResetZeroesTheWorkAndAReplayIsIdentical) {
  const DecoderModel model = chapter_38_model();
  DecoderKvCache cache = DecoderKvCache::create(model);
  const std::vector<TokenId> prompt{0, 1};
  cache.prefill(model, prompt);
  const std::vector<double> first = cache.decode(model, 2).logits;
  cache.reset();
  EXPECT_EQ(cache.length(), 0u);
  EXPECT_EQ(cache.work(), DecoderKvWork{});
  cache.prefill(model, prompt);
  EXPECT_EQ(cache.decode(model, 2).logits, first);
}

TEST(DecoderKvCache, TruncateRewindsEveryLayerToAPrefix) {
  const DecoderModel model = chapter_38_model();
  DecoderKvCache cache = DecoderKvCache::create(model);
  const std::vector<TokenId> prompt{0, 1};
  cache.prefill(model, prompt);
  const std::vector<double> first = cache.decode(model, 2).logits;
  cache.decode(model, 3);
  cache.truncate(2);
  EXPECT_EQ(cache.length(), 2u);
  for (const LayerKvCache& layer : cache.layers()) EXPECT_EQ(layer.length(), 2u);
  EXPECT_EQ(cache.decode(model, 2).logits, first);  // position 2 again, the same logits
  EXPECT_EQ(cache.work().decode_tokens, 3u);        // the counts are kept
}

TEST(DecoderKvCache, CachedGenerationChoosesTheSameTokensAndDraws) {
  const DecoderModel model = chapter_38_model();
  const std::vector<TokenId> prompt{0};
  const GenerationConfig config{.policy = SamplingPolicy::temperature_top_k(1.0, 3),
                                .max_new_tokens = 8};
  SplitMix64 uncached_generator(0x9e3779b97f4a7c38ULL);
  SplitMix64 cached_generator = uncached_generator;
  const GenerationResult uncached =
      generate(5, 4, prompt, config, uncached_generator, [&](std::span<const TokenId> prefix) {
        return full_last_row(model, {prefix.begin(), prefix.end()});
      });
  DecoderKvCache cache = DecoderKvCache::create(model);
  const GenerationResult cached = generate_cached(model, cache, prompt, config, cached_generator);
  EXPECT_EQ(cached, uncached);  // tokens, draws, intervals, stop and call count
  EXPECT_EQ(cached_generator.state(), uncached_generator.state());
  EXPECT_EQ(cached.stop, GenerationStop::ContextLimit);
  EXPECT_EQ(cache.length(), 4u);
  EXPECT_EQ(cache.work().prefill_tokens, 1u);
  EXPECT_EQ(cache.work().decode_tokens, 3u);
}

// Runs `call`, which must throw a KvCacheError, and checks the cache did not change.
KvCacheErrorKind refused_unchanged(DecoderKvCache& cache, const std::function<void()>& call) {
  const std::size_t length = cache.length();
  const DecoderKvWork work = cache.work();
  std::vector<std::vector<double>> rows;
  for (const LayerKvCache& layer : cache.layers()) rows.push_back(values_of(layer.keys()));
  const auto error = capture_error<KvCacheError>(call);
  EXPECT_EQ(cache.length(), length);
  EXPECT_EQ(cache.work(), work);
  for (std::size_t l = 0; l < rows.size(); ++l) {
    EXPECT_EQ(values_of(cache.layers()[l].keys()), rows[l]);
  }
  return error ? error->kind() : KvCacheErrorKind::NoLayers;
}

TEST(DecoderKvCache, RefusesChapter38sRequestsAndStaysUnchanged) {
  const DecoderModel model = chapter_38_model();
  DecoderKvCache cache = DecoderKvCache::create(model);
  EXPECT_EQ(refused_unchanged(cache, [&] { cache.decode(model, 0); }),
            KvCacheErrorKind::DecodeBeforePrefill);
  const std::vector<TokenId> prompt{0, 1};
  cache.prefill(model, prompt);
  const std::vector<TokenId> again{0};
  EXPECT_EQ(refused_unchanged(cache, [&] { cache.prefill(model, again); }),
            KvCacheErrorKind::PrefillNotEmpty);
  EXPECT_EQ(refused_unchanged(cache, [&] { cache.decode(model, 5); }),
            KvCacheErrorKind::TokenOutOfRange);
  cache.decode(model, 2);
  cache.decode(model, 3);
  EXPECT_EQ(refused_unchanged(cache, [&] { cache.decode(model, 4); }), KvCacheErrorKind::CacheFull);

  // Equal values in other tensors, and the same tensors under another epsilon.
  DecoderModel rebuilt = chapter_38_model();
  DecoderKvCache fresh = DecoderKvCache::create(model);
  EXPECT_EQ(refused_unchanged(fresh, [&] { fresh.prefill(rebuilt, prompt); }),
            KvCacheErrorKind::LayerMismatch);
  std::vector<DecoderBlock> blocks;
  for (const DecoderBlock& block : model.blocks()) {
    blocks.emplace_back(RmsNorm(block.attention_norm().gain(), 2e-6), block.attention(),
                        RmsNorm(block.feed_forward_norm().gain(), 2e-6), block.feed_forward());
  }
  const DecoderModel changed(chapter_38_config(2e-6), model.embedding(), std::move(blocks),
                             RmsNorm(model.final_norm().gain(), 2e-6), std::nullopt);
  EXPECT_EQ(refused_unchanged(fresh, [&] { fresh.prefill(changed, prompt); }),
            KvCacheErrorKind::ConfigMismatch);
  EXPECT_STREQ(capture_error<KvCacheError>([&] { fresh.prefill(changed, prompt); })->what(),
               "the decoder's configuration differs from the cache's in its normalization epsilon");
}

}  // namespace
}  // namespace llm
