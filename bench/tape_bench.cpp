// Our tapes: the chapter-16 chain and the attention probe forward+backward
// (with their allocation counts), and the scalar tape at 10^6 nodes.
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "allocation_counter.hpp"
#include "bench_cases.hpp"
#include "llm/autograd/scalar.hpp"
#include "llm/autograd/tensor_value.hpp"

namespace bench {
namespace {

using llm::Retention;
using llm::Tensor;
using llm::TensorValue;

TensorValue parameter(const llm::Shape& shape, std::uint64_t seed, double scale) {
  std::vector<double> values = sample_values(llm::element_count(shape), seed);
  for (double& value : values) value *= scale;
  return TensorValue::parameter(Tensor(shape, std::move(values)));
}

// region: bench-chain
// One training step's reverse pass: gather, matmul, SiLU, matmul, mean NLL,
// backward with Release (the graph is freed as the pass ends).
void chain_step(const ChainSize& size, const TensorValue& embeddings, const TensorValue& w1,
                const TensorValue& w2, const std::vector<std::size_t>& ids,
                const std::vector<std::size_t>& targets) {
  const TensorValue loss = embeddings.gather_rows(ids, {size.batch, size.time})
                               .matmul(w1)
                               .silu()
                               .matmul(w2)
                               .indexed_mean_nll(2, targets);
  loss.backward_with_seed(Tensor::scalar(1.0), Retention::Release);
  for (const TensorValue& p : {embeddings, w1, w2}) p.zero_grad();
}
// endregion: bench-chain

void chain_ours(benchmark::State& state, ChainSize size) {
  const TensorValue embeddings = parameter({size.vocabulary, size.channels}, 11, 0.5);
  const TensorValue w1 = parameter({size.channels, size.hidden}, 12, 0.2);
  const TensorValue w2 = parameter({size.hidden, size.vocabulary}, 13, 0.2);
  const std::vector<std::size_t> ids = token_ids(size.batch * size.time, size.vocabulary, 0);
  const std::vector<std::size_t> targets = token_ids(size.batch * size.time, size.vocabulary, 1);
  chain_step(size, embeddings, w1, w2, ids, targets);
  {
    const CountAllocations count;
    chain_step(size, embeddings, w1, w2, ids, targets);
    state.counters["allocations"] = static_cast<double>(count.count());
  }
  for (auto _ : state) chain_step(size, embeddings, w1, w2, ids, targets);
}

// region: bench-attention
// The attention probe: heads split with reshape + transpose (views, no copy),
// scores and context as batched matmuls, softmax as exp(log_softmax), heads
// merged with transpose + materialize + reshape, then the sum as the loss.
void attention_step(const AttentionSize& size, const TensorValue& x, const TensorValue& wq,
                    const TensorValue& wk, const TensorValue& wv, const TensorValue& scale) {
  const std::size_t head_width = size.channels / size.heads;
  const auto split = [&](const TensorValue& t) {  // [B, T, C] -> [B, H, T, D]
    return t.reshape({size.batch, size.time, size.heads, head_width}).transpose(1, 2);
  };
  const TensorValue q = split(x.matmul(wq));
  const TensorValue k = split(x.matmul(wk));
  const TensorValue v = split(x.matmul(wv));
  const TensorValue scores = q.matmul(k.transpose(2, 3)).mul(scale);  // [B, H, T, T]
  const TensorValue weights = scores.log_softmax(3).exp();
  const TensorValue merged = weights.matmul(v).transpose(1, 2).materialize().reshape(
      {size.batch * size.time * size.channels});
  const TensorValue loss = merged.sum_axis(0);
  loss.backward_with_seed(Tensor::scalar(1.0), Retention::Release);
  for (const TensorValue& p : {x, wq, wk, wv}) p.zero_grad();
}
// endregion: bench-attention

void attention_ours(benchmark::State& state) {
  const AttentionSize size = kAttention;
  const TensorValue x = parameter({size.batch, size.time, size.channels}, 21, 1.0);
  const TensorValue wq = parameter({size.channels, size.channels}, 22, 0.1);
  const TensorValue wk = parameter({size.channels, size.channels}, 23, 0.1);
  const TensorValue wv = parameter({size.channels, size.channels}, 24, 0.1);
  const TensorValue scale = TensorValue::constant(
      Tensor::scalar(1.0 / std::sqrt(static_cast<double>(size.channels / size.heads))));
  attention_step(size, x, wq, wk, wv, scale);
  {
    const CountAllocations count;
    attention_step(size, x, wq, wk, wv, scale);
    state.counters["allocations"] = static_cast<double>(count.count());
  }
  for (auto _ : state) attention_step(size, x, wq, wk, wv, scale);
}

// A chain of 10^6 scalar operations: build, reverse, free.
void scalar_tape_ours(benchmark::State& state) {
  for (auto _ : state) {
    const llm::Scalar x = llm::Scalar::parameter(0.5);
    llm::Scalar chain = x;
    for (std::size_t k = 0; k < kScalarNodes; ++k) chain = chain.neg();
    benchmark::DoNotOptimize(chain.backward());
  }
}

}  // namespace

BENCHMARK_CAPTURE(chain_ours, book, kBookChain)
    ->Name("chain/ours/book")
    ->Apply(repeated)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(chain_ours, wide, kWideChain)
    ->Name("chain/ours/wide")
    ->Apply(repeated)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(attention_ours)->Name("attention/ours")->Apply(repeated)->Unit(benchmark::kMicrosecond);
BENCHMARK(scalar_tape_ours)
    ->Name("scalar_tape/ours/1000000")
    ->Apply(repeated)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace bench
