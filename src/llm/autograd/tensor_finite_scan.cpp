// The finiteness scans of contiguous values (tensor_pass_support.hpp), in the
// widest vectors the CPU has. The tape scans every value it records, every
// contribution of the reverse pass and every parameter's new gradient sum, a
// few percent of a training step (docs/performance.md, "Splitting elementwise
// work"), so x86-64 CPUs with AVX2 or AVX-512F get their own copies of the
// loop, chosen once at the first call. The answer is a yes or no that does not
// depend on the copy.
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
// NaN exactly when some value is not finite. With kSums, the values are the
// sums values[i] + others[i]. Compiled into each caller, so a caller
// built for AVX-512F runs it in 64-byte vectors.
template <class Values, bool kSums>
[[gnu::always_inline]] inline bool any_non_finite(const double* values, const double* others,
                                                  std::size_t count) {
  constexpr std::size_t kPerVector = sizeof(Values) / sizeof(double);
  Values sum0{}, sum1{}, sum2{}, sum3{};
  std::size_t i = 0;
  for (; i + 4 * kPerVector <= count; i += 4 * kPerVector) {
    Values a, b, c, d;
    std::memcpy(&a, values + i, sizeof a);
    std::memcpy(&b, values + i + kPerVector, sizeof b);
    std::memcpy(&c, values + i + 2 * kPerVector, sizeof c);
    std::memcpy(&d, values + i + 3 * kPerVector, sizeof d);
    if constexpr (kSums) {
      Values e, f, g, h;
      std::memcpy(&e, others + i, sizeof e);
      std::memcpy(&f, others + i + kPerVector, sizeof f);
      std::memcpy(&g, others + i + 2 * kPerVector, sizeof g);
      std::memcpy(&h, others + i + 3 * kPerVector, sizeof h);
      a += e;
      b += f;
      c += g;
      d += h;
    }
    sum0 += a - a;
    sum1 += b - b;
    sum2 += c - c;
    sum3 += d - d;
  }
  const Values sums = (sum0 + sum1) + (sum2 + sum3);
  double total = 0.0;
  for (std::size_t lane = 0; lane < kPerVector; ++lane) total += sums[lane];
  for (; i < count; ++i) {
    const double x = kSums ? values[i] + others[i] : values[i];
    total += x - x;
  }
  return total != total;  // only a NaN is unequal to itself
}

// The scan over `values`, or over values[i] + others[i] when `others` is set.
template <class Values>
[[gnu::always_inline]] inline bool scan_with(const double* values, const double* others,
                                             std::size_t count) {
  return others == nullptr ? any_non_finite<Values, false>(values, nullptr, count)
                           : any_non_finite<Values, true>(values, others, count);
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) bool scan_avx512(const double* values, const double* others,
                                                    std::size_t count) {
  return scan_with<EightValues>(values, others, count);
}
__attribute__((target("avx2"))) bool scan_avx2(const double* values, const double* others,
                                               std::size_t count) {
  return scan_with<FourValues>(values, others, count);
}
#endif

// Every other CPU: 16-byte vectors, which x86-64's SSE2 and ARM's NEON have.
bool scan_baseline(const double* values, const double* others, std::size_t count) {
  typedef double TwoValues __attribute__((vector_size(16)));
  return scan_with<TwoValues>(values, others, count);
}

using Scan = bool (*)(const double*, const double*, std::size_t);

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
  return scan(values, nullptr, count);
}

bool contiguous_sums_have_non_finite(const double* left, const double* right, std::size_t count) {
  static const Scan scan = chosen_scan();
  return scan(left, right, count);
}

}  // namespace llm::tape_detail
