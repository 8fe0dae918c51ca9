// The reverse pass of the tensor tape: one implementation behind backward(),
// backward_with_seed() and backward_with_trace(), plus zero_grad().
//
// A pass runs in four phases, and only the last one mutates anything:
//   1. validate the request (tracked output, seed shape, finite seed) and the
//      recorded graph (nothing released, no stale operand);
//   2. propagate fresh pass-local adjoints in reverse topological order, one
//      VJP call per operand use, checking every contribution and sum;
//   3. check that every parameter's stored gradient plus its pass adjoint is
//      finite, without writing anything;
//   4. commit: add each pass adjoint into its stored gradient in place (no
//      operation there can throw), then release the graph if asked.
// Tracing records what phases 2 and 3 computed; it never calls a VJP again.
#include <algorithm>
#include <cassert>
#include <cmath>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "llm/autograd/recorder.hpp"
#include "llm/autograd/tensor_node.hpp"
#include "llm/autograd/tensor_pass_support.hpp"
#include "llm/autograd/tensor_value.hpp"
#include "llm/tensor/kernel_output.hpp"
#include "llm/tensor/parallel.hpp"
#include "llm/tensor/strided_walk.hpp"

namespace llm {

class TensorValue::ReversePass {
 public:
  ReversePass(Node& output, SharedTensor seed, Retention retention)
      : output_(output), seed_(std::move(seed)), retention_(retention) {}

  void run(TensorBackwardTrace* trace);
  static std::vector<Node*> topology(Node& output);

 private:
  void validate_request() const;
  void validate_graph() const;
  void propagate(TensorBackwardTrace* trace);
  void check_contribution(std::size_t child, std::size_t slot, std::size_t parent,
                          const SharedTensor& upstream, const SharedTensor& contribution) const;
  void accumulate(std::size_t node, SharedTensor contribution);
  [[noreturn]] void refuse_pass_adjoint(std::size_t node, std::size_t index, double before,
                                        double term) const;
  void validate_gradients() const;
  void record_nodes(TensorBackwardTrace& trace) const;
  void commit() noexcept;

  Node& output_;
  SharedTensor seed_;
  Retention retention_;
  std::vector<Node*> order_;                            // topological, output last
  std::unordered_map<const Node*, std::size_t> index_;  // node -> position in order_
  std::vector<std::optional<SharedTensor>> adjoints_;   // pass-local bar(v), fresh per pass
};

// region: tensor-topology
// Operands before consumers, each node once: micrograd's recursive
// build_topo written with an explicit stack, so the walk itself never
// recurses, however deep the graph (freeing a graph does not recurse either:
// see the node destructor in tensor_value.cpp). Operand uses are not
// deduplicated here; only visits are.
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

  validate_gradients();
  // region: run-trace-record
  if (trace != nullptr) {
    trace->seed = seed_.materialize();
    trace->retention = retention_;
    record_nodes(*trace);
  }
  // endregion: run-trace-record
  commit();  // nothing above changed a gradient, a value or a node
}

void TensorValue::ReversePass::propagate(TensorBackwardTrace* trace) {
  for (std::size_t child = order_.size(); child-- > 0;) {
    Node& node = *order_[child];
    if (node.operands.empty()) continue;  // leaves and untracked results
    // Every consumer of a tracked node comes later in the order, so its
    // adjoint is complete before it is sent on.
    assert(adjoints_[child].has_value());
    const SharedTensor upstream = *adjoints_[child];
    for (std::size_t slot = 0; slot < node.operands.size(); ++slot) {
      const Node::Edge& edge = node.operands[slot];
      const std::size_t parent = index_.at(edge.parent.get());
      std::optional<SharedTensor> contribution;
      if (edge.parent->tracked) {  // constants and detached values stop the flow
        contribution = edge.rule.apply(upstream);
        check_contribution(child, slot, parent, upstream, *contribution);
      }
      // region: propagate-trace-record
      if (trace != nullptr) {
        trace->edges.push_back(TensorTraceEdge{
            trace->edges.size(), child, parent, slot, std::string(edge.rule.name),
            upstream.materialize(),
            contribution ? std::optional<Tensor>(contribution->materialize()) : std::nullopt,
            edge.parent->value.shape(), edge.parent->tracked});
      }
      // endregion: propagate-trace-record
      if (contribution) accumulate(parent, std::move(*contribution));
    }
  }
}

