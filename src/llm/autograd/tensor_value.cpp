// The tensor tape's nodes: leaves, recording an operation, reading a node,
// assign (with its version for the stale-operand guard), detach, labels,
// freeing a graph without recursion, and the inference scope. The reverse
// pass is in tensor_backward.cpp; operations and their VJPs are in
// tensor_structural_ops.cpp, tensor_arithmetic_ops.cpp,
// tensor_reduction_ops.cpp and model_*.cpp.
#include "llm/autograd/tensor_value.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <type_traits>
#include <utility>

#include "llm/autograd/recorder.hpp"
#include "llm/autograd/tensor_node.hpp"
#include "llm/autograd/tensor_pass_support.hpp"

namespace llm {
namespace {

// Node ids only need to be unique and increasing; an atomic keeps them so
// even when several threads build separate tapes.
std::atomic<std::uint64_t> next_node_id{0};
std::atomic<std::size_t> live_nodes{0};

// Depth of the live NoGradScope objects on this thread.
thread_local int no_grad_depth = 0;

// Throws NonFiniteLeaf for the first non-finite element of a leaf value.
void require_finite_leaf(TensorOperation operation, const Tensor& value) {
  if (auto offset = tape_detail::first_non_finite(value.view())) {
    throw TensorAutodiffError(TensorAutodiffErrorKind::NonFiniteLeaf,
                              {.operation = operation,
                               .shape = value.shape(),
                               .coordinate = coordinate_from_offset(value.shape(), *offset),
                               .value = value.values()[*offset]});
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

TensorValue::Node::Node(TensorOperation operation_in, SharedTensor value_in) noexcept
    : id(next_node_id.fetch_add(1, std::memory_order_relaxed)),
      operation(operation_in),
      value(std::move(value_in)) {
  live_nodes.fetch_add(1, std::memory_order_relaxed);
}

// region: tensor-node-destructor
// Freeing a graph never recurses. A node's last handle going away would
// otherwise destroy its operands from inside its destructor, and theirs from
// inside theirs: one stack frame per node, which overflows the default 8 MiB
// stack for a chain of about 2 * 10^5 nodes. Instead, every operand this node
// is the last owner of goes onto a work list (linked through next_to_free, so
// freeing allocates nothing), and each node taken off the list hands its own
// last-owned operands to the list before it is destroyed with no edges left.
TensorValue::Node::~Node() {
  std::shared_ptr<Node> pending;
  const auto take_last_owned_operands = [&pending](Node& node) noexcept {
    for (Edge& edge : node.operands) {
      std::shared_ptr<Node> parent = std::move(edge.parent);
      if (parent && parent.use_count() == 1) {  // this edge was its last owner
        parent->next_to_free = std::move(pending);
        pending = std::move(parent);
      }
    }
  };
  take_last_owned_operands(*this);
  while (pending) {
    std::shared_ptr<Node> node = std::move(pending);
    pending = std::move(node->next_to_free);
    take_last_owned_operands(*node);
  }  // `node` is destroyed here, its edges already empty: no nested destruction
  live_nodes.fetch_sub(1, std::memory_order_relaxed);
}
// endregion: tensor-node-destructor

std::size_t TensorValue::live_node_count() noexcept {
  return live_nodes.load(std::memory_order_relaxed);
}

TensorValue::TensorValue(std::shared_ptr<Node> node) noexcept : node_(std::move(node)) {}

// region: tensor-leaves
TensorValue TensorValue::parameter(Tensor value) {
  require_finite_leaf(TensorOperation::Parameter, value);
  Tensor gradient = Tensor::zeros(value.shape());
  auto node = std::make_shared<Node>(TensorOperation::Parameter, SharedTensor(std::move(value)));
  node->gradient = std::move(gradient);
  node->tracked = true;
  return TensorValue(std::move(node));
}

TensorValue TensorValue::constant(Tensor value) {
  require_finite_leaf(TensorOperation::Constant, value);
  return TensorValue(
      std::make_shared<Node>(TensorOperation::Constant, SharedTensor(std::move(value))));
}

TensorValue TensorValue::constant(SharedTensor value) {
  if (auto index = tape_detail::first_non_finite(value.view())) {
    const std::vector<std::size_t> coordinate = coordinate_from_offset(value.shape(), *index);
    throw TensorAutodiffError(TensorAutodiffErrorKind::NonFiniteLeaf,
                              {.operation = TensorOperation::Constant,
                               .shape = value.shape(),
                               .coordinate = coordinate,
                               .value = value.at(coordinate)});
  }
  return TensorValue(std::make_shared<Node>(TensorOperation::Constant, std::move(value)));
}

TensorValue TensorValue::detach() const {
  // Values are immutable: share, do not copy.
  return TensorValue(std::make_shared<Node>(TensorOperation::Detached, node_->value));
}
// endregion: tensor-leaves

// region: tensor-record
TensorValue record_operation(TensorOperation operation, SharedTensor value,
                             std::span<RecordedOperand> operands) {
  // Every forward value on the tape is finite, so a non-finite adjoint can
  // only come from a VJP or an accumulation, where the pass names it.
  // region: record-finite-check
  // A view of an operand's value (a reshape, transpose, permutation, slice)
  // holds values that operand's check already covered: not scanned again.
  const auto checked_before = [&value](const RecordedOperand& recorded) {
    return tape_detail::within_checked_range(value, recorded.operand.node_->value);
  };
  if (std::any_of(operands.begin(), operands.end(), checked_before)) {
    // every element is one of an operand's finite values
  } else if (auto index = tape_detail::first_non_finite(value.view())) {
    throw TensorAutodiffError(TensorAutodiffErrorKind::NonFiniteResult,
                              {.operation = operation,
                               .shape = value.shape(),
                               .coordinate = coordinate_from_offset(value.shape(), *index),
                               .value = tape_detail::element_at(value.view(), *index)});
  }
  // endregion: record-finite-check
  auto node = std::make_shared<TensorValue::Node>(operation, std::move(value));
  if (!NoGradScope::active()) {
    for (const RecordedOperand& recorded : operands) {
      node->tracked = node->tracked || recorded.operand.tracks_gradient();
    }
  }
  // An untracked result keeps no operands: nothing will ever flow through it.
  if (node->tracked) {
    node->operands.reserve(operands.size());
    for (RecordedOperand& recorded : operands) {
      const std::shared_ptr<TensorValue::Node>& parent = recorded.operand.node_;
      VjpRule rule{recorded.rule.name, nullptr};
      if (parent->tracked) rule.apply = std::move(recorded.rule.apply);
      node->operands.push_back({parent, parent->version, std::move(rule)});
    }
  }
  return TensorValue(std::move(node));
}

TensorValue record_operation(TensorOperation operation, SharedTensor value,
                             RecordedOperand operand) {
  return record_operation(operation, std::move(value), std::span<RecordedOperand>(&operand, 1));
}

TensorValue record_operation(TensorOperation operation, SharedTensor value, RecordedOperand left,
                             RecordedOperand right) {
  RecordedOperand operands[] = {std::move(left), std::move(right)};
  return record_operation(operation, std::move(value), operands);
}
// endregion: tensor-record

// region: tensor-node-accessors
SharedTensor TensorValue::value() const noexcept {
  return node_->value;
}
Shape TensorValue::shape() const {
  return node_->value.shape();
}
double TensorValue::item() const {
  const SharedTensor& value = node_->value;
  if (value.size() != 1)
    throw TensorAutodiffError(TensorAutodiffErrorKind::NotOneElement,
                              {.operation = node_->operation, .shape = value.shape()});
  const std::vector<std::size_t> origin(value.rank(), 0);  // the one element
  return value.at(origin);
}
std::size_t TensorValue::rank() const noexcept {
  return node_->value.rank();
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
void TensorValue::scale_gradient_in_place(double multiplier, double divisor) const noexcept {
  if (!node_->gradient) return;
  if (divisor == 1.0) {  // g / 1 is g exactly: the same bits without the division
    for (double& element : node_->gradient->mutable_values()) element = element * multiplier;
    return;
  }
  for (double& element : node_->gradient->mutable_values())
    element = element / divisor * multiplier;
}

std::optional<Tensor> TensorValue::gradient_snapshot() const {
  return node_->gradient;
}
const std::string& TensorValue::label() const noexcept {
  return node_->label;
}
TensorValue TensorValue::labeled(std::string label) const {
  node_->label = std::move(label);
  return *this;
}
// endregion: tensor-node-accessors

// region: tensor-assign
void TensorValue::assign(Tensor value) {
  PreparedAssignment prepared = prepare_assignment(std::move(value));
  commit_assignment(prepared);
}

PreparedAssignment TensorValue::prepare_assignment(Tensor value) const {
  if (!is_parameter())
    throw TensorAutodiffError(TensorAutodiffErrorKind::NotAParameter,
                              {.operation = node_->operation});
  if (value.shape() != node_->value.shape()) {
    throw TensorAutodiffError(TensorAutodiffErrorKind::AssignShapeMismatch,
                              {.shape = value.shape(), .expected_shape = node_->value.shape()});
  }
  require_finite_leaf(TensorOperation::Parameter, value);
  return PreparedAssignment(*this, SharedTensor(std::move(value)), std::nullopt);
}

PreparedAssignment TensorValue::prepare_restore(SharedTensor value, Tensor gradient) const {
  if (!is_parameter())
    throw TensorAutodiffError(TensorAutodiffErrorKind::NotAParameter,
                              {.operation = node_->operation});
  if (value.shape() != node_->value.shape()) {
    throw TensorAutodiffError(TensorAutodiffErrorKind::AssignShapeMismatch,
                              {.shape = value.shape(), .expected_shape = node_->value.shape()});
  }
  if (gradient.shape() != node_->value.shape()) {
    throw TensorAutodiffError(TensorAutodiffErrorKind::AssignShapeMismatch,
                              {.shape = gradient.shape(), .expected_shape = node_->value.shape()});
  }
  if (auto index = tape_detail::first_non_finite(value.view())) {
    std::vector<std::size_t> coordinate = coordinate_from_offset(value.shape(), *index);
    const double bad = value.at(coordinate);
    throw TensorAutodiffError(
        TensorAutodiffErrorKind::NonFiniteLeaf,
        {.shape = value.shape(), .coordinate = std::move(coordinate), .value = bad});
  }
  require_finite_leaf(TensorOperation::Parameter, gradient);
  return PreparedAssignment(*this, std::move(value), std::move(gradient));
}

void TensorValue::commit_assignment(PreparedAssignment& prepared) noexcept {
  static_assert(std::is_nothrow_swappable_v<SharedTensor>);
  static_assert(std::is_nothrow_swappable_v<Tensor>);
  if (prepared.committed_) return;
  Node& node = *prepared.parameter_.node_;
  // Commit: operations that recorded the old version, and every handle that
  // value() returned, keep the old storage; the version tells a later pass
  // that those operations are stale.
  std::swap(node.value, prepared.value_);
  if (prepared.gradient_) std::swap(*node.gradient, *prepared.gradient_);
  ++node.version;
  prepared.committed_ = true;
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
