// OpenBLAS cblas_dgemm on the same products, single-threaded (the anchor of
// the matmul ratios). Built only when libopenblas-dev is installed.
#if defined(LLM_BENCH_OPENBLAS)
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <vector>

#include "bench_cases.hpp"

namespace bench {
namespace {

void matmul_openblas(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const std::size_t count = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  const std::vector<double> a = sample_values(count, 1);
  const std::vector<double> b = sample_values(count, 2);
  std::vector<double> c(count);
  for (auto _ : state) {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a.data(), n, b.data(), n,
                0.0, c.data(), n);
    benchmark::DoNotOptimize(c.data());
  }
  set_flops(state, 2.0 * n * n * n);
}

// [8, 64, 64] @ [64, 64] is one [512, 64] @ [64, 64] product for row-major data.
void matmul_batched_openblas(benchmark::State& state) {
  const int rows = static_cast<int>(kBatch * kBatchedSize);
  const int n = static_cast<int>(kBatchedSize);
  const std::vector<double> a = sample_values(kBatch * kBatchedSize * kBatchedSize, 3);
  const std::vector<double> b = sample_values(kBatchedSize * kBatchedSize, 4);
  std::vector<double> c(kBatch * kBatchedSize * kBatchedSize);
  for (auto _ : state) {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, n, n, 1.0, a.data(), n, b.data(),
                n, 0.0, c.data(), n);
    benchmark::DoNotOptimize(c.data());
  }
  set_flops(state, 2.0 * rows * n * n);
}

// A ProductShape in cblas_dgemm: the right operand stored as shaped (or as
// its transpose, read with CblasTrans), on `threads` OpenBLAS threads.
void product_openblas(benchmark::State& state, ProductShape shape, int threads) {
  const int m = static_cast<int>(shape.rows);
  const int k = static_cast<int>(shape.depth);
  const int n = static_cast<int>(shape.columns);
  const std::vector<double> a = sample_values(shape.rows * shape.depth, 5);
  const std::vector<double> b = sample_values(shape.depth * shape.columns, 6);
  std::vector<double> c(shape.rows * shape.columns);
  openblas_set_num_threads(threads);
  for (auto _ : state) {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, shape.right_transposed ? CblasTrans : CblasNoTrans, m,
                n, k, 1.0, a.data(), k, b.data(), shape.right_transposed ? k : n, 0.0, c.data(), n);
    benchmark::DoNotOptimize(c.data());
  }
  openblas_set_num_threads(1);
  set_flops(state, 2.0 * m * n * k);
}

void decode_openblas(benchmark::State& state, ProductShape shape) {
  product_openblas(state, shape, 1);
}

void threads_openblas(benchmark::State& state, ProductShape shape) {
  product_openblas(state, shape, static_cast<int>(state.range(0)));
}

const int registered = [] {
  register_product_benchmarks("openblas", decode_openblas, threads_openblas);
  return 0;
}();

}  // namespace

BENCHMARK(matmul_openblas)
    ->Name("matmul/openblas")
    ->ArgsProduct({kMatmulSizes})
    ->Apply(repeated)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(matmul_batched_openblas)
    ->Name("matmul_batched/openblas")
    ->Apply(repeated)
    ->Unit(benchmark::kMicrosecond);

}  // namespace bench

#endif
