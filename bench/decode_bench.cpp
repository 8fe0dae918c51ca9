// One decode step of a decoder with and without the key/value cache
// (chapter 38), after a prefix of T tokens: the cached step projects one row
// per block and attends over T + 1 cached rows; the uncached step runs the
// whole decoder over T + 1 tokens and keeps the last row of logits. Also the
// one-row matrix product the cached step is made of, against the same
// product over 64 rows, to show what a [1, D] x [D, D] costs per row.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <vector>

#include "bench_cases.hpp"
#include "llm/generation/decoder_kv_cache.hpp"

namespace bench {
namespace {

// A width-128 decoder (issue 19's probe): V = 256, 2 blocks, 4 heads, F = 512, context 256.
llm::DecoderModel decode_model() {
  llm::SplitMix64 generator(38);
  return llm::DecoderModel::initialized(
      {.vocabulary_size = 256,
       .layers = 2,
       .block = {.model_width = 128, .heads = 4, .feed_forward_width = 512, .context = 256},
       .head = llm::HeadTying::Tied},
      generator);
}

std::vector<llm::TokenId> prefix_of(std::size_t length) {
  std::vector<llm::TokenId> ids(length);
  for (std::size_t i = 0; i < length; ++i) ids[i] = static_cast<llm::TokenId>((7 * i + 3) % 256);
  return ids;
}

void decode_cached(benchmark::State& state) {
  const llm::DecoderModel model = decode_model();
  const std::vector<llm::TokenId> prefix = prefix_of(static_cast<std::size_t>(state.range(0)));
  llm::DecoderKvCache cache = llm::DecoderKvCache::create(model);
  cache.prefill(model, prefix);
  for (auto _ : state) {
    benchmark::DoNotOptimize(cache.decode(model, 5).logits.data());
    cache.truncate(prefix.size());  // back to the prefix: every step decodes at position T
  }
}

void decode_uncached(benchmark::State& state) {
  const llm::DecoderModel model = decode_model();
  std::vector<llm::TokenId> ids = prefix_of(static_cast<std::size_t>(state.range(0)));
  ids.push_back(5);
  const llm::NoGradScope inference;
  for (auto _ : state) {
    benchmark::DoNotOptimize(model.forward(ids, {1, ids.size()}).value().size());
  }
}

// [rows, 128] x [128, 128]: the per-row cost of a product with one row.
void rows_matmul(benchmark::State& state) {
  const std::size_t rows = static_cast<std::size_t>(state.range(0));
  const llm::TensorValue x = llm::TensorValue::constant(
      llm::Tensor(llm::Shape{1, rows, 128}, std::vector<double>(rows * 128, 0.5)));
  const llm::TensorValue w = llm::TensorValue::constant(
      llm::Tensor(llm::Shape{128, 128}, std::vector<double>(128 * 128, 0.25)));
  for (auto _ : state) benchmark::DoNotOptimize(x.matmul(w).value().size());
  set_flops(state, 2.0 * static_cast<double>(rows) * 128 * 128);
}

}  // namespace

BENCHMARK(decode_cached)
    ->Name("decode/cached")
    ->Arg(16)
    ->Arg(64)
    ->Arg(192)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(decode_uncached)
    ->Name("decode/uncached")
    ->Arg(16)
    ->Arg(64)
    ->Arg(192)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(rows_matmul)
    ->Name("matmul_rows/ours")
    ->Arg(1)
    ->Arg(64)
    ->MinTime(0.2)
    ->Unit(benchmark::kMicrosecond);

}  // namespace bench
