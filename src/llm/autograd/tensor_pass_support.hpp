// Element checks the tensor tape's sources share (internal to the tape).
#pragma once

#include <cmath>
#include <cstddef>
#include <optional>

#include "llm/tensor/strided_walk.hpp"
#include "llm/tensor/tensor.hpp"

namespace llm::tape_detail {

/// Row-major index of the first NaN or infinity in `view`, if any.
inline std::optional<std::size_t> first_non_finite(const TensorView& view) {
  std::optional<std::size_t> found;
  std::size_t index = 0;
  const double* values = view.storage().data();
  for_each_run<1>(view.shape(), {view.strides()}, {view.offset()},
                  [&](const std::array<std::size_t, 1>& at, const std::array<std::size_t, 1>& step,
                      std::size_t count) {
                    if (found) return;
                    for (std::size_t i = 0; i < count; ++i) {
                      if (!std::isfinite(values[at[0] + i * step[0]])) {
                        found = index + i;
                        return;
                      }
                    }
                    index += count;
                  });
  return found;
}

/// The element at row-major index `index` of `view`.
/// Precondition: index < view.size().
inline double element_at(const TensorView& view, std::size_t index) {
  const std::vector<std::size_t> coordinate = coordinate_from_offset(view.shape(), index);
  return view.at(coordinate);
}

}  // namespace llm::tape_detail
