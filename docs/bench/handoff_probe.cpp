// How long handing work to the pool's worker takes, and how long a piece of
// kMinimumPiece values takes to multiply, in one process (docs/performance.md,
// "Splitting elementwise work"). Build against a built tree's libraries:
//   g++ -std=c++20 -O2 -ffp-contract=off -Isrc docs/bench/handoff_probe.cpp \
//     build/libllm_tensor.a build/libllm_core.a -lpthread -o build/handoff_probe
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "llm/tensor/elementwise.hpp"
#include "llm/tensor/parallel.hpp"
#include "llm/tensor/tensor.hpp"

namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// Busy-waits `microseconds`, so the worker has been idle that long.
void idle_for(int microseconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(microseconds);
  while (std::chrono::steady_clock::now() < until) {
  }
}

}  // namespace

int main() {
  llm::set_thread_count(2);
  // Two trivial tasks, after the worker was idle for a while: below the
  // pool's spin time it is still watching for work, above it it sleeps.
  volatile double sink = 0.0;
  for (const int idle : {50, 1000}) {
    std::vector<double> times;
    for (int repeat = 0; repeat < 400; ++repeat) {
      idle_for(idle);
      const auto start = std::chrono::steady_clock::now();
      llm::parallel_for(2, [&](std::size_t task) { sink = sink + static_cast<double>(task); });
      times.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
              .count());
    }
    std::printf("parallel_for of two trivial tasks after %d us idle: median %.1f us\n", idle,
                median(times));
  }
  // One piece of work: mul over 16,384 values (kMinimumPiece) on one thread.
  constexpr std::size_t kPiece = 16384;
  llm::set_thread_count(1);
  const llm::Tensor a = llm::Tensor::filled(llm::Shape{kPiece}, 1.5);
  std::vector<double> times;
  for (int repeat = 0; repeat < 400; ++repeat) {
    const auto start = std::chrono::steady_clock::now();
    const llm::Tensor product = llm::mul(a.view(), a.view());
    times.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count());
    sink = sink + product.values()[0];
  }
  std::printf("mul over %zu values on one thread: median %.1f us\n", kPiece, median(times));
  return 0;
}
