// The benchmark binary's entry point: runs every registered benchmark
// single-threaded (ours, and OpenBLAS and libtorch where they are built in),
// then prints one table of ratios from the same run. `make bench` runs it;
// docs/performance.md records one run.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench_cases.hpp"
#include "decoder_cases.hpp"
#include "llm/tensor/matmul_kernel.hpp"
#include "llm/tensor/parallel.hpp"

#if defined(LLM_BENCH_OPENBLAS)
#include <cblas.h>  // also declares openblas_get_corename and openblas_get_config
#endif

namespace bench {
#if defined(LLM_BENCH_TORCH)
void use_one_torch_thread();  // anchor_torch.cpp
#endif

namespace {

// CPU seconds per iteration and counters of each benchmark, the minimum over
// its repetitions. Most benchmarks run on one thread, so their CPU time is the
// work done; on a machine shared with other jobs the wall time also counts
// the time the thread waited for a core. The threaded ones (matmul_threads)
// are compared by wall time, which only a quiet machine makes meaningful.
struct Measured {
  double seconds = 0.0;
  double wall_seconds = 0.0;
  std::map<std::string, double> counters;
};

class CollectingReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      // The minimum over the repetitions when there are some, else the one run.
      const bool minimum = run.run_type == Run::RT_Aggregate && run.aggregate_name == "min";
      if (run.run_type == Run::RT_Aggregate && !minimum) continue;
      if (run.error_occurred) continue;
      std::string name = run.run_name.function_name;  // without /repeats:5 or /iterations:1
      if (!run.run_name.args.empty()) name += "/" + run.run_name.args;
      if (!minimum && repeated_.count(name)) continue;
      Measured& measured = results_[name];
      measured.seconds = run.GetAdjustedCPUTime() / benchmark::GetTimeUnitMultiplier(run.time_unit);
      measured.wall_seconds =
          run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit);
      for (const auto& [key, counter] : run.counters) measured.counters[key] = counter.value;
      if (minimum) repeated_[name] = true;
    }
    ConsoleReporter::ReportRuns(runs);
  }
  const std::map<std::string, Measured>& results() const { return results_; }

 private:
  std::map<std::string, Measured> results_;
  std::map<std::string, bool> repeated_;
};

// region: bench-machine-context
/// The first value of `field` in /proc/cpuinfo (`model name`, `cpu family`,
/// `model`), or "unknown" where there is no such file (not Linux) or field.
std::string cpuinfo_field(const std::string& field) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
    if (key != field) continue;
    const std::size_t start = line.find_first_not_of(' ', colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "unknown";
}

/// The kernel family OpenBLAS chose for this CPU at load time (what
/// OPENBLAS_VERBOSE=2 prints), or "not built" without OpenBLAS.
std::string openblas_core() {
#if defined(LLM_BENCH_OPENBLAS)
  return openblas_get_corename();
#else
  return "not built";
#endif
}

/// Adds what a ratio depends on to the JSON's `context`: the CPU, the
/// microkernel our matmul chose on it and the core OpenBLAS chose
/// (docs/performance.md; chapter 11 names them beside every figure).
void record_machine_context() {
  benchmark::AddCustomContext("cpu_model_name", cpuinfo_field("model name"));
  benchmark::AddCustomContext("cpu_family", cpuinfo_field("cpu family"));
  benchmark::AddCustomContext("cpu_model", cpuinfo_field("model"));
  const llm::matmul_detail::MatmulKernel& kernel = llm::matmul_detail::chosen_kernel();
  benchmark::AddCustomContext("llm_microkernel", std::string(kernel.name));
  benchmark::AddCustomContext("llm_matmul_blocking",
                              std::to_string(kernel.tile.rows) + "x" +
                                  std::to_string(kernel.tile.columns) + " tile, K slice " +
                                  std::to_string(kernel.blocking.depth_block) + ", " +
                                  std::to_string(kernel.blocking.row_panels) + " row panels, " +
                                  std::to_string(kernel.blocking.column_block) + " columns");
  benchmark::AddCustomContext("llm_threads", std::to_string(llm::thread_count()));
  benchmark::AddCustomContext("compiler", __VERSION__);
  benchmark::AddCustomContext("openblas_core", openblas_core());
#if defined(LLM_BENCH_OPENBLAS)
  benchmark::AddCustomContext("openblas_config", openblas_get_config());
#endif
}
// endregion: bench-machine-context

