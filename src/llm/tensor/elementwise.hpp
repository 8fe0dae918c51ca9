// Elementwise kernels: any function of one element (map_values) or of two
// broadcast operands (broadcast_map), and add and mul built on the latter.
// Operands may have any strides; results are row-major tensors.
// Taught in chapters 10 and 15.
#pragma once

#include <array>
#include <cstddef>
#include <utility>

#include "llm/tensor/broadcast.hpp"
#include "llm/tensor/kernel_output.hpp"
#include "llm/tensor/parallel.hpp"
#include "llm/tensor/strided_walk.hpp"
#include "llm/tensor/tensor.hpp"

namespace llm {

// region: broadcast-binary
/// function(left[c'], right[c'']) for every coordinate c of the broadcast
/// shape of the operands, where c' and c'' are c read through each operand's
/// broadcast layout (stride 0 along the axes it repeats): the binary kernel
/// behind add and mul, for any callable (a lambda may capture). It is called
/// exactly once per output element, never for an empty result: in row-major
/// order on one thread; with LLM_THREADS above 1 a long run of adjacent
/// operands is cut into pieces for several threads (parallel_pieces, chapter
/// 11), so `function` must compute its result from its arguments alone.
/// Operands may have any strides; the result is row-major.
/// Taught in chapter 10.
/// @throws TensorError IncompatibleBroadcast naming both operand shapes.
/// @throws TensorError ShapeOverflow if the broadcast element count overflows.
/// @throws TensorError AllocationFailed if memory cannot hold the result;
///         ConfigurationError as thread_count() for a run long enough to
///         split; whatever `function` throws propagates (from the first
///         piece that threw).
template <class Function>
Tensor broadcast_map(const TensorView& left, const TensorView& right, Function&& function) {
  const Shape shape = broadcast_shapes(left.shape(), right.shape());
  const TensorView a = left.broadcast_to(shape);
  const TensorView b = right.broadcast_to(shape);
  Tensor result = kernel_output(shape);
  double* out = result.mutable_values().data();
  const double* x = a.storage().data();
  const double* y = b.storage().data();
  const Strides dense = row_major_strides(shape);
  for_each_run<3>(shape, {dense, a.strides(), b.strides()}, {0, a.offset(), b.offset()},
                  [&](const std::array<std::size_t, 3>& at, const std::array<std::size_t, 3>& step,
                      std::size_t count) {
                    if (step[1] == 1 && step[2] == 1) {  // the common case: both contiguous
                      double* to = out + at[0];
                      const double* u = x + at[1];
                      const double* v = y + at[2];
                      parallel_pieces(count, kMinimumPiece,
                                      [&](std::size_t begin, std::size_t end) {
                                        for (std::size_t i = begin; i < end; ++i)
                                          to[i] = function(u[i], v[i]);
                                      });
                      return;
                    }
                    for (std::size_t i = 0; i < count; ++i) {
                      out[at[0] + i] = function(x[at[1] + i * step[1]], y[at[2] + i * step[2]]);
                    }
                  });
  return result;
}
// endregion: broadcast-binary

/// left + right, elementwise, in the broadcast shape of the two operands:
/// [2, 1, 3] + [4, 3] -> [2, 4, 3] (see broadcast_shapes).
/// @throws TensorError IncompatibleBroadcast naming both operand shapes.
/// @throws TensorError ShapeOverflow if the broadcast element count overflows.
/// @throws TensorError AllocationFailed if memory cannot hold the result.
Tensor add(const TensorView& left, const TensorView& right);

/// left * right, elementwise, in the broadcast shape of the two operands.
/// A rank-zero operand multiplies every element of the other.
/// @throws TensorError as add.
Tensor mul(const TensorView& left, const TensorView& right);

// region: map-values
/// `function` applied to every element of `source` (any strides): the result
/// has the same shape, row-major. `function` is any callable taking and
/// returning a double (a lambda may capture); it is called exactly once per
/// element and never for an empty tensor, in row-major order on one thread
/// (a long contiguous run may be split among threads, as in broadcast_map).
/// Taught in chapter 10.
/// @throws TensorError AllocationFailed if memory cannot hold the result;
///         ConfigurationError as broadcast_map; whatever `function` throws
///         propagates (from the first piece that threw).
template <class Function>
Tensor map_values(const TensorView& source, Function&& function) {
  Tensor result = kernel_output(source.shape());
  double* out = result.mutable_values().data();
  const double* in = source.storage().data();
  const Strides dense = row_major_strides(source.shape());
  for_each_run<2>(source.shape(), {dense, source.strides()}, {0, source.offset()},
                  [&](const std::array<std::size_t, 2>& at, const std::array<std::size_t, 2>& step,
                      std::size_t count) {
                    if (step[1] == 1) {  // contiguous: long runs are split among threads
                      double* to = out + at[0];
                      const double* from = in + at[1];
                      parallel_pieces(count, kMinimumPiece,
                                      [&](std::size_t begin, std::size_t end) {
                                        for (std::size_t i = begin; i < end; ++i)
                                          to[i] = function(from[i]);
                                      });
                      return;
                    }
                    for (std::size_t i = 0; i < count; ++i) {
                      out[at[0] + i] = function(in[at[1] + i * step[1]]);
                    }
                  });
  return result;
}
// endregion: map-values

}  // namespace llm
