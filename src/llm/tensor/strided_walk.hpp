// The one stride walker every kernel uses: visit the elements of a shape in
// row-major order while keeping one storage offset per operand.
//
// A kernel over N operands (outputs and inputs) that share a shape hands the
// walker each operand's strides and base offset. The walker first merges
// axes that every operand steps through as one run (adjacent axes i, i+1 with
// strides[i] == strides[i+1] * extent[i+1] for all operands) and drops axes of
// extent 1; then it calls `run(offsets, steps, count)` once per innermost run:
// the run's first offset and step for each operand and its length. Between
// runs it advances the offsets like an odometer: one addition per operand per
// carried axis, no division and no allocation (ranks up to kInlineRank). A
// same-shape contiguous operation becomes one run over every element.
// Taught in chapter 09; every kernel of chapters 10-16 walks its operands
// through it.
#pragma once

#include <array>
#include <cstddef>
#include <span>

#include "llm/tensor/shape.hpp"

namespace llm {

// region: strided-walk
/// Calls `run(offsets, steps, count)` for every innermost run of `shape` in
/// row-major order, where `offsets[k]` is operand k's storage offset of the
/// run's first element, `steps[k]` its stride along the run and `count` the
/// run's length (at least 1). `strides[k]` lists operand k's stride for each
/// axis of `shape` (0 repeats an element) and `bases[k]` its offset of
/// coordinate zero. Calls nothing when `shape` has a zero extent; calls once
/// with count 1 for rank zero.
/// Precondition: every strides[k].size() == shape.size().
template <std::size_t N, class Run>
void for_each_run(const Shape& shape, const std::array<std::span<const std::size_t>, N>& strides,
                  std::array<std::size_t, N> bases, Run&& run) {
  // Merge the axes the operands step through as one run; drop extent-1 axes.
  Shape extents;
  std::array<Strides, N> steps_per_axis;
  for (std::size_t axis = 0; axis < shape.size(); ++axis) {
    const std::size_t extent = shape[axis];
    if (extent == 0) return;  // no elements
    if (extent == 1) continue;
    bool mergeable = !extents.empty();
    for (std::size_t k = 0; k < N && mergeable; ++k) {
      mergeable = steps_per_axis[k].back() == strides[k][axis] * extent;
    }
    if (mergeable) {
      extents.back() *= extent;
      for (std::size_t k = 0; k < N; ++k) steps_per_axis[k].back() = strides[k][axis];
    } else {
      extents.push_back(extent);
      for (std::size_t k = 0; k < N; ++k) steps_per_axis[k].push_back(strides[k][axis]);
    }
  }
  std::array<std::size_t, N> inner_steps{};
  if (extents.empty()) {  // rank zero, or every extent 1: one element
    run(bases, inner_steps, std::size_t{1});
    return;
  }
  const std::size_t rank = extents.size();
  for (std::size_t k = 0; k < N; ++k) inner_steps[k] = steps_per_axis[k][rank - 1];
  const std::size_t inner_count = extents[rank - 1];

  Shape counter(rank, 0);  // coordinate of the current run along the outer axes
  std::array<std::size_t, N> offsets = bases;
  while (true) {
    run(offsets, inner_steps, inner_count);
    // Odometer: advance the last outer axis, carrying into the ones before it.
    std::size_t axis = rank - 1;
    while (true) {
      if (axis == 0) return;
      --axis;
      for (std::size_t k = 0; k < N; ++k) offsets[k] += steps_per_axis[k][axis];
      if (++counter[axis] < extents[axis]) break;
      counter[axis] = 0;
      for (std::size_t k = 0; k < N; ++k) offsets[k] -= steps_per_axis[k][axis] * extents[axis];
    }
  }
}
// endregion: strided-walk

/// Calls `visit(offsets)` for every element of `shape` in row-major order,
/// with one storage offset per operand; see for_each_run.
template <std::size_t N, class Visit>
void for_each_offset(const Shape& shape, const std::array<std::span<const std::size_t>, N>& strides,
                     std::array<std::size_t, N> bases, Visit&& visit) {
  for_each_run<N>(shape, strides, bases,
                  [&](std::array<std::size_t, N> offsets, const std::array<std::size_t, N>& steps,
                      std::size_t count) {
                    for (std::size_t i = 0; i < count; ++i) {
                      visit(static_cast<const std::array<std::size_t, N>&>(offsets));
                      for (std::size_t k = 0; k < N; ++k) offsets[k] += steps[k];
                    }
                  });
}

}  // namespace llm