std::optional<Measured> find(const std::map<std::string, Measured>& results,
                             const std::string& name) {
  const auto found = results.find(name);
  if (found == results.end()) return std::nullopt;
  return found->second;
}

std::string gflops(const std::optional<Measured>& measured, double flops) {
  if (!measured) return "      -";
  char text[32];
  std::snprintf(text, sizeof text, "%7.2f", flops / measured->seconds / 1e9);
  return text;
}

std::string micros(const std::optional<Measured>& measured) {
  if (!measured) return "         -";
  char text[32];
  std::snprintf(text, sizeof text, "%10.1f", measured->seconds * 1e6);
  return text;
}

std::string percent(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%13.1f%%", value);
  return text;
}

std::string bits_text(const std::optional<Measured>& ours) {
  if (!ours || !ours->counters.count("bit_identical")) return "       -";
  return ours->counters.at("bit_identical") == 1.0 ? "     yes" : "      NO";
}

// Every kernel this CPU runs at 256^3 and 512^3, against OpenBLAS.
void print_kernel_rows(const std::map<std::string, Measured>& results) {
  std::printf("\n%-26s %9s %9s %14s %8s\n", "kernels (GFLOP/s)", "ours", "OpenBLAS",
              "ours/OpenBLAS", "bits");
  for (const llm::matmul_detail::MatmulKernel& kernel : llm::matmul_detail::available_kernels()) {
    for (std::int64_t n : {256, 512}) {
      const double flops = 2.0 * static_cast<double>(n * n * n);
      const auto ours =
          find(results, "matmul_kernel/" + std::string(kernel.name) + "/" + std::to_string(n));
      const auto blas = find(results, "matmul/openblas/" + std::to_string(n));
      const std::string label = std::string(kernel.name) + " " + std::to_string(n) + "^3";
      std::printf(
          "%-26s %9s %9s %14s %8s\n", label.c_str(), gflops(ours, flops).c_str(),
          gflops(blas, flops).c_str(),
          ours && blas ? percent(100.0 * blas->seconds / ours->seconds).c_str() : "             -",
          bits_text(ours).c_str());
    }
  }
}

// One token's products: time and GFLOP/s, ours and OpenBLAS.
void print_decode_rows(const std::map<std::string, Measured>& results) {
  std::printf("\n%-26s %9s %9s %9s %9s %14s %8s\n", "decode [M,K]@[K,N]", "ours us", "OB us",
              "ours GF/s", "OB GF/s", "ours/OpenBLAS", "bits");
  for (const ProductShape& shape : kDecodeShapes) {
    const double flops = 2.0 * static_cast<double>(shape.rows * shape.depth * shape.columns);
    const auto ours = find(results, std::string("matmul_decode/ours/") + shape.name);
    const auto blas = find(results, std::string("matmul_decode/openblas/") + shape.name);
    std::printf(
        "%-26s %9s %9s %9s %9s %14s %8s\n", shape.name, micros(ours).c_str() + 1,
        micros(blas).c_str() + 1, gflops(ours, flops).c_str(), gflops(blas, flops).c_str(),
        ours && blas ? percent(100.0 * blas->seconds / ours->seconds).c_str() : "             -",
        bits_text(ours).c_str());
  }
}

// Chapter 40's products on 1 and 2 threads, by wall time.
void print_thread_rows(const std::map<std::string, Measured>& results) {
  std::printf("\n%-26s %11s %11s %8s %11s %11s %8s\n", "threads (wall us)", "ours 1", "ours 2",
              "speedup", "OB 1", "OB 2", "speedup");
  for (const ProductShape& shape : kThreadShapes) {
    const std::string base = std::string("/") + shape.name + "/threads:";
    const auto ours1 = find(results, "matmul_threads/ours" + base + "1");
    const auto ours2 = find(results, "matmul_threads/ours" + base + "2");
    const auto blas1 = find(results, "matmul_threads/openblas" + base + "1");
    const auto blas2 = find(results, "matmul_threads/openblas" + base + "2");
    const auto wall = [](const std::optional<Measured>& m) {
      if (!m) return std::string("          -");
      char text[32];
      std::snprintf(text, sizeof text, "%11.1f", m->wall_seconds * 1e6);
      return std::string(text);
    };
    const auto speedup = [](const std::optional<Measured>& one,
                            const std::optional<Measured>& two) {
      if (!one || !two) return std::string("       -");
      char text[32];
      std::snprintf(text, sizeof text, "%7.2fx", one->wall_seconds / two->wall_seconds);
      return std::string(text);
    };
    std::printf("%-26s %11s %11s %8s %11s %11s %8s\n", shape.name, wall(ours1).c_str(),
                wall(ours2).c_str(), speedup(ours1, ours2).c_str(), wall(blas1).c_str(),
                wall(blas2).c_str(), speedup(blas1, blas2).c_str());
  }
}