void TensorValue::ReversePass::check_contribution(std::size_t child, std::size_t slot,
                                                  std::size_t parent, const SharedTensor& upstream,
                                                  const SharedTensor& contribution) const {
  const Node& node = *order_[child];
  const Shape& parent_shape = order_[parent]->value.shape();
  if (contribution.shape() != parent_shape) {
    throw TensorAutodiffError(TensorAutodiffErrorKind::ContributionShapeMismatch,
                              {.operation = node.operation,
                               .node = child,
                               .label = node.label,
                               .parent = parent,
                               .operand = slot,
                               .shape = contribution.shape(),
                               .expected_shape = parent_shape});
  }
  // The upstream itself, or a view of it (an addition's or a reshape's
  // rule): its values were checked when they were added up.
  if (tape_detail::within_checked_range(contribution, upstream)) return;
  const TensorView view = contribution.view();
  if (auto index = tape_detail::first_non_finite(view)) {
    throw TensorAutodiffError(TensorAutodiffErrorKind::NonFiniteContribution,
                              {.operation = node.operation,
                               .node = child,
                               .label = node.label,
                               .parent = parent,
                               .operand = slot,
                               .coordinate = coordinate_from_offset(parent_shape, *index),
                               .value = tape_detail::element_at(view, *index)});
  }
}

// bar(v) += contribution, one operand use at a time: x*x adds twice. The
// first contribution is kept as it is (often a view of the upstream, no
// copy); a later one is added into storage the pass owns alone, or into a
// fresh row-major sum.
void TensorValue::ReversePass::accumulate(std::size_t node, SharedTensor contribution) {
  std::optional<SharedTensor>& adjoint = adjoints_[node];
  if (!adjoint) {
    adjoint = std::move(contribution);
    return;
  }
  const bool in_place = adjoint->is_sole_owner() && adjoint->is_contiguous();
  Tensor fresh = in_place ? Tensor() : kernel_output(adjoint->shape());
  double* sums =
      in_place ? adjoint->exclusive_storage() + adjoint->offset() : fresh.mutable_values().data();
  const TensorView previous = adjoint->view();
  const TensorView terms = contribution.view();
  // The common case, both row-major: one plain loop, the same sums and checks.
  if (adjoint->is_contiguous() && contribution.is_contiguous()) {
    const double* before = adjoint->contiguous_values().data();
    const double* term = contribution.contiguous_values().data();
    // Long adjoints are added in pieces on several threads (parallel.hpp);
    // the first piece that refuses names the first non-finite sum.
    parallel_pieces(adjoint->size(), kMinimumPiece, [&](std::size_t begin, std::size_t end) {
      for (std::size_t index = begin; index < end; ++index) {
        const double sum = before[index] + term[index];
        if (!std::isfinite(sum)) refuse_pass_adjoint(node, index, before[index], term[index]);
        sums[index] = sum;  // in place, sums is before: each element read before written
      }
    });
    if (!in_place) adjoint = SharedTensor(std::move(fresh));
    return;
  }
  const Strides dense = row_major_strides(previous.shape());
  const double* previous_values = previous.storage().data();
  const double* term_values = terms.storage().data();
  std::size_t index = 0;  // row-major position, for the error's coordinate
  for_each_offset<3>(previous.shape(), {dense, previous.strides(), terms.strides()},
                     {0, previous.offset(), terms.offset()},
                     [&](const std::array<std::size_t, 3>& at) {
                       const double before = previous_values[at[1]];
                       const double term = term_values[at[2]];
                       const double sum = before + term;
                       // region: pass-adjoint-finite-check
                       if (!std::isfinite(sum)) refuse_pass_adjoint(node, index, before, term);
                       // endregion: pass-adjoint-finite-check
                       sums[at[0]] = sum;  // pass-local: a later throw discards it with the pass
                       ++index;
                     });
  if (!in_place) adjoint = SharedTensor(std::move(fresh));
}
// endregion: tensor-reverse-pass

