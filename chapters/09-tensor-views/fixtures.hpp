// The worked example of chapter 9: one owned [2, 3] tensor, the eager
// transpose that copies it, and the helpers that list what a view reads
// (its storage offsets, its values and the runs the stride walker hands a
// kernel). The demo prints this evidence and writes it into its trace.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "llm/tensor/tensor.hpp"
#include "llm/tensor/tensor_error.hpp"

namespace ch09 {

/// The owner of the chapter: shape [2, 3], row-major strides [3, 1],
/// storage [10, 11, 12, 20, 21, 22] (row r, column c holds 10 (r + 1) + c).
llm::Tensor worked_matrix();

/// The eager transpose: a new [N, M] tensor whose element [c, r] is
/// `source[r, c]`, copied one element at a time.
/// @throws std::invalid_argument if `source` is not of rank 2.
llm::Tensor copying_transpose(const llm::Tensor& source);

/// The storage offset of every element of `view`, in row-major order of its
/// coordinates (the order a kernel reads it in).
std::vector<std::size_t> logical_offsets(const llm::TensorView& view);

/// The values of `view` in row-major order of its coordinates.
std::vector<double> logical_values(const llm::TensorView& view);

/// One innermost run of the stride walker: `count` elements from storage
/// offset `first`, `step` apart.
struct WalkerRun {
  std::size_t first;
  std::size_t step;
  std::size_t count;
};

/// The runs llm::for_each_run visits for `view` alone.
std::vector<WalkerRun> walker_runs(const llm::TensorView& view);

/// The reference edition's sentence for a rejected reshape or slice, built
/// from the error's typed evidence: `cannot reshape 6 elements into 8
/// elements`. Our library's own what() names the shapes instead.
/// @throws std::invalid_argument for a kind the chapter does not print.
std::string reference_wording(const llm::TensorError& error);

}  // namespace ch09
