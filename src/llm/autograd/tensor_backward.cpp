// The reverse pass of the tensor tape: one implementation behind backward(),
// backward_with_seed() and backward_with_trace(), plus zero_grad().
//
// A pass runs in four phases, and only the last one mutates anything:
//   1. validate the request (tracked output, seed shape, finite seed) and the
//      recorded graph (nothing released, no stale operand);
//   2. propagate fresh pass-local adjoints in reverse topological order, one
//      VJP call per operand use, checking every contribution and sum;
//   3. compute every parameter's prospective gradient into locals;
//   4. commit with non-throwing swaps, then release saved contexts if asked.
// Tracing records what phases 2 and 3 computed; it never calls a VJP again.
#include <algorithm>
#include <cassert>
#include <cmath>
#include <span>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "llm/autograd/tensor_node.hpp"
#include "llm/autograd/tensor_value.hpp"

namespace llm {

static_assert(std::is_nothrow_swappable_v<Tensor>, "the commit phase swaps tensors");

class TensorValue::ReversePass {
 public:
  ReversePass(Node& output, Tensor seed, Retention retention)
      : output_(output), seed_(std::move(seed)), retention_(retention) {}

  void run(TensorBackwardTrace* trace);
  static std::vector<Node*> topology(Node& output);

 private:
  void validate_request() const;
  void validate_graph() const;
  void propagate(TensorBackwardTrace* trace);
  void accumulate(std::size_t node, Tensor contribution);
  std::vector<std::optional<Tensor>> prospective_gradients() const;
  void record_nodes(TensorBackwardTrace& trace,
                    const std::vector<std::optional<Tensor>>& gradients) const;
  void commit(std::vector<std::optional<Tensor>>& gradients) noexcept;

