// Our decoder's training step (forward, backward, AdamW, zero-grad) at issue
// 18's size and chapter 40's, with the allocations of each phase; chapter 40's
// also on 2 threads. anchor_torch.cpp runs the same model in libtorch.
#include "decoder_cases.hpp"

#if defined(LLM_BENCH_DECODER)
#include <benchmark/benchmark.h>

#include <optional>
#include <string>
#include <vector>

#include "allocation_counter.hpp"
#include "bench_cases.hpp"
#include "llm/tensor/parallel.hpp"
#include "llm/training/adamw.hpp"

namespace bench {
namespace {

// A model, its batch and its optimizer: one training run.
struct DecoderRun {
  explicit DecoderRun(const DecoderSize& size)
      : size_(size),
        model_(initial_decoder(size)),
        batch_(decoder_batch(size)),
        optimizer_(llm::AdamWConfig::create(kLearningRate, kBeta1, kBeta2, kEpsilon, kWeightDecay),
                   groups(model_)) {}

  llm::TensorValue forward() const {
    return model_.loss(batch_.ids, {size_.batch, size_.context}, batch_.targets);
  }
  void optimize() {
    optimizer_.step(model_.parameters());
    model_.parameters().zero_grad();
  }
  // One whole step; returns the loss before the update.
  double step() {
    const llm::TensorValue loss = forward();
    loss.backward();
    optimize();
    return loss.item();
  }

 private:
  // Decay on weights, none on gains.
  static llm::AdamWParameterGroups groups(const llm::DecoderModel& model) {
    std::vector<std::string> decay, no_decay;
    for (const llm::NamedParameter& entry : model.parameters()) {
      (entry.name.ends_with(".gain") ? no_decay : decay).push_back(entry.name);
    }
    return llm::AdamWParameterGroups::create(decay, no_decay);
  }

  DecoderSize size_;
  llm::DecoderModel model_;
  DecoderBatch batch_;
  llm::AdamW optimizer_;
};

// Allocations of each phase of one step, after a warm-up step.
void count_allocations(benchmark::State& state, DecoderRun& run) {
  run.step();
  std::uint64_t forward = 0, backward = 0, optimizer = 0;
  {
    const CountAllocations whole;
    std::optional<llm::TensorValue> loss;
    {
      const CountAllocations count;
      loss.emplace(run.forward());
      forward = count.count();
    }
    {
      const CountAllocations count;
      loss->backward();
      backward = count.count();
    }
    {
      const CountAllocations count;
      run.optimize();
      optimizer = count.count();
    }
    state.counters["allocations"] = static_cast<double>(whole.count());
  }
  state.counters["allocations_forward"] = static_cast<double>(forward);
  state.counters["allocations_backward"] = static_cast<double>(backward);
  state.counters["allocations_optimizer"] = static_cast<double>(optimizer);
}

void decoder_step_ours(benchmark::State& state, DecoderSize size) {
  DecoderRun run(size);
  count_allocations(state, run);
  for (auto _ : state) benchmark::DoNotOptimize(run.step());
  state.counters["tokens"] = benchmark::Counter(static_cast<double>(size.batch * size.context),
                                                benchmark::Counter::kIsIterationInvariantRate);
}

void decoder_forward_ours(benchmark::State& state, DecoderSize size) {
  DecoderRun run(size);
  run.step();
  for (auto _ : state) benchmark::DoNotOptimize(run.forward().item());
}

void decoder_forward_backward_ours(benchmark::State& state, DecoderSize size) {
  DecoderRun run(size);
  run.step();
  for (auto _ : state) {
    const llm::TensorValue loss = run.forward();
    loss.backward();
  }
}

// Several threads: wall time (see docs/performance.md).
void decoder_step_threads_ours(benchmark::State& state, DecoderSize size) {
  const std::size_t previous = llm::set_thread_count(static_cast<std::size_t>(state.range(0)));
  DecoderRun run(size);
  run.step();
  for (auto _ : state) benchmark::DoNotOptimize(run.step());
  llm::set_thread_count(previous);
}

const int registered = [] {
  register_decoder_benchmarks("ours", {decoder_step_ours, decoder_forward_ours,
                                       decoder_forward_backward_ours, decoder_step_threads_ours});
  return 0;
}();

}  // namespace

std::vector<double> decoder_losses_ours(const DecoderSize& size) {
  DecoderRun run(size);
  std::vector<double> losses;
  for (std::size_t k = 0; k < kComparedSteps; ++k) losses.push_back(run.step());
  return losses;
}

}  // namespace bench

#endif
