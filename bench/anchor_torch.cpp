// libtorch on the same work in float64, single-threaded: the matrix
// products, the chapter-16 chain and the attention probe forward+backward.
// Built only when libtorch-dev is installed.
#if defined(LLM_BENCH_TORCH)
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <cmath>
#include <vector>

#include "bench_cases.hpp"

namespace bench {
namespace {

torch::Tensor tensor_of(std::vector<double> values, std::vector<std::int64_t> shape) {
  return torch::tensor(values, torch::kFloat64).reshape(shape).clone();
}

torch::Tensor parameter(std::vector<std::int64_t> shape, std::uint64_t seed, double scale) {
  std::size_t count = 1;
  for (std::int64_t extent : shape) count *= static_cast<std::size_t>(extent);
  std::vector<double> values = sample_values(count, seed);
  for (double& value : values) value *= scale;
  return tensor_of(std::move(values), std::move(shape)).requires_grad_(true);
}

torch::Tensor indices(const std::vector<std::size_t>& values, std::vector<std::int64_t> shape) {
  std::vector<std::int64_t> wide(values.begin(), values.end());
  return torch::tensor(wide, torch::kInt64).reshape(shape).clone();
}

void matmul_torch(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const std::size_t count = static_cast<std::size_t>(n * n);
  const torch::Tensor a = tensor_of(sample_values(count, 1), {n, n});
  const torch::Tensor b = tensor_of(sample_values(count, 2), {n, n});
  torch::NoGradGuard no_grad;
  for (auto _ : state) benchmark::DoNotOptimize(torch::matmul(a, b));
  state.counters["flops"] = benchmark::Counter(2.0 * static_cast<double>(n * n * n),
                                               benchmark::Counter::kIsIterationInvariantRate);
}

void matmul_batched_torch(benchmark::State& state) {
  const auto batch = static_cast<std::int64_t>(kBatch);
  const auto n = static_cast<std::int64_t>(kBatchedSize);
  const torch::Tensor a =
      tensor_of(sample_values(kBatch * kBatchedSize * kBatchedSize, 3), {batch, n, n});
  const torch::Tensor b = tensor_of(sample_values(kBatchedSize * kBatchedSize, 4), {n, n});
  torch::NoGradGuard no_grad;
  for (auto _ : state) benchmark::DoNotOptimize(torch::matmul(a, b));
  state.counters["flops"] = benchmark::Counter(2.0 * static_cast<double>(batch * n * n * n),
                                               benchmark::Counter::kIsIterationInvariantRate);
}

void zero_grads(std::initializer_list<torch::Tensor> parameters) {
  for (const torch::Tensor& p : parameters) p.mutable_grad().zero_();
}

void chain_torch(benchmark::State& state, ChainSize size) {
  const auto b = static_cast<std::int64_t>(size.batch);
  const auto t = static_cast<std::int64_t>(size.time);
  const auto v = static_cast<std::int64_t>(size.vocabulary);
  const auto c = static_cast<std::int64_t>(size.channels);
  const auto h = static_cast<std::int64_t>(size.hidden);
  const torch::Tensor embeddings = parameter({v, c}, 11, 0.5);
  const torch::Tensor w1 = parameter({c, h}, 12, 0.2);
  const torch::Tensor w2 = parameter({h, v}, 13, 0.2);
  const torch::Tensor ids = indices(token_ids(size.batch * size.time, size.vocabulary, 0), {b, t});
  const torch::Tensor targets =
      indices(token_ids(size.batch * size.time, size.vocabulary, 1), {b * t});
  const auto step = [&] {
    const torch::Tensor logits =
        torch::matmul(torch::silu(torch::matmul(torch::embedding(embeddings, ids), w1)), w2);
    const torch::Tensor loss =
        torch::nll_loss(torch::log_softmax(logits.reshape({b * t, v}), 1), targets);
    loss.backward();
    zero_grads({embeddings, w1, w2});
  };
  step();
  for (auto _ : state) step();
}

void attention_torch(benchmark::State& state) {
  const AttentionSize size = kAttention;
  const auto b = static_cast<std::int64_t>(size.batch);
  const auto t = static_cast<std::int64_t>(size.time);
  const auto c = static_cast<std::int64_t>(size.channels);
  const auto heads = static_cast<std::int64_t>(size.heads);
  const std::int64_t d = c / heads;
  const torch::Tensor x = parameter({b, t, c}, 21, 1.0);
  const torch::Tensor wq = parameter({c, c}, 22, 0.1);
  const torch::Tensor wk = parameter({c, c}, 23, 0.1);
  const torch::Tensor wv = parameter({c, c}, 24, 0.1);
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  const auto split = [&](const torch::Tensor& u) {
    return u.reshape({b, t, heads, d}).transpose(1, 2);
  };
  const auto step = [&] {
    const torch::Tensor q = split(torch::matmul(x, wq));
    const torch::Tensor k = split(torch::matmul(x, wk));
    const torch::Tensor v = split(torch::matmul(x, wv));
    const torch::Tensor weights =
        torch::log_softmax(torch::matmul(q, k.transpose(2, 3)) * scale, 3).exp();
    const torch::Tensor loss =
        torch::matmul(weights, v).transpose(1, 2).contiguous().reshape({b * t * c}).sum();
    loss.backward();
    zero_grads({x, wq, wk, wv});
  };
  step();
  for (auto _ : state) step();
}

}  // namespace

BENCHMARK(matmul_torch)
    ->Name("matmul/torch")
    ->ArgsProduct({kMatmulSizes})
    ->Apply(repeated)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(matmul_batched_torch)
    ->Name("matmul_batched/torch")
    ->Apply(repeated)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(chain_torch, book, kBookChain)
    ->Name("chain/torch/book")
    ->Apply(repeated)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(chain_torch, wide, kWideChain)
    ->Name("chain/torch/wide")
    ->Apply(repeated)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(attention_torch)->Name("attention/torch")->Apply(repeated)->Unit(benchmark::kMicrosecond);

}  // namespace bench

#endif

#if defined(LLM_BENCH_TORCH)
namespace bench {
/// One intra-op and one inter-op thread, so libtorch is timed single-threaded.
void use_one_torch_thread() {
  at::set_num_threads(1);
  at::set_num_interop_threads(1);
}
}  // namespace bench
#endif