  Node& output_;
  Tensor seed_;
  Retention retention_;
  std::vector<Node*> order_;                            // topological, output last
  std::unordered_map<const Node*, std::size_t> index_;  // node -> position in order_
  std::vector<std::optional<Tensor>> adjoints_;         // pass-local bar(v), fresh per pass
};

// region: tensor-topology
// Operands before consumers, each node once: micrograd's recursive
// build_topo written with an explicit stack, so deep graphs cannot overflow
// the call stack. Operand uses are not deduplicated here; only visits are.
std::vector<TensorValue::Node*> TensorValue::ReversePass::topology(Node& output) {
  std::vector<Node*> order;
  std::unordered_set<const Node*> visited{&output};
  std::vector<std::pair<Node*, std::size_t>> stack{{&output, 0}};  // node, next operand slot
  while (!stack.empty()) {
    Node* node = stack.back().first;
    const std::size_t slot = stack.back().second;
    if (slot < node->operands.size()) {
      ++stack.back().second;
      Node* parent = node->operands[slot].parent.get();
      if (visited.insert(parent).second) stack.emplace_back(parent, 0);
    } else {
      order.push_back(node);
      stack.pop_back();
    }
  }
  return order;
}
// endregion: tensor-topology

// region: tensor-reverse-pass
void TensorValue::ReversePass::run(TensorBackwardTrace* trace) {
  validate_request();
  order_ = topology(output_);
  for (std::size_t position = 0; position < order_.size(); ++position) {
    index_.emplace(order_[position], position);
  }
  validate_graph();

  adjoints_.assign(order_.size(), std::nullopt);
  adjoints_.back() = seed_;  // S·[v = o]: the output is last in topological order
  propagate(trace);

  std::vector<std::optional<Tensor>> gradients = prospective_gradients();
  if (trace != nullptr) {
    trace->seed = seed_;
    trace->retention = retention_;
    record_nodes(*trace, gradients);
  }
  commit(gradients);  // nothing above changed a gradient, a value or a node
}

void TensorValue::ReversePass::propagate(TensorBackwardTrace* trace) {
  for (std::size_t child = order_.size(); child-- > 0;) {
    Node& node = *order_[child];
    if (node.operands.empty()) continue;  // leaves and untracked results
    // Every consumer of a tracked node comes later in the order, so its
    // adjoint is complete before it is sent on.
    assert(adjoints_[child].has_value());
    const Tensor& upstream = *adjoints_[child];
    for (std::size_t slot = 0; slot < node.operands.size(); ++slot) {
      const Node::Edge& edge = node.operands[slot];
      const std::size_t parent = index_.at(edge.parent.get());
      std::optional<Tensor> contribution;
      if (edge.parent->tracked) {  // constants and detached values stop the flow
        contribution = edge.rule.apply(upstream);
        const Shape& parent_shape = edge.parent->value->shape();
        if (contribution->shape() != parent_shape) {
          throw TensorAutodiffError::contribution_shape_mismatch(
              node.operation, child, parent, slot, contribution->shape(), parent_shape);
        }
        if (auto offset = tape_detail::first_non_finite(contribution->values())) {
          throw TensorAutodiffError::non_finite_contribution(
              node.operation, child, parent, slot, coordinate_from_offset(parent_shape, *offset),
              contribution->values()[*offset]);
        }
      }
      if (trace != nullptr) {
        trace->edges.push_back(TensorTraceEdge{trace->edges.size(), child, parent, slot,
                                               std::string(edge.rule.name), upstream, contribution,
                                               edge.parent->value->shape(), edge.parent->tracked});
      }
      if (contribution) accumulate(parent, std::move(*contribution));
    }
  }
}

// bar(v) += contribution, one operand use at a time: x*x adds twice.
void TensorValue::ReversePass::accumulate(std::size_t node, Tensor contribution) {
  std::optional<Tensor>& adjoint = adjoints_[node];
  if (!adjoint) {
    adjoint = std::move(contribution);
    return;
  }
  std::span<double> sums = adjoint->mutable_values();
  std::span<const double> terms = contribution.values();
  for (std::size_t offset = 0; offset < sums.size(); ++offset) {
    const double sum = sums[offset] + terms[offset];
    if (!std::isfinite(sum)) {
      throw TensorAutodiffError::non_finite_pass_adjoint(
          order_[node]->operation, node, coordinate_from_offset(adjoint->shape(), offset),
          sums[offset], terms[offset]);
    }
    sums[offset] = sum;  // pass-local: a later throw discards it with the pass
  }
}

// endregion: tensor-reverse-pass

// region: tensor-commit-and-release
// Stored gradient + pass adjoint for every reached parameter, into locals.
std::vector<std::optional<Tensor>> TensorValue::ReversePass::prospective_gradients() const {
  std::vector<std::optional<Tensor>> gradients(order_.size());
  for (std::size_t position = 0; position < order_.size(); ++position) {
    const Node& node = *order_[position];
    if (!node.gradient) continue;
    Tensor next = *node.gradient;
    std::span<double> sums = next.mutable_values();
    std::span<const double> terms = adjoints_[position]->values();
    for (std::size_t offset = 0; offset < sums.size(); ++offset) {
      const double sum = sums[offset] + terms[offset];
      if (!std::isfinite(sum)) {
        throw TensorAutodiffError::non_finite_accumulated_gradient(
            position, coordinate_from_offset(next.shape(), offset), sums[offset], terms[offset]);
      }
      sums[offset] = sum;
    }
    gradients[position] = std::move(next);
  }
  return gradients;
}

// Only non-throwing operations: swapping tensors and dropping closures.
void TensorValue::ReversePass::commit(std::vector<std::optional<Tensor>>& gradients) noexcept {
  for (std::size_t position = 0; position < order_.size(); ++position) {
    if (gradients[position]) std::swap(*order_[position]->gradient, *gradients[position]);
  }
  if (retention_ == Retention::Release) {
    for (Node* node : order_) {
      if (node->operands.empty()) continue;
      for (Node::Edge& edge : node->operands) edge.rule.apply = nullptr;
      node->released = true;
    }
  }
}
// endregion: tensor-commit-and-release

// region: tensor-pass-validation
void TensorValue::ReversePass::validate_request() const {
  if (!output_.tracked) throw TensorAutodiffError::untracked_output(output_.operation);
  const Shape& output_shape = output_.value->shape();
  if (seed_.shape() != output_shape) {
    throw TensorAutodiffError::seed_shape_mismatch(output_.operation, seed_.shape(), output_shape);
  }
  if (auto offset = tape_detail::first_non_finite(seed_.values())) {
    throw TensorAutodiffError::non_finite_seed(output_.operation, seed_.shape(),
                                               coordinate_from_offset(seed_.shape(), *offset),
                                               seed_.values()[*offset]);
  }
}

// The whole recorded graph is checked before the first VJP runs, from the
// output backwards, so the error names the released or stale operation the
// pass would have reached first.
void TensorValue::ReversePass::validate_graph() const {
  for (std::size_t child = order_.size(); child-- > 0;) {
    const Node& node = *order_[child];
    if (node.operands.empty()) continue;
    if (node.released) throw TensorAutodiffError::released_graph(node.operation, child);
    for (std::size_t slot = 0; slot < node.operands.size(); ++slot) {
      const Node::Edge& edge = node.operands[slot];
      if (edge.version != edge.parent->version) {
        throw TensorAutodiffError::stale_operand(node.operation, child,
                                                 index_.at(edge.parent.get()), slot, edge.version,
                                                 edge.parent->version);
      }
    }
  }
}
// endregion: tensor-pass-validation

// region: tensor-trace-recording
void TensorValue::ReversePass::record_nodes(
    TensorBackwardTrace& trace, const std::vector<std::optional<Tensor>>& gradients) const {
  trace.nodes.reserve(order_.size());
  for (std::size_t position = 0; position < order_.size(); ++position) {
    const Node& node = *order_[position];
    std::vector<std::size_t> operands;
    for (const Node::Edge& edge : node.operands) operands.push_back(index_.at(edge.parent.get()));
    trace.nodes.push_back(TensorTraceNode{position, node.id, node.operation, node.value->shape(),
                                          *node.value, node.tracked, std::move(operands),
                                          node.tracked ? adjoints_[position] : std::nullopt,
                                          gradients[position]});
  }
}
// endregion: tensor-trace-recording

// region: tensor-backward-entry-points
void TensorValue::require_scalar_output() const {
  if (!node_->tracked) throw TensorAutodiffError::untracked_output(node_->operation);
  if (node_->value->rank() != 0) {
    throw TensorAutodiffError::non_scalar_output(node_->operation, node_->value->shape());
  }
}

void TensorValue::backward() const {
  require_scalar_output();
  ReversePass(*node_, Tensor::scalar(1.0), Retention::Retain).run(nullptr);
}

void TensorValue::backward_with_seed(const Tensor& seed, Retention retention) const {
  ReversePass(*node_, seed, retention).run(nullptr);
}

TensorBackwardTrace TensorValue::backward_with_trace() const {
  require_scalar_output();
  TensorBackwardTrace trace;
  ReversePass(*node_, Tensor::scalar(1.0), Retention::Retain).run(&trace);
  return trace;
}

TensorBackwardTrace TensorValue::backward_with_trace(const Tensor& seed,
                                                     Retention retention) const {
  TensorBackwardTrace trace;
  ReversePass(*node_, seed, retention).run(&trace);
  return trace;
}

// Zeroes in place: no allocation after the walk, so nothing can fail half-way.
void TensorValue::zero_grad() const {
  for (Node* node : ReversePass::topology(*node_)) {
    if (!node->gradient) continue;
    std::span<double> values = node->gradient->mutable_values();
    std::fill(values.begin(), values.end(), 0.0);
  }
}
// endregion: tensor-backward-entry-points

}  // namespace llm
