// Our matrix product beyond the square sizes: every kernel this CPU runs at
// 256^3 and 512^3 (LLM_MATMUL_KERNEL chooses among the same ones), the
// decode shapes of one token, and chapter 40's training shapes on 1 and 2
// threads. Every case checks its bits against the textbook loop first.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bench_cases.hpp"
#include "llm/tensor/matmul.hpp"
#include "llm/tensor/matmul_kernel.hpp"
#include "llm/tensor/parallel.hpp"
#include "same_bits.hpp"

namespace bench {
namespace {

// The operands of a shape: left [rows, depth]; right [depth, columns], stored
// transposed when the shape says so.
struct Operands {
  llm::Tensor left, right_stored;
  llm::TensorView right() const {
    return right_transposed ? right_stored.view().matrix_transpose() : right_stored.view();
  }
  bool right_transposed = false;
};

Operands operands_of(const ProductShape& shape) {
  Operands operands;
  operands.left =
      llm::Tensor({shape.rows, shape.depth}, sample_values(shape.rows * shape.depth, 5));
  const llm::Shape stored = shape.right_transposed ? llm::Shape{shape.columns, shape.depth}
                                                   : llm::Shape{shape.depth, shape.columns};
  operands.right_stored = llm::Tensor(stored, sample_values(shape.depth * shape.columns, 6));
  operands.right_transposed = shape.right_transposed;
  return operands;
}

// One kernel chosen by name, multiplying N x N x N into a preallocated buffer.
void matmul_kernel_named(benchmark::State& state, std::string name, std::int64_t size) {
  const auto n = static_cast<std::size_t>(size);
  const llm::Tensor a({n, n}, sample_values(n * n, 1));
  const llm::Tensor b({n, n}, sample_values(n * n, 2));
  const llm::matmul_detail::MatmulKernel& kernel =
      llm::matmul_detail::kernel_named(name, "benchmark");
  llm::Tensor c = llm::Tensor::zeros({n, n});
  const auto multiply = [&] {
    llm::matmul_detail::multiply_matrices_with(kernel, n, n, n, {a.values().data(), n, 1},
                                               {b.values().data(), n, 1}, c.mutable_values().data(),
                                               n);
  };
  multiply();
  state.counters["bit_identical"] = same_bits(c, llm::matmul_textbook(a, b)) ? 1 : 0;
  for (auto _ : state) {
    multiply();
    benchmark::DoNotOptimize(c.values().data());
  }
  set_flops(state, 2.0 * static_cast<double>(n * n * n));
}

void matmul_shape_ours(benchmark::State& state, ProductShape shape) {
  const Operands operands = operands_of(shape);
  state.counters["bit_identical"] = same_bits(llm::matmul(operands.left, operands.right()),
                                              llm::matmul_textbook(operands.left, operands.right()))
                                        ? 1
                                        : 0;
  for (auto _ : state) benchmark::DoNotOptimize(llm::matmul(operands.left, operands.right()));
  set_flops(state, 2.0 * static_cast<double>(shape.rows * shape.depth * shape.columns));
}

// With several threads the calling thread's CPU time misses the workers'
// work, so these report wall time (UseRealTime): meaningful on a quiet machine only.
void matmul_threads_ours(benchmark::State& state, ProductShape shape) {
  const auto threads = static_cast<std::size_t>(state.range(0));
  const Operands operands = operands_of(shape);
  const std::size_t previous = llm::set_thread_count(threads);
  state.counters["bit_identical"] = same_bits(llm::matmul(operands.left, operands.right()),
                                              llm::matmul_textbook(operands.left, operands.right()))
                                        ? 1
                                        : 0;
  for (auto _ : state) benchmark::DoNotOptimize(llm::matmul(operands.left, operands.right()));
  llm::set_thread_count(previous);
  set_flops(state, 2.0 * static_cast<double>(shape.rows * shape.depth * shape.columns));
}

const int registered = [] {
  for (const llm::matmul_detail::MatmulKernel& kernel : llm::matmul_detail::available_kernels()) {
    for (std::int64_t size : {256, 512}) {
      const std::string name = std::string(kernel.name);
      benchmark::RegisterBenchmark(("matmul_kernel/" + name + "/" + std::to_string(size)).c_str(),
                                   matmul_kernel_named, name, size)
          ->Apply(repeated)
          ->Unit(benchmark::kMicrosecond);
    }
  }
  register_product_benchmarks("ours", matmul_shape_ours, matmul_threads_ours);
  return 0;
}();

}  // namespace
}  // namespace bench
