// Element checks the tensor tape's sources share (internal to the tape).
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

#include "llm/tensor/broadcast.hpp"
#include "llm/tensor/shared_tensor.hpp"
#include "llm/tensor/strided_walk.hpp"
#include "llm/tensor/tensor.hpp"

/// Element checks shared by the tensor tape's sources (internal to the tape).
namespace llm::tape_detail {

/// Whether a run of `count` values `step` apart holds a NaN or an infinity:
/// one branch-free pass (an exponent of all ones marks both), two values per
/// 16-byte vector when the run is contiguous, so the common all-finite case
/// costs a single cheap sweep.
inline bool run_has_non_finite(const double* values, std::size_t step, std::size_t count) {
  constexpr std::uint64_t kExponent = 0x7FF0000000000000ULL;
  std::uint64_t found = 0;
  std::size_t i = 0;
  if (step == 1) {
    typedef std::uint64_t Pair __attribute__((vector_size(16)));
    const Pair exponent = {kExponent, kExponent};
    Pair pairs = {0, 0};
    for (; i + 4 <= count; i += 4) {
      Pair first, second;
      std::memcpy(&first, values + i, sizeof first);
      std::memcpy(&second, values + i + 2, sizeof second);
      pairs |= ((first & exponent) == exponent) | ((second & exponent) == exponent);
    }
    found = pairs[0] | pairs[1];
  }
  for (; i < count; ++i) {
    found |= static_cast<std::uint64_t>(
        (std::bit_cast<std::uint64_t>(values[i * step]) & kExponent) == kExponent);
  }
  return found != 0;
}

/// Row-major index of the first NaN or infinity in `view`, if any.
inline std::optional<std::size_t> first_non_finite(const TensorView& view) {
  std::optional<std::size_t> found;
  std::size_t index = 0;
  const double* values = view.storage().data();
  for_each_run<1>(view.shape(), {view.strides()}, {view.offset()},
                  [&](const std::array<std::size_t, 1>& at, const std::array<std::size_t, 1>& step,
                      std::size_t count) {
                    if (found) return;
                    const double* run = values + at[0];
                    if (run_has_non_finite(run, step[0], count)) {
                      for (std::size_t i = 0; i < count; ++i) {
                        if (!std::isfinite(run[i * step[0]])) {
                          found = index + i;
                          return;
                        }
                      }
                    }
                    index += count;
                  });
  return found;
}

/// The upstream of a broadcasting operation summed to its operand's `shape`:
/// the upstream itself (no copy) when the operand was not broadcast.
inline SharedTensor summed_to(const SharedTensor& upstream, const Shape& shape) {
  if (upstream.shape() == shape) return upstream;
  return sum_to_shape(upstream, shape);
}

/// The element at row-major index `index` of `view`.
/// Precondition: index < view.size().
inline double element_at(const TensorView& view, std::size_t index) {
  const std::vector<std::size_t> coordinate = coordinate_from_offset(view.shape(), index);
  return view.at(coordinate);
}

}  // namespace llm::tape_detail
