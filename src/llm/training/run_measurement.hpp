// What a training run measures about itself and its machine (chapter 40):
// three clocks, the load average, the CPU's name, and durations as a person
// reads them. `make train` and `make train-anchor` both record these, so
// their logs compare like with like.
//
// On a machine shared with other jobs, wall time includes the time a thread
// waited for a core; CPU time counts only the work. A run reports both: wall
// time is what a reader waits, CPU time is what a comparison of two programs
// should use when the load changes between them.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>

namespace llm {

// region: run-clocks
/// Seconds on three clocks: wall (CLOCK_MONOTONIC), the calling thread's CPU
/// time (CLOCK_THREAD_CPUTIME_ID) and the whole process's CPU time, every
/// thread included (CLOCK_PROCESS_CPUTIME_ID).
struct RunClocks {
  double wall = 0.0;         ///< elapsed real time
  double thread_cpu = 0.0;   ///< CPU time of the calling thread
  double process_cpu = 0.0;  ///< CPU time of every thread of the process

  /// The three clocks now.
  static RunClocks now() noexcept;
  /// Elapsed time on each clock since `start`.
  RunClocks operator-(const RunClocks& start) const noexcept {
    return {wall - start.wall, thread_cpu - start.thread_cpu, process_cpu - start.process_cpu};
  }
  /// Adds `more` to each clock.
  RunClocks& operator+=(const RunClocks& more) noexcept {
    wall += more.wall;
    thread_cpu += more.thread_cpu;
    process_cpu += more.process_cpu;
    return *this;
  }
};
// endregion: run-clocks

// region: matmul-rate
/// How fast llm::matmul ran on one shape, measured in this process.
struct MatmulRate {
  std::size_t rows = 0;            ///< the left factor's rows
  std::size_t depth = 0;           ///< the shared dimension
  std::size_t columns = 0;         ///< the right factor's columns
  std::size_t repetitions = 0;     ///< products timed
  double gflops_thread_cpu = 0.0;  ///< 2 rows depth columns per product / thread CPU time
  double gflops_wall = 0.0;        ///< the same over wall time
  std::string kernel;              ///< the microkernel llm::matmul chose (avx512, avx2, generic)
};

/// Times llm::matmul on [rows, depth] x [depth, columns] (deterministic
/// values) until `seconds` of thread CPU time have passed, after one
/// untimed product that warms the caches: the peak a training step's
/// throughput is compared with (chapter 40).
MatmulRate measure_matmul(std::size_t rows, std::size_t depth, std::size_t columns, double seconds);
// endregion: matmul-rate

/// The 1-, 5- and 15-minute load averages (getloadavg), or nothing when the
/// system does not report them.
std::optional<std::array<double, 3>> load_average() noexcept;

/// The value of the first /proc/cpuinfo line whose key is exactly `key`
/// (`model name`, `cpu family`, `model`), or `unknown`.
std::string cpuinfo_field(const std::string& key);

/// A duration as `2h05m`, `6m30s` or `42s` (rounded to the second).
std::string duration_text(double seconds);

}  // namespace llm
