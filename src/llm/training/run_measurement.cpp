// Clocks, load and CPU name for the chapter-40 run logs.
#include "llm/training/run_measurement.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <vector>

#include "llm/tensor/matmul.hpp"
#include "llm/tensor/matmul_kernel.hpp"  // the kernel's name, for the log

namespace llm {

namespace {

double seconds_on(clockid_t clock) noexcept {
  timespec now{};
  clock_gettime(clock, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

}  // namespace

RunClocks RunClocks::now() noexcept {
  return {seconds_on(CLOCK_MONOTONIC), seconds_on(CLOCK_THREAD_CPUTIME_ID),
          seconds_on(CLOCK_PROCESS_CPUTIME_ID)};
}

MatmulRate measure_matmul(std::size_t rows, std::size_t depth, std::size_t columns,
                          double seconds) {
  auto filled = [](std::size_t r, std::size_t c, double scale) {
    std::vector<double> values(r * c);
    for (std::size_t i = 0; i < values.size(); ++i) {
      values[i] = scale * static_cast<double>(i % 17) - 1.0;
    }
    return Tensor(Shape{r, c}, std::move(values));
  };
  const Tensor left = filled(rows, depth, 0.125);
  const Tensor right = filled(depth, columns, 0.0625);
  double checksum = matmul(left, right).values()[0];  // warm-up, untimed
  MatmulRate rate{.rows = rows, .depth = depth, .columns = columns, .kernel = {}};
  const RunClocks start = RunClocks::now();
  RunClocks elapsed{};
  while (elapsed.thread_cpu < seconds) {
    checksum += matmul(left, right).values()[0];
    ++rate.repetitions;
    elapsed = RunClocks::now() - start;
  }
  const double flops = 2.0 * static_cast<double>(rows * depth * columns * rate.repetitions);
  rate.gflops_thread_cpu = flops / elapsed.thread_cpu * 1e-9;
  rate.gflops_wall = flops / elapsed.wall * 1e-9;
  rate.kernel = std::string(matmul_detail::chosen_kernel().name);
  if (!std::isfinite(checksum)) rate.kernel += " (non-finite product)";  // keeps the products
  return rate;
}

std::optional<std::array<double, 3>> load_average() noexcept {
  std::array<double, 3> loads{};
  if (getloadavg(loads.data(), 3) != 3) return std::nullopt;
  return loads;
}

std::string cpuinfo_field(const std::string& key) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    name.erase(name.find_last_not_of(" \t") + 1);
    if (name == key) return colon + 2 <= line.size() ? line.substr(colon + 2) : std::string();
  }
  return "unknown";
}

std::string duration_text(double seconds) {
  const long total = std::lround(seconds < 0 ? 0.0 : seconds);
  char text[32];
  if (total >= 3600) {
    std::snprintf(text, sizeof text, "%ldh%02ldm", total / 3600, total / 60 % 60);
  } else if (total >= 60) {
    std::snprintf(text, sizeof text, "%ldm%02lds", total / 60, total % 60);
  } else {
    std::snprintf(text, sizeof text, "%lds", total);
  }
  return text;
}

}  // namespace llm
