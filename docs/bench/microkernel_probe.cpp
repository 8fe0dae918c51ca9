// The 8 x 16 AVX-512 microkernel alone (docs/performance.md, "Chapter 40's
// step on an Intel Xeon"): depth 128, so the packed panels (8 KiB of A,
// 16 KiB of B) stay in L1 and nothing is packed; the ceiling of llm::matmul
// on a CPU that runs this kernel. Prints GFLOP/s of thread CPU time.
//
//   g++ -std=c++20 -O2 docs/bench/microkernel_probe.cpp build/libllm_tensor.a \
//     -o build/microkernel_probe
#include <cstdio>
#include <ctime>
#include <vector>

namespace llm::matmul_detail {
void microkernel_avx512_8x16(unsigned long depth, const double* a, const double* b,
                             unsigned long b_row_stride, double* c, unsigned long c_row_stride,
                             bool accumulate);
}  // namespace llm::matmul_detail

static double thread_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

int main() {
  const unsigned long depth = 128;
  std::vector<double> a(8 * depth), b(16 * depth), c(8 * 16);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = 1.0 + 1e-3 * static_cast<double>(i % 7);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = 1e-6 * static_cast<double>(i % 5);
  const long calls = 2000000;
  const double start = thread_seconds();
  for (long k = 0; k < calls; ++k) {
    llm::matmul_detail::microkernel_avx512_8x16(depth, a.data(), b.data(), 16, c.data(), 16, k > 0);
  }
  const double seconds = thread_seconds() - start;
  std::printf("%.2f GFLOP/s (8 x 16 microkernel, depth %lu, panels in L1, thread CPU); c[0] %g\n",
              2.0 * 8 * 16 * static_cast<double>(depth * calls) / seconds * 1e-9, depth, c[0]);
  return 0;
}
