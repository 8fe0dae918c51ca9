// The chapter-40 training step against our own matrix-product peak, in one
// process (docs/performance.md, "The step on an Intel Xeon"): trains
// chapter 40's configuration (TrainRunConfig's defaults, the real Tiny
// Shakespeare batches) for a few updates, prints each update's loss and
// gradient norm with %.17g (so two builds can be compared bit for bit) and its
// thread CPU time, and after each update times llm::matmul on [B T, D] x
// [D, F] as llm-train does; it states the step's share of the rate measured
// beside it (the median over the updates after the first). Each update's
// wall time and the CPU time of all threads are printed too, for runs with
// LLM_THREADS=2; MATMUL_SECONDS 0 leaves the product out (steps only).
//
//   step_probe DATA [UPDATES [MATMUL_SECONDS]]
//
// Build it against a built tree's libraries (the sanitizer builds of `make
// test` left out), e.g.
//   g++ -std=c++20 -O2 -ffp-contract=off -Isrc docs/bench/step_probe.cpp \
//     -Wl,--start-group $(ls build/libllm_*.a | grep -v -e asan -e tsan) \
//     -Wl,--end-group -lnettle -o build/step_probe
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "llm/text/text_dataset.hpp"
#include "llm/training/run_measurement.hpp"
#include "llm/training/token_cost.hpp"
#include "llm/training/train_run.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: step_probe DATA [UPDATES [MATMUL_SECONDS]]\n");
    return 2;
  }
  const std::size_t updates = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 8;
  const double matmul_seconds = argc > 3 ? std::strtod(argv[3], nullptr) : 1.0;
  const llm::TrainRunConfig config;
  const auto text = std::make_shared<const llm::TrainingText>(llm::TrainingText::from_text(
      llm::read_verified_text(argv[1], llm::kTinyShakespeare), config.train_fraction));
  llm::TrainRun run = llm::TrainRun::start(config, text);

  const double flops =
      static_cast<double>(llm::token_cost(config, text->vocabulary.size()).training_flops() *
                          config.batch_size * config.context);
  // After each update, the product's rate over `matmul_seconds`: on a machine
  // whose load changes, each step is compared with the rate measured beside it.
  std::vector<double> seconds, walls, rates, shares;
  std::string kernel;
  for (std::size_t i = 0; i < updates; ++i) {
    const llm::RunClocks start = llm::RunClocks::now();
    const llm::UpdateReport report = run.update();
    const llm::RunClocks elapsed = llm::RunClocks::now() - start;
    if (matmul_seconds <= 0.0) {
      std::printf(
          "update %zu loss %.17g norm %.17g thread_cpu_ms %.2f wall_ms %.2f process_cpu_ms %.2f\n",
          report.iteration, report.loss, report.clip.norm_before, 1e3 * elapsed.thread_cpu,
          1e3 * elapsed.wall, 1e3 * elapsed.process_cpu);
      if (i > 0) {
        seconds.push_back(elapsed.thread_cpu);
        walls.push_back(elapsed.wall);
      }
      continue;
    }
    const llm::MatmulRate peak =
        llm::measure_matmul(config.batch_size * config.context, config.model_width,
                            config.feed_forward_width, matmul_seconds);
    kernel = peak.kernel;
    std::printf(
        "update %zu loss %.17g norm %.17g thread_cpu_ms %.2f wall_ms %.2f matmul_gflops %.2f\n",
        report.iteration, report.loss, report.clip.norm_before, 1e3 * elapsed.thread_cpu,
        1e3 * elapsed.wall, peak.gflops_thread_cpu);
    if (i == 0) continue;  // the first update pays for first touches of every buffer
    seconds.push_back(elapsed.thread_cpu);
    walls.push_back(elapsed.wall);
    rates.push_back(peak.gflops_thread_cpu);
    shares.push_back(flops / elapsed.thread_cpu * 1e-9 / peak.gflops_thread_cpu);
  }
  if (seconds.empty()) return 0;
  const auto median = [](std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
  };
  std::printf("step: median %.2f ms thread CPU, %.2f ms wall, %.2f GFLOP/s (thread CPU)\n",
              1e3 * median(seconds), 1e3 * median(walls), flops / median(seconds) * 1e-9);
  if (rates.empty()) return 0;
  std::printf("matmul [%zu, %zu] x [%zu, %zu]: median %.2f GFLOP/s (thread CPU, kernel %s)\n",
              config.batch_size * config.context, config.model_width, config.model_width,
              config.feed_forward_width, median(rates), kernel.c_str());
  std::printf("median share of the product beside it %.1f %%\n", 100.0 * median(shares));
  return 0;
}