#if defined(LLM_BENCH_DECODER)
// The decoder training step, ours against libtorch: time per phase,
// allocations per step, and the first losses of both from the same weights.
void print_decoder_rows(const std::map<std::string, Measured>& results) {
  std::printf("\n%-40s %10s %10s %15s %12s\n", "decoder training step (microseconds)", "ours",
              "libtorch", "ours/libtorch", "allocations");
  for (const DecoderSize& size : kDecoderSizes) {
    for (const char* phase : {"forward", "forward_backward", "step"}) {
      const std::string suffix = std::string("/") + size.name;
      const auto ours = find(results, std::string("decoder_") + phase + "/ours" + suffix);
      const auto torch = find(results, std::string("decoder_") + phase + "/torch" + suffix);
      char ratio[32] = "              -";
      if (ours && torch)
        std::snprintf(ratio, sizeof ratio, "%14.2fx", ours->seconds / torch->seconds);
      std::string allocations = "           -";
      const char* key = std::string(phase) == "step" ? "allocations" : nullptr;
      if (ours && key && ours->counters.count(key)) {
        char text[64];
        std::snprintf(text, sizeof text, "%12.0f", ours->counters.at(key));
        allocations = text;
      }
      const std::string label = std::string(size.name) + " " + phase;
      std::printf("%-40s %10s %10s %15s %12s\n", label.c_str(), micros(ours).c_str(),
                  micros(torch).c_str(), ratio, allocations.c_str());
    }
    const auto step = find(results, std::string("decoder_step/ours/") + size.name);
    if (step && step->counters.count("allocations_forward")) {
      std::printf("%-40s forward %.0f, backward %.0f, AdamW + zero-grad %.0f\n",
                  "  allocations per phase", step->counters.at("allocations_forward"),
                  step->counters.at("allocations_backward"),
                  step->counters.at("allocations_optimizer"));
    }
  }
  const DecoderSize& chapter40 = kDecoderSizes[1];
  const std::string base = std::string("/") + chapter40.name + "/threads:";
  const auto wall = [&](const std::string& name) {
    const auto measured = find(results, name);
    return measured ? measured->wall_seconds * 1e6 : 0.0;
  };
  std::printf("%-40s ours %.1f / %.1f us, libtorch %.1f / %.1f us (1 / 2 threads, wall)\n",
              "chapter40 step on threads", wall("decoder_threads/ours" + base + "1"),
              wall("decoder_threads/ours" + base + "2"), wall("decoder_threads/torch" + base + "1"),
              wall("decoder_threads/torch" + base + "2"));
#if defined(LLM_BENCH_TORCH)
  for (const DecoderSize& size : kDecoderSizes) {
    const std::vector<double> ours = decoder_losses_ours(size);
    const std::vector<double> torch = decoder_losses_torch(size);
    double largest = 0.0;
    std::printf("losses, %s, steps 1-%zu (ours / libtorch):", size.name, ours.size());
    for (std::size_t k = 0; k < ours.size(); ++k) {
      std::printf(" %.12f/%.12f", ours[k], torch[k]);
      largest = std::max(largest, std::abs(ours[k] - torch[k]));
    }
    std::printf("; largest difference %.3g\n", largest);
  }
#endif
}
#endif

