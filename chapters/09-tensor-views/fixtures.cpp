// The chapter 9 fixture: the worked owner, the copying transpose it is
// compared with, and what a view reads, listed through the stride walker.
#include "fixtures.hpp"

#include <array>
#include <span>
#include <stdexcept>

#include "llm/tensor/layout.hpp"
#include "llm/tensor/strided_walk.hpp"

namespace ch09 {

// region: worked-owner
llm::Tensor worked_matrix() {
  return llm::Tensor({2, 3}, {10, 11, 12, 20, 21, 22});
}
// endregion: worked-owner

// region: eager-copying-transpose
llm::Tensor copying_transpose(const llm::Tensor& source) {
  if (source.rank() != 2) throw std::invalid_argument("copying_transpose needs a matrix");
  const std::size_t rows = source.shape()[0];
  const std::size_t columns = source.shape()[1];
  llm::Tensor copy = llm::Tensor::zeros({columns, rows});  // a new block of M * N doubles
  for (std::size_t c = 0; c < columns; ++c) {
    for (std::size_t r = 0; r < rows; ++r) {
      const std::array<std::size_t, 2> from = {r, c};
      const std::array<std::size_t, 2> to = {c, r};
      copy.set(to, source.at(from));  // one read and one write per element
    }
  }
  return copy;
}
// endregion: eager-copying-transpose

// region: logical-offsets
std::vector<std::size_t> logical_offsets(const llm::TensorView& view) {
  std::vector<std::size_t> offsets;
  offsets.reserve(view.size());
  llm::for_each_offset<1>(view.shape(), {view.strides()}, {view.offset()},
                          [&](const std::array<std::size_t, 1>& at) { offsets.push_back(at[0]); });
  return offsets;
}
// endregion: logical-offsets

std::vector<double> logical_values(const llm::TensorView& view) {
  std::vector<double> values;
  values.reserve(view.size());
  for (std::size_t offset : logical_offsets(view)) values.push_back(view.storage()[offset]);
  return values;
}

std::vector<WalkerRun> walker_runs(const llm::TensorView& view) {
  std::vector<WalkerRun> runs;
  llm::for_each_run<1>(view.shape(), {view.strides()}, {view.offset()},
                       [&](const std::array<std::size_t, 1>& at,
                           const std::array<std::size_t, 1>& step, std::size_t count) {
                         runs.push_back({at[0], step[0], count});
                       });
  return runs;
}

// region: reference-wording
std::string reference_wording(const llm::TensorError& error) {
  switch (error.kind()) {
    case llm::TensorErrorKind::ReshapeCountMismatch:
      return "cannot reshape " + std::to_string(llm::element_count(error.shape())) +
             " elements into " + std::to_string(llm::element_count(error.other_shape())) +
             " elements";
    case llm::TensorErrorKind::NonContiguousReshape:
      return "cannot reshape a non-row-major-contiguous view without materializing it";
    case llm::TensorErrorKind::InvalidSlice:
      if (error.actual() > error.expected()) {  // the end is past the extent
        return "slice end " + std::to_string(error.actual()) + " is out of bounds for axis " +
               std::to_string(error.axis()) + " with size " + std::to_string(error.expected());
      }
      break;
    default:
      break;
  }
  throw std::invalid_argument("chapter 9 prints no sentence for the error: " +
                              std::string(error.what()));
}
// endregion: reference-wording

}  // namespace ch09
