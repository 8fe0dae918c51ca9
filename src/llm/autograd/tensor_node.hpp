// The private node of the tensor tape, shared by the tape's own sources
// (tensor_value.cpp, tensor_backward.cpp). Not part of the public API:
// operations reach nodes only through record_operation() (recorder.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "llm/autograd/recorder.hpp"
#include "llm/autograd/tensor_value.hpp"

namespace llm {

// region: tensor-node
/// One tensor-tape node. Values are immutable once recorded (assign() swaps in
/// a new SharedTensor), so a VJP may keep a SharedTensor instead of a copy.
struct TensorValue::Node {
  /// One operand use: which node, at which version it was read, and the rule
  /// that maps the result's adjoint back to that operand's shape.
  struct Edge {
    std::shared_ptr<Node> parent;  ///< the operand's node
    std::uint64_t version = 0;     ///< its version when it was read
    VjpRule rule;                  ///< empty when the operand is untracked
  };

  /// A node holding `value_in`, produced by `operation_in`, with a fresh id.
  Node(TensorOperation operation_in, SharedTensor value_in) noexcept;
  ~Node();  // iterative: see tensor_value.cpp
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  std::uint64_t id = 0;                ///< unique in the process (TensorValue::node_id)
  TensorOperation operation;           ///< what produced the value
  std::string label;                   ///< TensorValue::labeled(); errors and traces print it
  SharedTensor value;                  ///< the forward value, never changed in place
  bool tracked = false;                ///< whether gradients flow into the node
  std::optional<Tensor> gradient;      ///< parameters only, shape of the value
  std::uint64_t version = 0;           ///< incremented by assign()
  std::vector<Edge> operands;          ///< one per operand slot, in order; empty once released
  bool released = false;               ///< a Release pass dropped the edges
  std::size_t released_index = 0;      ///< topological index in the pass that released it
  std::shared_ptr<Node> next_to_free;  ///< the destructor's work list (never set otherwise)
};
// endregion: tensor-node

}  // namespace llm
