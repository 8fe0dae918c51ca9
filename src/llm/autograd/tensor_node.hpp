// The private node of the tensor tape, shared by the tape's own sources
// (tensor_value.cpp, tensor_backward.cpp). Not part of the public API:
// operations reach nodes only through TensorValue::record().
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "llm/autograd/tensor_value.hpp"

namespace llm {

// region: tensor-node
// One tensor-tape node. Values are immutable once recorded (assign() swaps in
// a new SavedTensor), so a VJP may keep a SavedTensor instead of a copy.
struct TensorValue::Node {
  // One operand use: which node, at which version it was read, and the rule
  // that maps the result's adjoint back to that operand's shape.
  struct Edge {
    std::shared_ptr<Node> parent;
    std::uint64_t version = 0;
    VjpRule rule;  // empty after a Release pass, or when the operand is untracked
  };

  std::uint64_t id = 0;
  TensorOperation operation = TensorOperation::Constant;
  SavedTensor value;
  bool tracked = false;
  std::optional<Tensor> gradient;  // parameters only, shape of the value
  std::uint64_t version = 0;       // incremented by assign()
  std::vector<Edge> operands;      // one per operand slot, in order
  bool released = false;           // a Release pass dropped the rules
};
// endregion: tensor-node

namespace tape_detail {

// Flat offset of the first NaN or infinity in `values`, if any.
inline std::optional<std::size_t> first_non_finite(std::span<const double> values) {
  for (std::size_t offset = 0; offset < values.size(); ++offset) {
    if (!std::isfinite(values[offset])) return offset;
  }
  return std::nullopt;
}

}  // namespace tape_detail

}  // namespace llm
