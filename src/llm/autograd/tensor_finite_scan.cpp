// The finiteness scan of contiguous values (tensor_pass_support.hpp), in the
// widest vectors the CPU has. The tape scans every value it records and
// every contribution of the reverse pass, about a tenth of a training step
// (docs/performance.md); read 16 bytes at a time the scan keeps to about half
// of what the core can load, so x86-64 CPUs with AVX2 or AVX-512F get their
// own copies of the loop, chosen once at the first call. The answer is a yes
// or no that does not depend on the copy.
#include <cstddef>
#include <cstring>

#include "llm/autograd/tensor_pass_support.hpp"

namespace llm::tape_detail {
namespace {

typedef double FourValues __attribute__((vector_size(32)));
typedef double EightValues __attribute__((vector_size(64)));

// Whether any value is a NaN or an infinity, in vectors of type `Values`:
// x - x is +0.0 for a finite x and NaN otherwise, and a NaN survives every
// sum, so four running sums of x - x (four, to keep the adder busy) end as a
// NaN exactly when some value is not finite. Compiled into each caller, so a
// caller built for AVX-512F runs it in 64-byte vectors.
template <class Values>
[[gnu::always_inline]] inline bool any_non_finite(const double* values, std::size_t count) {
  constexpr std::size_t kPerVector = sizeof(Values) / sizeof(double);
  Values sum0{}, sum1{}, sum2{}, sum3{};
  std::size_t i = 0;
  for (; i + 4 * kPerVector <= count; i += 4 * kPerVector) {
    Values a, b, c, d;
    std::memcpy(&a, values + i, sizeof a);
    std::memcpy(&b, values + i + kPerVector, sizeof b);
    std::memcpy(&c, values + i + 2 * kPerVector, sizeof c);
    std::memcpy(&d, values + i + 3 * kPerVector, sizeof d);
    sum0 += a - a;
    sum1 += b - b;
    sum2 += c - c;
    sum3 += d - d;
  }
  const Values sums = (sum0 + sum1) + (sum2 + sum3);
  double total = 0.0;
  for (std::size_t lane = 0; lane < kPerVector; ++lane) total += sums[lane];
  for (; i < count; ++i) total += values[i] - values[i];
  return total != total;  // only a NaN is unequal to itself
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) bool scan_avx512(const double* values, std::size_t count) {
  return any_non_finite<EightValues>(values, count);
}
__attribute__((target("avx2"))) bool scan_avx2(const double* values, std::size_t count) {
  return any_non_finite<FourValues>(values, count);
}
#endif

// Every other CPU: the strided scan's own loop, which reads 16 bytes at a time.
bool scan_baseline(const double* values, std::size_t count) {
  return run_has_non_finite(values, 1, count);
}

using Scan = bool (*)(const double*, std::size_t);

Scan chosen_scan() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return scan_avx512;
  if (__builtin_cpu_supports("avx2")) return scan_avx2;
#endif
  return scan_baseline;
}

}  // namespace

bool contiguous_run_has_non_finite(const double* values, std::size_t count) {
  static const Scan scan = chosen_scan();
  return scan(values, count);
}

}  // namespace llm::tape_detail
