// One attention layer's key/value cache against chapter 37's expected.txt:
// each step's output equals the last row of full causal attention bit for
// bit, the cache holds exactly the full pass's rotated keys and values, the
// prefix reaches the tape without a copy, reset reuses the storage, and every
// refusal (and a failure halfway through a step) leaves the cache unchanged.
#include "llm/generation/layer_kv_cache.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "support/printed.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::bits_of;
using testing::capture_error;
using testing::printed;
using testing::printed_shape;
using testing::values_of;

const std::vector<double> kIdentity{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
const std::vector<double> kBlockSwap{0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0};

std::vector<double> chapter_37_input() {
  return {1, 0, 1, 0, std::cos(1.0), -std::sin(1.0), 0, 1, std::cos(2.0), -std::sin(2.0), 1, 1};
}

Linear square(const std::vector<double>& values) {
  return Linear(TensorValue::parameter(Tensor({4, 4}, values)), std::nullopt);
}

// Chapter 37's layer: identity Q/K/V, the head-swapping W_O, 2 heads, 5 positions, base 100.
MultiHeadAttention chapter_37_layer() {
  return MultiHeadAttention(QkvProjections(square(kIdentity), square(kIdentity), square(kIdentity)),
                            square(kBlockSwap), 2, RotaryTable(2, 5, 100.0));
}

// The same weights (the same nodes) with another rotary table.
MultiHeadAttention with_rotary(const MultiHeadAttention& layer, RotaryTable rotary) {
  return MultiHeadAttention(layer.projections(), layer.output(), layer.heads(), std::move(rotary));
}

TensorValue token(std::size_t position) {
  const std::vector<double> input = chapter_37_input();
  return TensorValue::constant(Tensor(
      {1, 1, 4},
      std::vector<double>(input.begin() + 4 * position, input.begin() + 4 * (position + 1))));
}

TensorValue prefix_input(std::size_t tokens) {
  const std::vector<double> input = chapter_37_input();
  return TensorValue::constant(
      Tensor({1, tokens, 4}, std::vector<double>(input.begin(), input.begin() + 4 * tokens)));
}

TEST(LayerKvCache, ReproducesChapter37sStepsBitForBitAgainstFullAttention) {
  const MultiHeadAttention layer = chapter_37_layer();
  LayerKvCache cache = LayerKvCache::create(layer, 1, 4);
  const char* const expected[] = {
      "[1.000000000,0.000000000,1.000000000,0.000000000]",
      "[0.213809009,0.786190991,0.770151153,-0.420735492]",
      "[0.629044078,0.945303958,0.374718490,-0.583589471]",
  };
  for (std::size_t position = 0; position < 3; ++position) {
    SCOPED_TRACE(position);
    const KvCacheStep step = cache.attend(layer, token(position));
    EXPECT_EQ(cache.length(), position + 1);
    EXPECT_EQ(printed_shape(step.keys.shape()), printed_shape({1, 2, position + 1, 2}));
    EXPECT_EQ(printed(step.output.value(), 9), expected[position]);
    const MultiHeadAttentionPass full =
        layer.forward_with_intermediates(prefix_input(position + 1));
    // The last row of the full pass, bit for bit.
    const SharedTensor last = full.output.value().slice(1, position, position + 1);
    EXPECT_EQ(bits_of(step.output.value()), bits_of(last));
    // The cache holds the full pass's rotated keys and (unrotated) values.
    EXPECT_EQ(bits_of(cache.keys()), bits_of(full.rotated_key_heads.value()));
    EXPECT_EQ(bits_of(cache.values()), bits_of(full.value_heads.value()));
    // The prefix reached the tape as a view of the cache, untracked.
    EXPECT_TRUE(cache.shares_storage_with(step.keys.value()));
    EXPECT_FALSE(step.output.tracks_gradient());
    EXPECT_EQ(step.work, (KvCacheStepWork{.position = position,
                                          .complete_prefix_rows = position + 1,
                                          .incremental_rows = 1,
                                          .reused_rows = position,
                                          .attention_scores = 2 * (position + 1)}));
  }
}

// Identity projections make every query equal its key, so a cache that kept
// queries for keys would pass the test above; random weights tell them apart.
TEST(LayerKvCache, MatchesFullAttentionBitForBitWithRandomWeights) {
  SplitMix64 generator(37);
  const MultiHeadAttention layer = MultiHeadAttention::initialized(4, 2, 5, 100.0, generator);
  LayerKvCache cache = LayerKvCache::create(layer, 1, 4);
  for (std::size_t position = 0; position < 3; ++position) {
    SCOPED_TRACE(position);
    const KvCacheStep step = cache.attend(layer, token(position));
    const MultiHeadAttentionPass full =
        layer.forward_with_intermediates(prefix_input(position + 1));
    EXPECT_EQ(bits_of(step.output.value()),
              bits_of(full.output.value().slice(1, position, position + 1)));
    EXPECT_EQ(bits_of(cache.keys()), bits_of(full.rotated_key_heads.value()));
    EXPECT_EQ(bits_of(cache.values()), bits_of(full.value_heads.value()));
  }
}

TEST(LayerKvCache, ResetKeepsTheStorageAndAReplayIsIdentical) {
  const MultiHeadAttention layer = chapter_37_layer();
  LayerKvCache cache = LayerKvCache::create(layer, 1, 4);
  std::vector<std::vector<std::uint64_t>> first;
  for (std::size_t position = 0; position < 3; ++position) {
    first.push_back(bits_of(cache.attend(layer, token(position)).output.value()));
  }
  const std::vector<double> stored = values_of(cache.keys());
  {
    const SharedTensor handle = cache.keys();
    cache.reset();
    EXPECT_EQ(cache.length(), 0u);
    EXPECT_TRUE(cache.shares_storage_with(handle));  // the allocation is kept
    EXPECT_EQ(values_of(handle), stored);            // and nothing was written
  }
  for (std::size_t position = 0; position < 3; ++position) {
    EXPECT_EQ(bits_of(cache.attend(layer, token(position)).output.value()), first[position]);
  }
}

TEST(LayerKvCache, AResetWhileAPrefixIsAliveNeverChangesWhatThatPrefixReads) {
  const MultiHeadAttention layer = chapter_37_layer();
  LayerKvCache cache = LayerKvCache::create(layer, 1, 4);
  const KvCacheStep step = cache.attend(layer, token(0));
  const std::vector<double> seen = values_of(step.keys.value());
  cache.reset();
  cache.attend(layer, token(2));  // another token at position 0
  EXPECT_EQ(values_of(step.keys.value()), seen);
  EXPECT_FALSE(cache.shares_storage_with(step.keys.value()));
}

// Runs `call` on a cache that must refuse it and stay as it was.
template <typename ErrorType>
std::optional<ErrorType> refused_unchanged(LayerKvCache& cache, const std::function<void()>& call) {
  const std::size_t length = cache.length();
  const std::vector<double> keys = values_of(cache.keys());
  const std::vector<double> values = values_of(cache.values());
  std::optional<ErrorType> error = capture_error<ErrorType>(call);
  EXPECT_EQ(cache.length(), length);
  EXPECT_EQ(values_of(cache.keys()), keys);
  EXPECT_EQ(values_of(cache.values()), values);
  return error;
}

TEST(LayerKvCache, RefusesChapter37sRequestsAndStaysUnchanged) {
  const MultiHeadAttention layer = chapter_37_layer();
  LayerKvCache cache = LayerKvCache::create(layer, 1, 4);
  cache.attend(layer, token(0));

  auto error =
      refused_unchanged<KvCacheError>(cache, [&] { cache.attend(layer, prefix_input(2)); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), KvCacheErrorKind::InputShape);
  EXPECT_STREQ(error->what(),
               "a cache step takes one new token [B, 1, D] = [1, 1, 4], got [1, 2, 4]");

  LayerKvCache one = LayerKvCache::create(layer, 1, 1);
  one.attend(layer, token(0));
  error = refused_unchanged<KvCacheError>(one, [&] { one.attend(layer, token(1)); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), KvCacheErrorKind::CacheFull);
  EXPECT_STREQ(error->what(), "the cache cannot take 1 more: 1 of 1 positions are taken");

  SplitMix64 generator(37);
  const MultiHeadAttention wider = MultiHeadAttention::initialized(8, 2, 5, 100.0, generator);
  LayerKvCache wide = LayerKvCache::create(wider, 1, 4);
  error = refused_unchanged<KvCacheError>(wide, [&] { wide.attend(layer, token(0)); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), KvCacheErrorKind::LayerShapeMismatch);
  EXPECT_STREQ(error->what(), "the cache was made for model width 8, the layer has 4");

  const MultiHeadAttention one_head = MultiHeadAttention::initialized(4, 1, 5, 100.0, generator);
  LayerKvCache single = LayerKvCache::create(one_head, 1, 4);
  error = refused_unchanged<KvCacheError>(single, [&] { single.attend(layer, token(0)); });
  ASSERT_TRUE(error);
  EXPECT_STREQ(error->what(), "the cache was made for head count 1, the layer has 2");

  const MultiHeadAttention twin = chapter_37_layer();  // equal values, other tensors
  LayerKvCache twins = LayerKvCache::create(twin, 1, 4);
  error = refused_unchanged<KvCacheError>(twins, [&] { twins.attend(layer, token(0)); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), KvCacheErrorKind::LayerMismatch);
  EXPECT_STREQ(error->what(),
               "the cached rows belong to other weights: parameter query.weight differs "
               "(another tensor)");

  error = refused_unchanged<KvCacheError>(
      cache, [&] { cache.attend(with_rotary(layer, RotaryTable(2, 5, 200.0)), token(1)); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), KvCacheErrorKind::RotaryMismatch);
  EXPECT_STREQ(error->what(), "the layer's rotary table differs from the cache's in its base");
  error = refused_unchanged<KvCacheError>(
      cache, [&] { cache.attend(with_rotary(layer, RotaryTable(2, 6, 100.0)), token(1)); });
  ASSERT_TRUE(error);
  EXPECT_STREQ(error->what(), "the layer's rotary table differs from the cache's in its positions");

  // Finite inputs whose scores overflow. At position 0 the rotation is the
  // identity, so the step fails after its append, in the scores, and undoes it.
  const TensorValue huge = TensorValue::constant(
      Tensor({1, 1, 4}, std::vector<double>(4, std::numeric_limits<double>::max())));
  LayerKvCache empty = LayerKvCache::create(layer, 1, 4);
  const auto overflow =
      refused_unchanged<TensorAutodiffError>(empty, [&] { empty.attend(layer, huge); });
  ASSERT_TRUE(overflow);
  EXPECT_EQ(overflow->kind(), TensorAutodiffErrorKind::NonFiniteResult);
  EXPECT_EQ(printed(empty.attend(layer, token(0)).output.value(), 9),
            "[1.000000000,0.000000000,1.000000000,0.000000000]");
  // At position 1 the rotation itself overflows, before anything is appended.
  ASSERT_TRUE(refused_unchanged<TensorAutodiffError>(cache, [&] { cache.attend(layer, huge); }));
  EXPECT_EQ(printed(cache.attend(layer, token(1)).output.value(), 9),
            "[0.213809009,0.786190991,0.770151153,-0.420735492]");
}

TEST(LayerKvCache, RefusesWeightsAssignedSinceTheRowsWereComputed) {
  const MultiHeadAttention layer = chapter_37_layer();
  LayerKvCache cache = LayerKvCache::create(layer, 1, 4);
  cache.attend(layer, token(0));
  TensorValue weight = layer.projections().value().weight();  // a handle to the same node
  weight.assign(Tensor({4, 4}, kIdentity));                   // an "update" to equal values
  const auto error = refused_unchanged<KvCacheError>(cache, [&] { cache.attend(layer, token(1)); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), KvCacheErrorKind::StaleWeights);
  EXPECT_STREQ(error->what(),
               "parameter value.weight was assigned since the cached rows were computed "
               "(version 0, now 1)");
}

TEST(LayerKvCache, RefusesAnEmptyOrOversizedCache) {
  const MultiHeadAttention layer = chapter_37_layer();
  EXPECT_EQ(capture_error<KvCacheError>([&] { LayerKvCache::create(layer, 0, 4); })->kind(),
            KvCacheErrorKind::ZeroBatch);
  EXPECT_EQ(capture_error<KvCacheError>([&] { LayerKvCache::create(layer, 1, 0); })->kind(),
            KvCacheErrorKind::ZeroCapacity);
  EXPECT_STREQ(capture_error<KvCacheError>([&] { LayerKvCache::create(layer, 1, 6); })->what(),
               "a capacity of 6 positions exceeds the layer's context of 5");
}

}  // namespace
}  // namespace llm
