// Elementwise arithmetic: each output element combines the operand elements
// that broadcasting places at its coordinate.
#include "llm/tensor/elementwise.hpp"

#include "llm/tensor/broadcast.hpp"
#include "llm/tensor/kernel_output.hpp"
#include "llm/tensor/strided_walk.hpp"

namespace llm {

namespace {

// region: broadcast-binary
// result[c] = combine(left[c'], right[c'']) where c' and c'' are c read through
// each operand's broadcast layout (stride 0 along the axes it repeats).
template <class Combine>
Tensor broadcast_binary(const TensorView& left, const TensorView& right, Combine combine) {
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
                      for (std::size_t i = 0; i < count; ++i) {
                        out[at[0] + i] = combine(x[at[1] + i], y[at[2] + i]);
                      }
                      return;
                    }
                    for (std::size_t i = 0; i < count; ++i) {
                      out[at[0] + i] = combine(x[at[1] + i * step[1]], y[at[2] + i * step[2]]);
                    }
                  });
  return result;
}
// endregion: broadcast-binary

}  // namespace

Tensor add(const TensorView& left, const TensorView& right) {
  return broadcast_binary(left, right, [](double a, double b) { return a + b; });
}

Tensor mul(const TensorView& left, const TensorView& right) {
  return broadcast_binary(left, right, [](double a, double b) { return a * b; });
}

Tensor map_values(const TensorView& source, double (*function)(double)) {
  Tensor result = kernel_output(source.shape());
  double* out = result.mutable_values().data();
  const double* in = source.storage().data();
  const Strides dense = row_major_strides(source.shape());
  for_each_run<2>(source.shape(), {dense, source.strides()}, {0, source.offset()},
                  [&](const std::array<std::size_t, 2>& at, const std::array<std::size_t, 2>& step,
                      std::size_t count) {
                    for (std::size_t i = 0; i < count; ++i) {
                      out[at[0] + i] = function(in[at[1] + i * step[1]]);
                    }
                  });
  return result;
}

}  // namespace llm
