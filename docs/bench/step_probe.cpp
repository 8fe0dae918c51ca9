// The chapter-40 training step against our own matrix-product peak, in one
// process (docs/performance.md, "The step on an Intel Xeon"): trains
// chapter 40's configuration (TrainRunConfig's defaults, the real Tiny
// Shakespeare batches) for a few updates, prints each update's loss and
// gradient norm with %.17g (so two builds can be compared bit for bit) and its
// thread CPU time, then times llm::matmul on [B T, D] x [D, F] as llm-train
// does, and states the step's share of that rate.
//
//   step_probe DATA [UPDATES [MATMUL_SECONDS]]
//
// Build it against a configured build directory (the libraries llm-train
// links), e.g.
//   g++ -std=c++20 -O2 -ffp-contract=off -Isrc docs/bench/step_probe.cpp \
//     -Wl,--start-group build/lib*.a -Wl,--end-group -o build/step_probe
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
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

  std::vector<double> seconds;
  for (std::size_t i = 0; i < updates; ++i) {
    const llm::RunClocks start = llm::RunClocks::now();
    const llm::UpdateReport report = run.update();
    const llm::RunClocks elapsed = llm::RunClocks::now() - start;
    seconds.push_back(elapsed.thread_cpu);
    std::printf("update %zu loss %.17g norm %.17g thread_cpu_ms %.2f\n", report.iteration,
                report.loss, report.clip.norm_before, 1e3 * elapsed.thread_cpu);
  }
  const llm::MatmulRate peak =
      llm::measure_matmul(config.batch_size * config.context, config.model_width,
                          config.feed_forward_width, matmul_seconds);
  const double flops =
      static_cast<double>(llm::token_cost(config, text->vocabulary.size()).training_flops() *
                          config.batch_size * config.context);
  // The first update pays for first touches of every buffer: left out.
  std::vector<double> steady(seconds.begin() + (seconds.size() > 1 ? 1 : 0), seconds.end());
  std::sort(steady.begin(), steady.end());
  const double fastest = steady.front();
  const double median = steady[steady.size() / 2];
  std::printf("matmul [%zu, %zu] x [%zu, %zu]: %.2f GFLOP/s (thread CPU, kernel %s)\n", peak.rows,
              peak.depth, peak.depth, peak.columns, peak.gflops_thread_cpu, peak.kernel.c_str());
  std::printf(
      "step: fastest %.2f ms, median %.2f ms; %.2f GFLOP/s = %.1f %% of the product "
      "(median)\n",
      1e3 * fastest, 1e3 * median, flops / median * 1e-9,
      100.0 * flops / median * 1e-9 / peak.gflops_thread_cpu);
  return 0;
}
