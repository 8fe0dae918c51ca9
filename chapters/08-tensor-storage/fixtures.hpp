// Chapter 8's worked tensors: the [2, 2, 3] tensor every example reads, the
// coordinates the demo looks up, writes and rejects, and seven zero-filled
// stand-ins shaped like the matrices of two language models.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "llm/tensor/tensor.hpp"

namespace ch08 {

/// A tensor with the name the demo prints for it.
struct NamedTensor {
  std::string label;
  llm::Tensor tensor;
};

/// The coordinate whose offset and value the chapter predicts: offset 8, value 32.
inline const std::vector<std::size_t> kSelectedCoordinate = {1, 0, 2};
/// The coordinate the demo overwrites with 99 (offset 4).
inline const std::vector<std::size_t> kWrittenCoordinate = {0, 1, 1};
/// A coordinate of the right rank that fails at axis 1: index 2, extent 2.
inline const std::vector<std::size_t> kInvalidCoordinate = {1, 2, 0};

/// Bengio et al.'s C, H and U and a one-head Transformer's Q, K and V at toy
/// sizes, then Q for two heads stacked on a leading axis. Every value is 0.0:
/// only shapes, strides and element counts are printed.
std::vector<NamedTensor> model_shape_fixture();

/// The [2, 2, 3] tensor holding 10, 11, 12, 20, 21, 22, 30, 31, 32, 40, 41, 42
/// in row-major order: the value at [a, b, c] is 10 * (2a + b + 1) + c.
llm::Tensor worked_tensor();

}  // namespace ch08
