// Element checks the tensor tape's sources share (internal to the tape).
#pragma once

#include <atomic>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

#include "llm/tensor/broadcast.hpp"
#include "llm/tensor/parallel.hpp"
#include "llm/tensor/shared_tensor.hpp"
#include "llm/tensor/strided_walk.hpp"
#include "llm/tensor/tensor.hpp"

/// Element checks shared by the tensor tape's sources (internal to the tape).
namespace llm::tape_detail {

/// Whether a run of `count` values `step` apart holds a NaN or an infinity:
/// one branch-free pass (an exponent of all ones marks both). A contiguous run
/// is read as 32-bit lanes, eight values per step: the lane holding each
/// value's sign and exponent is masked and compared with the all-ones
/// exponent, which x86-64's baseline SSE2 does in one instruction per two
/// values (a 64-bit lane compare it would have to split into scalar code).
inline bool run_has_non_finite(const double* values, std::size_t step, std::size_t count) {
  constexpr std::uint64_t kExponent = 0x7FF0000000000000ULL;
  std::uint64_t found = 0;
  std::size_t i = 0;
  if (step == 1) {
    typedef std::uint32_t Lanes __attribute__((vector_size(16)));  // two doubles
    constexpr std::uint32_t kHigh = 0x7FF00000U;  // the exponent, in a double's upper word
    constexpr bool kLittle = std::endian::native == std::endian::little;
    // Upper words are compared with the exponent; lower words with a pattern
    // the mask can never produce, so they never match.
    const Lanes mask = kLittle ? Lanes{0, kHigh, 0, kHigh} : Lanes{kHigh, 0, kHigh, 0};
    const Lanes target = kLittle ? Lanes{~0U, kHigh, ~0U, kHigh} : Lanes{kHigh, ~0U, kHigh, ~0U};
    Lanes any = {0, 0, 0, 0};
    for (; i + 8 <= count; i += 8) {
      Lanes a, b, c, d;
      std::memcpy(&a, values + i, sizeof a);
      std::memcpy(&b, values + i + 2, sizeof b);
      std::memcpy(&c, values + i + 4, sizeof c);
      std::memcpy(&d, values + i + 6, sizeof d);
      any |= ((a & mask) == target) | ((b & mask) == target) | ((c & mask) == target) |
             ((d & mask) == target);
    }
    found = any[0] | any[1] | any[2] | any[3];
  }
  for (; i < count; ++i) {
    found |= static_cast<std::uint64_t>(
        (std::bit_cast<std::uint64_t>(values[i * step]) & kExponent) == kExponent);
  }
  return found != 0;
}

/// run_has_non_finite for `count` adjacent values, in the widest vectors
/// this CPU has (tensor_finite_scan.cpp).
bool contiguous_run_has_non_finite(const double* values, std::size_t count);

/// Whether some left[i] + right[i], i < count, is a NaN or an infinity (the
/// same test, on the sums; tensor_finite_scan.cpp).
bool contiguous_sums_have_non_finite(const double* left, const double* right, std::size_t count);

/// Index of the first NaN or infinity among `count` contiguous values, if
/// any. A long run is scanned in pieces on several threads (parallel_pieces);
/// each piece that holds one finds its first, and the smallest wins, so the
/// answer does not depend on the thread count.
inline std::optional<std::size_t> first_non_finite_in_run(const double* values, std::size_t count) {
  std::atomic<std::size_t> first{count};
  parallel_pieces(count, kMinimumPiece, [&](std::size_t begin, std::size_t end) {
    if (!contiguous_run_has_non_finite(values + begin, end - begin)) return;
    std::size_t i = begin;
    while (std::isfinite(values[i])) ++i;
    keep_smallest(first, i);
  });
  const std::size_t index = first.load(std::memory_order_relaxed);
  if (index == count) return std::nullopt;
  return index;
}

/// Row-major index of the first NaN or infinity in `view`, if any.
inline std::optional<std::size_t> first_non_finite(const TensorView& view) {
  if (view.is_contiguous()) {
    return first_non_finite_in_run(view.storage().data() + view.offset(), view.size());
  }
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

/// Whether every element of `value` lies in the storage range of `checked`, a
/// contiguous tensor whose elements are all known to be finite (a node's
/// value, or an adjoint of the reverse pass): then `value`'s elements are
/// finite too, and scanning them again would repeat a check. This is what a
/// view of an operand is (a reshape, transpose, permutation, slice or
/// broadcast of it) and what a VJP returns when it passes its upstream on.
/// A value that only shares the storage, or a `checked` that is itself a
/// strided view (whose storage range may hold values it never covered), is
/// scanned as usual.
inline bool within_checked_range(const SharedTensor& value, const SharedTensor& checked) {
  if (!value.shares_storage_with(checked) || !checked.is_contiguous()) return false;
  if (value.size() == 0) return true;
  std::size_t last = value.offset();  // strides are non-negative: the largest offset
  for (std::size_t axis = 0; axis < value.rank(); ++axis) {
    last += (value.shape()[axis] - 1) * value.strides()[axis];
  }
  return value.offset() >= checked.offset() && last < checked.offset() + checked.size();
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
