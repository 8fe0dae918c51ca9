// Our matrix product at N^3 for N = 64..1024 and batched [8, 64, 64] @ [64, 64],
// with the textbook loop it is bit-identical to (checked before timing).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "bench_cases.hpp"
#include "llm/tensor/matmul.hpp"
#include "same_bits.hpp"

namespace bench {
namespace {

llm::Tensor square(std::size_t n, std::uint64_t seed) {
  return llm::Tensor({n, n}, sample_values(n * n, seed));
}

void matmul_ours(benchmark::State& state) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  const llm::Tensor a = square(n, 1);
  const llm::Tensor b = square(n, 2);
  if (n <= 512) {  // the textbook loop takes seconds at 1024
    state.counters["bit_identical"] =
        same_bits(llm::matmul(a, b), llm::matmul_textbook(a, b)) ? 1 : 0;
  }
  for (auto _ : state) benchmark::DoNotOptimize(llm::matmul(a, b));
  set_flops(state, 2.0 * static_cast<double>(n * n * n));
}

void matmul_textbook(benchmark::State& state) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  const llm::Tensor a = square(n, 1);
  const llm::Tensor b = square(n, 2);
  for (auto _ : state) benchmark::DoNotOptimize(llm::matmul_textbook(a, b));
  set_flops(state, 2.0 * static_cast<double>(n * n * n));
}

void matmul_batched_ours(benchmark::State& state) {
  const llm::Tensor a({kBatch, kBatchedSize, kBatchedSize},
                      sample_values(kBatch * kBatchedSize * kBatchedSize, 3));
  const llm::Tensor b = square(kBatchedSize, 4);
  state.counters["bit_identical"] =
      same_bits(llm::matmul(a, b), llm::matmul_textbook(a, b)) ? 1 : 0;
  for (auto _ : state) benchmark::DoNotOptimize(llm::matmul(a, b));
  set_flops(state, 2.0 * static_cast<double>(kBatch * kBatchedSize * kBatchedSize * kBatchedSize));
}

}  // namespace

BENCHMARK(matmul_ours)
    ->Name("matmul/ours")
    ->ArgsProduct({kMatmulSizes})
    ->Apply(repeated)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(matmul_textbook)
    ->Name("matmul/textbook")
    ->Arg(64)
    ->Arg(128)
    ->Arg(256)
    ->Arg(512)
    ->Apply(repeated)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(matmul_batched_ours)
    ->Name("matmul_batched/ours")
    ->Apply(repeated)
    ->Unit(benchmark::kMicrosecond);

}  // namespace bench