void print_ratios(const std::map<std::string, Measured>& results) {
  std::printf(
      "\nRatios from this run (one thread; minimum CPU time of 5 repetitions; microkernel %s)\n",
      std::string(llm::matmul_detail::chosen_kernel().name).c_str());
  std::printf("CPU: %s (family %s, model %s); OpenBLAS core: %s\n",
              cpuinfo_field("model name").c_str(), cpuinfo_field("cpu family").c_str(),
              cpuinfo_field("model").c_str(), openblas_core().c_str());
  std::printf("%-26s %9s %9s %9s %9s %14s %8s\n", "matrix product (GFLOP/s)", "ours", "textbook",
              "OpenBLAS", "libtorch", "ours/OpenBLAS", "bits");
  for (std::int64_t n : kMatmulSizes) {
    const std::string suffix = "/" + std::to_string(n);
    const double flops =
        2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
    const auto ours = find(results, "matmul/ours" + suffix);
    const auto textbook = find(results, "matmul/textbook" + suffix);
    const auto blas = find(results, "matmul/openblas" + suffix);
    const auto torch = find(results, "matmul/torch" + suffix);
    std::string ratio = "             -";
    if (ours && blas) {
      char text[32];
      std::snprintf(text, sizeof text, "%13.1f%%", 100.0 * blas->seconds / ours->seconds);
      ratio = text;
    }
    std::string bits = "       -";
    if (ours && ours->counters.count("bit_identical")) {
      bits = ours->counters.at("bit_identical") == 1.0 ? "     yes" : "      NO";
    }
    std::printf("%-26s %9s %9s %9s %9s %14s %8s\n", (std::to_string(n) + "^3").c_str(),
                gflops(ours, flops).c_str(), gflops(textbook, flops).c_str(),
                gflops(blas, flops).c_str(), gflops(torch, flops).c_str(), ratio.c_str(),
                bits.c_str());
  }
  {
    const double flops = 2.0 * kBatch * kBatchedSize * kBatchedSize * kBatchedSize;
    const auto ours = find(results, "matmul_batched/ours");
    const auto blas = find(results, "matmul_batched/openblas");
    const auto torch = find(results, "matmul_batched/torch");
    std::string ratio = "             -";
    if (ours && blas) {
      char text[32];
      std::snprintf(text, sizeof text, "%13.1f%%", 100.0 * blas->seconds / ours->seconds);
      ratio = text;
    }
    std::printf(
        "%-26s %9s %9s %9s %9s %14s %8s\n", "[8,64,64]@[64,64]", gflops(ours, flops).c_str(),
        "        -", gflops(blas, flops).c_str(), gflops(torch, flops).c_str(), ratio.c_str(),
        ours && ours->counters.count("bit_identical") && ours->counters.at("bit_identical") == 1.0
            ? "     yes"
            : "       -");
  }
  print_kernel_rows(results);
  print_decode_rows(results);
  print_thread_rows(results);
  std::printf("\n%-40s %10s %10s %15s %12s\n", "forward + backward (microseconds)", "ours",
              "libtorch", "ours/libtorch", "allocations");
  const auto tape_row = [&](const std::string& label, const std::string& ours_name,
                            const std::string& torch_name) {
    const auto ours = find(results, ours_name);
    const auto torch = find(results, torch_name);
    std::string ratio = "              -";
    if (ours && torch) {
      char text[32];
      std::snprintf(text, sizeof text, "%14.2fx", ours->seconds / torch->seconds);
      ratio = text;
    }
    std::string allocations = "           -";
    if (ours && ours->counters.count("allocations")) {
      char text[32];
      std::snprintf(text, sizeof text, "%12.0f", ours->counters.at("allocations"));
      allocations = text;
    }
    std::printf("%-40s %10s %10s %15s %12s\n", label.c_str(), micros(ours).c_str(),
                micros(torch).c_str(), ratio.c_str(), allocations.c_str());
  };
  tape_row("chain, book size (B4 T8 V64 C32 H64)", "chain/ours/book", "chain/torch/book");
  tape_row("chain, wide (B4 T8 V512 C128 H256)", "chain/ours/wide", "chain/torch/wide");
  tape_row("attention probe (B4 T64 C128, 4 heads)", "attention/ours", "attention/torch");
  tape_row("scalar tape, 10^6 nodes", "scalar_tape/ours/1000000", "-");
#if defined(LLM_BENCH_DECODER)
  print_decoder_rows(results);
#endif
}

}  // namespace
}  // namespace bench

int main(int argc, char** argv) {
#if defined(LLM_BENCH_OPENBLAS)
  openblas_set_num_threads(1);
#endif
#if defined(LLM_BENCH_TORCH)
  bench::use_one_torch_thread();
#endif
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  bench::record_machine_context();
  bench::CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  bench::print_ratios(reporter.results());
  benchmark::Shutdown();
  return 0;
}
