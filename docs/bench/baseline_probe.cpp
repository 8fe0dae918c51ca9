// The "before" figures of docs/performance.md: the chapter-16 chain and the
// attention probe of bench/tape_bench.cpp, written against the API of commit
// 6d7ecff (before the data-model branch: value() returned const Tensor&,
// sum_axis took a bool, reshape and transpose copied). Build it against that
// commit's libraries as docs/performance.md describes; it prints allocations
// per forward+backward and the minimum CPU time per step. Not built by CMake.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "allocation_counter.hpp"
#include "bench_cases.hpp"
#include "llm/autograd/tensor_value.hpp"
using namespace llm;
TensorValue param(const Shape& shape, std::uint64_t seed, double scale) {
  std::vector<double> v = bench::sample_values(element_count(shape), seed);
  for (double& x : v) x *= scale;
  return TensorValue::parameter(Tensor(shape, v));
}
int main() {
  {
    auto s = bench::kBookChain;
    auto E = param({s.vocabulary, s.channels}, 11, 0.5),
         W1 = param({s.channels, s.hidden}, 12, 0.2), W2 = param({s.hidden, s.vocabulary}, 13, 0.2);
    auto ids = bench::token_ids(s.batch * s.time, s.vocabulary, 0),
         targets = bench::token_ids(s.batch * s.time, s.vocabulary, 1);
    auto step = [&] {
      auto loss = E.gather_rows(ids, {s.batch, s.time})
                      .matmul(W1)
                      .silu()
                      .matmul(W2)
                      .indexed_mean_nll(2, targets);
      loss.backward_with_seed(Tensor::scalar(1.0), Retention::Release);
      for (auto& p : {E, W1, W2}) p.zero_grad();
    };
    step();
    {
      bench::CountAllocations c;
      step();
      std::printf("old chain book allocations %llu\n", (unsigned long long)c.count());
    }
    double best = 1e9;
    for (int r = 0; r < 5; ++r) {
      auto t0 = std::clock();
      for (int i = 0; i < 200; ++i) step();
      best = std::min(best, double(std::clock() - t0) / CLOCKS_PER_SEC / 200);
    }
    std::printf("old chain book %.1f us (min CPU of 5)\n", best * 1e6);
  }
  {
    auto size = bench::kAttention;
    std::size_t D = size.channels / size.heads;
    auto x = param({size.batch, size.time, size.channels}, 21, 1.0),
         wq = param({size.channels, size.channels}, 22, 0.1),
         wk = param({size.channels, size.channels}, 23, 0.1),
         wv = param({size.channels, size.channels}, 24, 0.1);
    auto scale = TensorValue::constant(Tensor::scalar(1.0 / std::sqrt(double(D))));
    auto split = [&](const TensorValue& t) {
      return t.reshape({size.batch, size.time, size.heads, D}).transpose(1, 2);
    };
    auto step = [&] {
      auto q = split(x.matmul(wq)), k = split(x.matmul(wk)), v = split(x.matmul(wv));
      auto w = q.matmul(k.transpose(2, 3)).mul(scale).log_softmax(3).exp();
      auto merged = w.matmul(v).transpose(1, 2).reshape({size.batch * size.time * size.channels});
      auto loss = merged.sum_axis(0, false);
      loss.backward_with_seed(Tensor::scalar(1.0), Retention::Release);
      for (auto& p : {x, wq, wk, wv}) p.zero_grad();
    };
    step();
    {
      bench::CountAllocations c;
      step();
      std::printf("old attention allocations %llu\n", (unsigned long long)c.count());
    }
    double best = 1e9;
    for (int r = 0; r < 3; ++r) {
      auto t0 = std::clock();
      for (int i = 0; i < 3; ++i) step();
      best = std::min(best, double(std::clock() - t0) / CLOCKS_PER_SEC / 3);
    }
    std::printf("old attention %.1f us (min CPU of 3)\n", best * 1e6);
  }
}
