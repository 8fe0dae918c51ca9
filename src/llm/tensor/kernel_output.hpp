// The output buffer of a kernel that writes every element (internal to the
// kernels of src/llm/tensor; not part of the public API).
#pragma once

#include <utility>
#include <vector>

#include "llm/tensor/tensor.hpp"
#include "llm/tensor/value_pool.hpp"

namespace llm {

/// A tensor of `shape` whose values are unspecified until the caller writes
/// them: a buffer reused from this thread's cache (value_pool.hpp) is not
/// zeroed first, which saves a pass over memory per kernel call. Only for a
/// kernel that writes every element before anything reads one (matmul,
/// elementwise, reductions, materialize, the probability outputs); anything
/// else uses Tensor::zeros.
/// @throws TensorError ShapeOverflow or AllocationFailed as Tensor::zeros.
inline Tensor kernel_output(Shape shape) {
  std::vector<double> cached = value_pool::take_for_overwrite(element_count(shape));
  if (cached.empty()) return Tensor::zeros(std::move(shape));
  return Tensor(std::move(shape), std::move(cached));
}

}  // namespace llm