// NonFinitePassAdjoint: bar(v)[index] = before + term is not finite.
void TensorValue::ReversePass::refuse_pass_adjoint(std::size_t node, std::size_t index,
                                                   double before, double term) const {
  const Shape& shape = order_[node]->value.shape();
  throw TensorAutodiffError(TensorAutodiffErrorKind::NonFinitePassAdjoint,
                            {.operation = order_[node]->operation,
                             .node = node,
                             .label = order_[node]->label,
                             .coordinate = coordinate_from_offset(shape, index),
                             .value = before,
                             .other_value = term});
}

// region: tensor-commit-and-release
// Every reached parameter's stored gradient + pass adjoint must be finite;
// nothing is written here.
void TensorValue::ReversePass::validate_gradients() const {
  for (std::size_t position = 0; position < order_.size(); ++position) {
    const Node& node = *order_[position];
    if (!node.gradient) continue;
    const std::span<const double> stored = node.gradient->values();
    const TensorView adjoint = adjoints_[position]->view();
    const double* terms = adjoint.storage().data();
    // A row-major adjoint (nearly always) is checked in one vectorized pass;
    // the walk below then runs only to name a failing element.
    if (adjoint.is_contiguous() && !tape_detail::contiguous_sums_have_non_finite(
                                       stored.data(), terms + adjoint.offset(), stored.size())) {
      continue;
    }
    std::size_t index = 0;
    for_each_offset<1>(adjoint.shape(), {adjoint.strides()}, {adjoint.offset()},
                       [&](const std::array<std::size_t, 1>& at) {
                         if (!std::isfinite(stored[index] + terms[at[0]])) {
                           throw TensorAutodiffError(
                               TensorAutodiffErrorKind::NonFiniteAccumulatedGradient,
                               {.node = position,
                                .label = node.label,
                                .coordinate = coordinate_from_offset(adjoint.shape(), index),
                                .value = stored[index],
                                .other_value = terms[at[0]]});
                         }
                         ++index;
                       });
  }
}

// Only non-throwing operations: in-place additions already known to be
// finite, and (with Release) dropping edges. Edges are dropped from the first
// node to the output: a node's operands all come before it, so an operand
// freed here has already been visited and is never touched again.
void TensorValue::ReversePass::commit() noexcept {
  for (std::size_t position = 0; position < order_.size(); ++position) {
    Node& node = *order_[position];
    if (!node.gradient) continue;
    double* stored = node.gradient->mutable_values().data();
    const TensorView adjoint = adjoints_[position]->view();
    const double* terms = adjoint.storage().data();
    if (adjoint.is_contiguous()) {  // the common case: one plain loop, the same sums
      const double* term = terms + adjoint.offset();
      for (std::size_t i = 0; i < adjoint.size(); ++i) stored[i] += term[i];
      continue;
    }
    const Strides dense = row_major_strides(adjoint.shape());
    for_each_offset<2>(
        adjoint.shape(), {dense, adjoint.strides()}, {0, adjoint.offset()},
        [&](const std::array<std::size_t, 2>& at) { stored[at[0]] += terms[at[1]]; });
  }
  if (retention_ == Retention::Release) {
    adjoints_.clear();  // pass adjoints may share storage with saved context
    for (std::size_t position = 0; position < order_.size(); ++position) {
      Node& node = *order_[position];
      if (node.operands.empty()) continue;
      node.released = true;
      node.released_index = position;
      node.operands.clear();  // edges and rules: the saved context goes with them
    }
  }
}
// endregion: tensor-commit-and-release

// region: tensor-pass-validation
void TensorValue::ReversePass::validate_request() const {
  if (!output_.tracked)
    throw TensorAutodiffError(TensorAutodiffErrorKind::UntrackedOutput,
                              {.operation = output_.operation});
  const Shape& output_shape = output_.value.shape();
  if (seed_.shape() != output_shape) {
    throw TensorAutodiffError(
        TensorAutodiffErrorKind::SeedShapeMismatch,
        {.operation = output_.operation, .shape = seed_.shape(), .expected_shape = output_shape});
  }
  const TensorView seed = seed_.view();
  if (auto index = tape_detail::first_non_finite(seed)) {
    throw TensorAutodiffError(TensorAutodiffErrorKind::NonFiniteSeed,
                              {.operation = output_.operation,
                               .shape = seed_.shape(),
                               .coordinate = coordinate_from_offset(seed_.shape(), *index),
                               .value = tape_detail::element_at(seed, *index)});
  }
}

