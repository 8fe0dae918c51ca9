// The most a core does with separate 512-bit multiplies and adds
// (docs/performance.md, "Chapter 40's step on an Intel Xeon"): 16 independent
// sums, each step one multiply and one add per sum, as the 8 x 16 microkernel
// does, with the multipliers read from a 64-value table in L1 and nothing else
// from memory. Prints GFLOP/s of thread CPU time.
//
//   g++ -O3 -mavx512f -ffp-contract=off docs/bench/port_limit_probe.cpp -o build/port_limit_probe
#include <cstdio>
#include <ctime>

typedef double Vector __attribute__((vector_size(64)));

static double thread_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

int main() {
  Vector sums[16] = {};
  const Vector column0 = {1e-9, 2e-9, 3e-9, 4e-9, 5e-9, 6e-9, 7e-9, 8e-9};
  const Vector column1 = column0 * 0.5;
  double table[64];
  for (int i = 0; i < 64; ++i) table[i] = 1.0 + i * 1e-3;
  const long steps = 100000000;
  const double start = thread_seconds();
  for (long p = 0; p < steps; ++p) {
    const double* row_values = table + (p & 7) * 8;
#pragma GCC unroll 8
    for (int r = 0; r < 8; ++r) {
      sums[2 * r] = sums[2 * r] + row_values[r] * column0;
      sums[2 * r + 1] = sums[2 * r + 1] + row_values[r] * column1;
    }
  }
  const double seconds = thread_seconds() - start;
  double checksum = 0.0;
  for (const Vector& sum : sums) {
    for (int lane = 0; lane < 8; ++lane) checksum += sum[lane];
  }
  std::printf("%.2f GFLOP/s (16 x (vmulpd + vaddpd) per step, 512-bit, thread CPU); checksum %g\n",
              static_cast<double>(steps) * 16.0 * 16.0 / seconds * 1e-9, checksum);
  return 0;
}
