// The tensor tape's nodes: leaves, recording an operation, reading a node,
// assign (with its version for the stale-operand guard), detach, and the
// inference scope. The reverse pass is in tensor_backward.cpp; operations and
// their VJPs are in tensor_structural_ops.cpp, tensor_arithmetic_ops.cpp and
// tensor_reduction_ops.cpp.
#include "llm/autograd/tensor_value.hpp"

#include <atomic>
#include <utility>

#include "llm/autograd/tensor_node.hpp"

namespace llm {
namespace {

// Node ids only need to be unique and increasing; an atomic keeps them so
// even when several threads build separate tapes.
std::atomic<std::uint64_t> next_node_id{0};

// Depth of the live NoGradScope objects on this thread.
thread_local int no_grad_depth = 0;

// Throws NonFiniteLeaf for the first non-finite element of a leaf value.
void require_finite_leaf(TensorOperation operation, const Tensor& value) {
  if (auto offset = tape_detail::first_non_finite(value.values())) {
    throw TensorAutodiffError::non_finite_leaf(operation, value.shape(),
                                               coordinate_from_offset(value.shape(), *offset),
                                               value.values()[*offset]);
  }
}

}  // namespace

// region: no-grad-scope-impl
NoGradScope::NoGradScope() noexcept {
  ++no_grad_depth;
}
NoGradScope::~NoGradScope() {
  --no_grad_depth;
}
bool NoGradScope::active() noexcept {
  return no_grad_depth > 0;
}
// endregion: no-grad-scope-impl

TensorValue::TensorValue(std::shared_ptr<Node> node) noexcept : node_(std::move(node)) {}

// region: tensor-leaves
TensorValue TensorValue::parameter(Tensor value) {
  require_finite_leaf(TensorOperation::Parameter, value);
  auto node = std::make_shared<Node>();
  node->id = next_node_id++;
  node->operation = TensorOperation::Parameter;
  node->gradient = Tensor::zeros(value.shape());
  node->value = save(std::move(value));
  node->tracked = true;
  return TensorValue(std::move(node));
}

TensorValue TensorValue::constant(Tensor value) {
  require_finite_leaf(TensorOperation::Constant, value);
  auto node = std::make_shared<Node>();
  node->id = next_node_id++;
  node->operation = TensorOperation::Constant;
  node->value = save(std::move(value));
  return TensorValue(std::move(node));
}

TensorValue TensorValue::detach() const {
  auto node = std::make_shared<Node>();
  node->id = next_node_id++;
  node->operation = TensorOperation::Detached;
  node->value = node_->value;  // values are immutable: share, do not copy
  return TensorValue(std::move(node));
}
// endregion: tensor-leaves

// region: tensor-record
TensorValue TensorValue::record(TensorOperation operation, Tensor value,
                                std::vector<RecordedOperand> operands) {
  return record(operation, save(std::move(value)), std::move(operands));
}

TensorValue TensorValue::record(TensorOperation operation, SavedTensor value,
                                std::vector<RecordedOperand> operands) {
  // Every forward value on the tape is finite, so a non-finite adjoint can
  // only come from a VJP or an accumulation, where the pass names it.
  if (auto offset = tape_detail::first_non_finite(value->values())) {
    throw TensorAutodiffError::non_finite_result(operation, value->shape(),
                                                 coordinate_from_offset(value->shape(), *offset),
                                                 value->values()[*offset]);
  }
  auto node = std::make_shared<Node>();
  node->operation = operation;
  node->value = std::move(value);
  if (!NoGradScope::active()) {
    for (const RecordedOperand& recorded : operands) {
      node->tracked = node->tracked || recorded.operand.tracks_gradient();
    }
  }
  // An untracked result keeps no operands: nothing will ever flow through it.
  if (node->tracked) {
    node->operands.reserve(operands.size());
    for (RecordedOperand& recorded : operands) {
      const std::shared_ptr<Node>& parent = recorded.operand.node_;
      VjpRule rule{recorded.rule.name, nullptr};
      if (parent->tracked) rule.apply = std::move(recorded.rule.apply);
      node->operands.push_back(Node::Edge{parent, parent->version, std::move(rule)});
    }
  }
  node->id = next_node_id++;
  return TensorValue(std::move(node));
}

TensorValue::SavedTensor TensorValue::save(Tensor value) {
  return std::make_shared<const Tensor>(std::move(value));
}

TensorValue::SavedTensor TensorValue::saved_value() const noexcept {
  return node_->value;
}
// endregion: tensor-record

// region: tensor-node-accessors
const Tensor& TensorValue::value() const noexcept {
  return *node_->value;
}
Tensor TensorValue::value_snapshot() const {
  return *node_->value;
}
const Shape& TensorValue::shape() const noexcept {
  return node_->value->shape();
}
TensorOperation TensorValue::operation() const noexcept {
  return node_->operation;
}
bool TensorValue::tracks_gradient() const noexcept {
  return node_->tracked;
}
bool TensorValue::is_parameter() const noexcept {
  return node_->operation == TensorOperation::Parameter;
}
bool TensorValue::is_released() const noexcept {
  return node_->released;
}
std::uint64_t TensorValue::version() const noexcept {
  return node_->version;
}
std::uint64_t TensorValue::node_id() const noexcept {
  return node_->id;
}
bool TensorValue::is_same_node(const TensorValue& other) const noexcept {
  return node_ == other.node_;
}
const std::optional<Tensor>& TensorValue::gradient() const noexcept {
  return node_->gradient;
}
std::optional<Tensor> TensorValue::gradient_snapshot() const {
  return node_->gradient;
}
// endregion: tensor-node-accessors

// region: tensor-assign
void TensorValue::assign(Tensor value) {
  if (!is_parameter()) throw TensorAutodiffError::not_a_parameter(node_->operation);
  if (value.shape() != shape()) {
    throw TensorAutodiffError::assign_shape_mismatch(value.shape(), shape());
  }
  require_finite_leaf(TensorOperation::Parameter, value);
  SavedTensor replacement = save(std::move(value));
  // Commit: operations that recorded the old version keep reading the old
  // SavedTensor, and the version tells a later pass that they are stale.
  node_->value.swap(replacement);
  ++node_->version;
}
// endregion: tensor-assign

// region: tensor-trace-lookup
const Tensor* TensorBackwardTrace::pass_adjoint(TensorOperation operation) const noexcept {
  for (const TensorTraceNode& node : nodes) {
    if (node.operation == operation && node.pass_adjoint) return &*node.pass_adjoint;
  }
  return nullptr;
}

const TensorTraceNode* TensorBackwardTrace::find(std::uint64_t node_id) const noexcept {
  for (const TensorTraceNode& node : nodes) {
    if (node.node_id == node_id) return &node;
  }
  return nullptr;
}
// endregion: tensor-trace-lookup

}  // namespace llm
