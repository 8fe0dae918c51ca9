// The measured cases, shared by our benchmarks and the anchors (OpenBLAS,
// libtorch), so every ratio compares the same work. See docs/performance.md.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bench {

/// Square matrix products N x N x N.
inline const std::vector<std::int64_t> kMatmulSizes = {64, 128, 256, 512, 1024};

/// One [rows, depth] @ [depth, columns] product; with `right_transposed` the
/// right operand is stored as its [columns, depth] transpose and read through
/// a transposed view (the tied output head x @ E^T).
struct ProductShape {
  const char* name;
  std::size_t rows, depth, columns;
  bool right_transposed;
};

/// Decoding one token with chapter 40's model (width 128, 4x MLP, 65
/// characters): a projection, into and out of the MLP, the tied head; and
/// eight rows at once.
inline constexpr std::array<ProductShape, 5> kDecodeShapes{{
    {"1x128x128", 1, 128, 128, false},
    {"1x128x512", 1, 128, 512, false},
    {"1x512x128", 1, 512, 128, false},
    {"1x128x65T", 1, 128, 65, true},
    {"8x128x128", 8, 128, 128, false},
}};

/// Products of one training step of chapter 40's model (batch 12 x context
/// 64 = 768 rows, width 128): a projection, into and out of the MLP, and a
/// weight gradient (768 summed rows); and 512^3. Timed on 1 and 2 threads.
inline constexpr std::array<ProductShape, 5> kThreadShapes{{
    {"768x128x128", 768, 128, 128, false},
    {"768x128x512", 768, 128, 512, false},
    {"768x512x128", 768, 512, 128, false},
    {"128x768x128", 128, 768, 128, false},
    {"512x512x512", 512, 512, 512, false},
}};

/// The thread counts of the threaded benchmarks.
inline const std::vector<std::int64_t> kThreadCounts = {1, 2};

/// The batched product [8, 64, 64] @ [64, 64].
inline constexpr std::size_t kBatch = 8;
inline constexpr std::size_t kBatchedSize = 64;

/// The chapter-16 chain: gather E [V, C] by ids [B, T], @ W1 [C, H], SiLU,
/// @ W2 [H, V], mean NLL over the class axis; forward and backward.
struct ChainSize {
  const char* name;
  std::size_t batch, time, vocabulary, channels, hidden;
};
inline constexpr ChainSize kBookChain{"book", 4, 8, 64, 32, 64};
inline constexpr ChainSize kWideChain{"wide", 4, 8, 512, 128, 256};

/// The chapter-30-shaped attention probe: x [B, T, C], Q/K/V projections,
/// heads split by reshape and transpose, scores Q K^T / sqrt(D), softmax as
/// exp(log_softmax), times V, heads merged, summed; forward and backward.
struct AttentionSize {
  std::size_t batch, time, channels, heads;
};
inline constexpr AttentionSize kAttention{4, 64, 128, 4};

/// Nodes in the scalar-tape chain.
inline constexpr std::size_t kScalarNodes = 1'000'000;

/// Deterministic values in [-1, 1) with mixed signs: the same inputs for every
/// implementation, so the anchors and ours multiply the same numbers.
inline std::vector<double> sample_values(std::size_t count, std::uint64_t seed) {
  std::vector<double> values(count);
  std::uint64_t state = seed * 0x9E3779B97F4A7C15ULL + 1;
  for (double& value : values) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    value = static_cast<double>(state >> 11) / 4503599627370496.0 - 1.0;  // / 2^52
  }
  return values;
}

/// Every benchmark runs five times and reports the minimum (and median) CPU
/// time per iteration: the machine the book is built on is shared, and the
/// minimum is the run least disturbed by other work. Use with ->Apply().
inline void repeated(benchmark::internal::Benchmark* benchmark) {
  benchmark->Repetitions(5)->ReportAggregatesOnly(true)->ComputeStatistics(
      "min", [](const std::vector<double>& values) {
        return *std::min_element(values.begin(), values.end());
      });
}

/// For benchmarks on several threads, Apply()'d after their arguments:
/// one run per count of kThreadCounts (argument `threads`), wall time
/// (the calling thread's CPU time misses the other threads' work), then
/// repeated() in microseconds. Meaningful on a quiet machine only.
inline void on_thread_counts(benchmark::internal::Benchmark* benchmark) {
  benchmark->ArgsProduct({kThreadCounts})
      ->ArgName("threads")
      ->UseRealTime()
      ->Apply(repeated)
      ->Unit(benchmark::kMicrosecond);
}

/// Reports `flops` floating-point operations per iteration as a rate
/// (the counter `flops`, in operations per second).
inline void set_flops(benchmark::State& state, double flops) {
  state.counters["flops"] =
      benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
}

/// A benchmark of one product shape.
using ProductBenchmark = void (*)(benchmark::State&, ProductShape);

/// Registers `matmul_decode/<implementation>/<shape>` for every decode
/// shape (one thread) and `matmul_threads/<implementation>/<shape>` for
/// every thread shape on kThreadCounts, so every implementation times the
/// same cases under the same names.
inline void register_product_benchmarks(const std::string& implementation, ProductBenchmark decode,
                                        ProductBenchmark threads) {
  for (const ProductShape& shape : kDecodeShapes) {
    benchmark::RegisterBenchmark(("matmul_decode/" + implementation + "/" + shape.name).c_str(),
                                 decode, shape)
        ->Apply(repeated)
        ->Unit(benchmark::kMicrosecond);
  }
  for (const ProductShape& shape : kThreadShapes) {
    benchmark::RegisterBenchmark(("matmul_threads/" + implementation + "/" + shape.name).c_str(),
                                 threads, shape)
        ->Apply(on_thread_counts);
  }
}

/// Token ids and targets for the chain: position p reads id (7 p + 3) mod V.
inline std::vector<std::size_t> token_ids(std::size_t count, std::size_t vocabulary,
                                          std::size_t shift) {
  std::vector<std::size_t> ids(count);
  for (std::size_t p = 0; p < count; ++p) ids[p] = (7 * p + 3 + shift) % vocabulary;
  return ids;
}

}  // namespace bench