// The whole recorded graph is checked before the first VJP runs, from the
// output backwards, so the error names the released or stale operation the
// pass would have reached first. A released node has no edges left; the
// error names the position it had in the pass that released it.
void TensorValue::ReversePass::validate_graph() const {
  for (std::size_t child = order_.size(); child-- > 0;) {
    const Node& node = *order_[child];
    if (node.released) {
      throw TensorAutodiffError(
          TensorAutodiffErrorKind::ReleasedGraph,
          {.operation = node.operation, .node = node.released_index, .label = node.label});
    }
    for (std::size_t slot = 0; slot < node.operands.size(); ++slot) {
      const Node::Edge& edge = node.operands[slot];
      if (edge.version != edge.parent->version) {
        throw TensorAutodiffError(TensorAutodiffErrorKind::StaleOperand,
                                  {.operation = node.operation,
                                   .node = child,
                                   .label = node.label,
                                   .parent = index_.at(edge.parent.get()),
                                   .operand = slot,
                                   .recorded_version = edge.version,
                                   .current_version = edge.parent->version});
      }
    }
  }
}
// endregion: tensor-pass-validation

// region: tensor-trace-recording
void TensorValue::ReversePass::record_nodes(TensorBackwardTrace& trace) const {
  trace.nodes.reserve(order_.size());
  for (std::size_t position = 0; position < order_.size(); ++position) {
    const Node& node = *order_[position];
    std::vector<std::size_t> operands;
    for (const Node::Edge& edge : node.operands) operands.push_back(index_.at(edge.parent.get()));
    std::optional<Tensor> adjoint;
    if (node.tracked) adjoint = adjoints_[position]->materialize();
    std::optional<Tensor> gradient;
    if (node.gradient) {  // what the commit will store: the same additions, in a copy
      gradient = *node.gradient;
      std::span<double> sums = gradient->mutable_values();
      for (std::size_t k = 0; k < sums.size(); ++k) sums[k] += adjoint->values()[k];
    }
    trace.nodes.push_back(TensorTraceNode{
        position, node.id, node.operation, node.label, node.value.shape(), node.value.materialize(),
        node.tracked, std::move(operands), std::move(adjoint), std::move(gradient)});
  }
}
// endregion: tensor-trace-recording

// region: tensor-backward-entry-points
void TensorValue::require_scalar_output() const {
  if (!node_->tracked)
    throw TensorAutodiffError(TensorAutodiffErrorKind::UntrackedOutput,
                              {.operation = node_->operation});
  if (node_->value.rank() != 0) {
    throw TensorAutodiffError(TensorAutodiffErrorKind::NonScalarOutput,
                              {.operation = node_->operation, .shape = node_->value.shape()});
  }
}

void TensorValue::backward(Retention retention) const {
  require_scalar_output();
  ReversePass(*node_, Tensor::scalar(1.0), retention).run(nullptr);
}

void TensorValue::backward_with_seed(const Tensor& seed, Retention retention) const {
  ReversePass(*node_, SharedTensor::copy_of(seed), retention).run(nullptr);
}

TensorBackwardTrace TensorValue::backward_with_trace(Retention retention) const {
  require_scalar_output();
  TensorBackwardTrace trace;
  ReversePass(*node_, Tensor::scalar(1.0), retention).run(&trace);
  return trace;
}

TensorBackwardTrace TensorValue::backward_with_trace(const Tensor& seed,
                                                     Retention retention) const {
  TensorBackwardTrace trace;
  ReversePass(*node_, SharedTensor::copy_of(seed), retention).run(&trace);
  return trace;
}

// Zeroes in place: no allocation after the walk, so nothing can fail half-way.
void TensorValue::zero_grad() const {
  if (node_->operands.empty()) {  // a leaf reaches only itself: no walk, no allocation
    if (node_->gradient) {
      std::span<double> values = node_->gradient->mutable_values();
      std::fill(values.begin(), values.end(), 0.0);
    }
    return;
  }
  for (Node* node : ReversePass::topology(*node_)) {
    if (!node->gradient) continue;
    std::span<double> values = node->gradient->mutable_values();
    std::fill(values.begin(), values.end(), 0.0);
  }
}
// endregion: tensor-backward-entry-points

}  // namespace llm
