// The scalar tape: graph nodes, the six operations with their local
// derivatives, the reverse pass, zero_grad, and the error messages.
#include "llm/autograd/scalar.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "llm/format.hpp"

namespace llm {

// region: scalar-graph-node
// One operand use: the node it reads and d(result)/d(this use), evaluated
// from forward values when the result is made.
struct Scalar::ParentEdge {
  std::shared_ptr<Node> parent;
  double local_derivative;
};

// Value, operation and parent edges are fixed at construction and may only
// name nodes that already exist, so the graph can never contain a cycle.
// Only the stored gradient changes, and only in backward and zero_grad; the
// edges are emptied only by the destructor, which frees without recursion.
struct Scalar::Node {
  Node(double value, ScalarOperation operation, std::vector<ParentEdge> parents, bool tracked)
      : value(value),
        operation(operation),
        parents(std::move(parents)),
        gradient(tracked ? std::optional<double>(0.0) : std::nullopt) {}
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  const double value;
  const ScalarOperation operation;
  std::vector<ParentEdge> parents;     // never changed after construction, except by ~Node
  std::optional<double> gradient;      // empty for untracked nodes
  std::shared_ptr<Node> next_to_free;  // the destructor's work list (never set otherwise)
};
// endregion: scalar-graph-node

// region: scalar-node-destructor
// Freeing a graph never recurses: without care, destroying the last handle of
// a chain destroys its parent from inside its destructor, and so on, one
// stack frame per node (a chain of about 1.8 * 10^5 nodes overflows the
// default 8 MiB stack). Parents this node was the last owner of go onto a
// work list linked through next_to_free (no allocation), and each node taken
// off it hands on its own last-owned parents before it is destroyed.
Scalar::Node::~Node() {
  std::shared_ptr<Node> pending;
  const auto take_last_owned_parents = [&pending](Node& node) noexcept {
    for (ParentEdge& edge : node.parents) {
      std::shared_ptr<Node> parent = std::move(edge.parent);
      if (parent && parent.use_count() == 1) {
        parent->next_to_free = std::move(pending);
        pending = std::move(parent);
      }
    }
  };
  take_last_owned_parents(*this);
  while (pending) {
    std::shared_ptr<Node> node = std::move(pending);
    pending = std::move(node->next_to_free);
    take_last_owned_parents(*node);
  }  // `node` is destroyed here with no parents left: no nested destruction
}
// endregion: scalar-node-destructor

Scalar::Scalar(std::shared_ptr<Node> node) noexcept : node_(std::move(node)) {}

// region: scalar-node-construction
Scalar Scalar::parameter(double value) {
  return leaf(value, ScalarOperation::Parameter, true);
}

Scalar Scalar::constant(double value) {
  return leaf(value, ScalarOperation::Constant, false);
}

Scalar Scalar::leaf(double value, ScalarOperation operation, bool tracked) {
  if (!std::isfinite(value))
    throw ScalarError(ScalarErrorKind::NonFiniteLeaf, {.operation = operation, .value = value});
  return Scalar(std::make_shared<Node>(value, operation, std::vector<ParentEdge>{}, tracked));
}

// Every operation ends here: its primal must be finite, and its result is
// tracked exactly when some operand use is tracked, since only then can an
// adjoint flow through it to a parameter.
Scalar Scalar::result(double value, ScalarOperation operation, std::vector<ParentEdge> parents) {
  if (!std::isfinite(value))
    throw ScalarError(ScalarErrorKind::NonFiniteResult, {.operation = operation, .value = value});
  assert(std::ranges::all_of(
      parents, [](const ParentEdge& edge) { return std::isfinite(edge.local_derivative); }));
  const bool tracked = std::ranges::any_of(
      parents, [](const ParentEdge& edge) { return edge.parent->gradient.has_value(); });
  return Scalar(std::make_shared<Node>(value, operation, std::move(parents), tracked));
}
// endregion: scalar-node-construction

// region: scalar-arithmetic
Scalar Scalar::add(const Scalar& other) const {
  // d(a + b)/da = 1, d(a + b)/db = 1
  return result(value() + other.value(), ScalarOperation::Add, {{node_, 1.0}, {other.node_, 1.0}});
}

Scalar Scalar::mul(const Scalar& other) const {
  // d(a * b)/da = b, d(a * b)/db = a
  return result(value() * other.value(), ScalarOperation::Mul,
                {{node_, other.value()}, {other.node_, value()}});
}

Scalar Scalar::neg() const {
  // d(-a)/da = -1
  return result(-value(), ScalarOperation::Neg, {{node_, -1.0}});
}

Scalar Scalar::sub(const Scalar& other) const {
  // d(a - b)/da = 1, d(a - b)/db = -1
  return result(value() - other.value(), ScalarOperation::Sub, {{node_, 1.0}, {other.node_, -1.0}});
}
// endregion: scalar-arithmetic

// region: scalar-elementary-functions
Scalar Scalar::exp() const {
  const double output = std::exp(value());
  // d exp(a)/da = exp(a): the result's own value
  return result(output, ScalarOperation::Exp, {{node_, output}});
}

Scalar Scalar::tanh() const {
  const double output = std::tanh(value());
  // d tanh(a)/da = 1 - tanh(a)^2
  return result(output, ScalarOperation::Tanh, {{node_, 1.0 - output * output}});
}
// endregion: scalar-elementary-functions

// region: scalar-detach
// A fresh leaf, not a view: it has no edge back to this node, so no adjoint
// can reach the original through it.
Scalar Scalar::detach() const {
  return Scalar(
      std::make_shared<Node>(value(), ScalarOperation::Detached, std::vector<ParentEdge>{}, false));
}
// endregion: scalar-detach

double Scalar::value() const noexcept {
  return node_->value;
}

ScalarOperation Scalar::operation() const noexcept {
  return node_->operation;
}

bool Scalar::tracks_gradient() const noexcept {
  return node_->gradient.has_value();
}

std::optional<double> Scalar::gradient() const noexcept {
  return node_->gradient;
}

bool Scalar::is_same_node(const Scalar& other) const noexcept {
  return node_ == other.node_;
}

// region: scalar-topology
// Depth-first post-order along parent edges: each node appears once, after
// every node it reads, so the output comes last and every consumer of a node
// comes after it. An explicit stack keeps long chains off the call stack
// (and the node destructor frees them without recursion too).
std::vector<Scalar::Node*> Scalar::topology() const {
  struct Frame {
    Node* node;
    std::size_t next_edge;
  };
  std::vector<Node*> order;
  std::unordered_set<const Node*> visited{node_.get()};
  std::vector<Frame> stack{{node_.get(), 0}};
  while (!stack.empty()) {
    Frame& frame = stack.back();
    if (frame.next_edge < frame.node->parents.size()) {
      Node* parent = frame.node->parents[frame.next_edge++].parent.get();
      if (visited.insert(parent).second) stack.push_back({parent, 0});
    } else {
      order.push_back(frame.node);
      stack.pop_back();
    }
  }
  return order;
}
// endregion: scalar-topology

// region: scalar-reverse-pass
// region: scalar-reverse-walk
BackwardPass Scalar::backward() {
  return backward_with_seed(1.0);
}

BackwardPass Scalar::backward_with_seed(double seed) {
  // region: scalar-reverse-preconditions
  if (!tracks_gradient())
    throw ScalarError(ScalarErrorKind::UntrackedOutput, {.operation = operation()});
  if (!std::isfinite(seed)) throw ScalarError(ScalarErrorKind::NonFiniteSeed, {.seed = seed});
  // endregion: scalar-reverse-preconditions

  const std::vector<Node*> order = topology();
  std::unordered_map<const Node*, std::size_t> index_of;
  for (std::size_t index = 0; index < order.size(); ++index) index_of.emplace(order[index], index);

  // Pass-local adjoints start from zero and the seed: stored gradients of
  // earlier passes are never sent backward again.
  std::vector<double> adjoint(order.size(), 0.0);
  adjoint.back() = seed;
  std::vector<BackwardEdge> edges;

  // Reverse topological order: every consumer of a node has already sent its
  // contributions before the node sends its own adjoint on.
  for (std::size_t child = order.size(); child-- > 0;) {
    const double upstream = adjoint[child];
    const std::vector<ParentEdge>& parents = order[child]->parents;
    for (std::size_t operand = 0; operand < parents.size(); ++operand) {
      const ParentEdge& edge = parents[operand];
      const std::size_t parent = index_of.at(edge.parent.get());
      const double contribution = upstream * edge.local_derivative;
      const bool parent_tracked = edge.parent->gradient.has_value();
      // region: scalar-walk-checks
      if (!std::isfinite(contribution)) {
        throw ScalarError(ScalarErrorKind::NonFiniteContribution,
                          {.child = child,
                           .parent = parent,
                           .operand = operand,
                           .upstream = upstream,
                           .local_derivative = edge.local_derivative});
      }
      const double previous = adjoint[parent];
      if (parent_tracked && !std::isfinite(previous + contribution)) {
        throw ScalarError(ScalarErrorKind::NonFinitePassAdjoint,
                          {.node = parent, .previous = previous, .contribution = contribution});
      }
      // endregion: scalar-walk-checks
      // Add, never assign: each operand use is its own path to the parent.
      if (parent_tracked) adjoint[parent] += contribution;
      // region: scalar-walk-record
      edges.push_back(BackwardEdge{
          .reverse_index = edges.size(),
          .child = child,
          .parent = parent,
          .operand = operand,
          .upstream = upstream,
          .local_derivative = edge.local_derivative,
          .contribution = contribution,
          .parent_tracked = parent_tracked,
          .parent_adjoint_before = parent_tracked ? std::optional(previous) : std::nullopt,
          .parent_adjoint_after = parent_tracked ? std::optional(adjoint[parent]) : std::nullopt});
      // endregion: scalar-walk-record
    }
  }
  // endregion: scalar-reverse-walk

  // region: scalar-reverse-commit
  // Validate every prospective stored sum before committing any of them.
  std::vector<BackwardNode> nodes;
  nodes.reserve(order.size());
  for (std::size_t index = 0; index < order.size(); ++index) {
    const Node& node = *order[index];
    BackwardNode record{.topology_index = index,
                        .operation = node.operation,
                        .value = node.value,
                        .tracked = node.gradient.has_value(),
                        .pass_adjoint = std::nullopt,
                        .stored_gradient = std::nullopt};
    if (node.gradient) {
      const double stored = *node.gradient + adjoint[index];
      if (!std::isfinite(stored)) {
        throw ScalarError(
            ScalarErrorKind::NonFiniteAccumulatedGradient,
            {.node = index, .stored = *node.gradient, .pass_adjoint = adjoint[index]});
      }
      record.pass_adjoint = adjoint[index];
      record.stored_gradient = stored;
    }
    nodes.push_back(record);
  }

  // Commit: plain assignments that cannot throw, so a pass is stored whole or not at all.
  for (std::size_t index = 0; index < order.size(); ++index) {
    if (nodes[index].stored_gradient) order[index]->gradient = nodes[index].stored_gradient;
  }
  return BackwardPass{seed, std::move(nodes), std::move(edges)};
}
// endregion: scalar-reverse-commit
// endregion: scalar-reverse-pass

// region: scalar-zero-grad
// The topology is gathered first, so an allocation failure changes nothing.
void Scalar::zero_grad() {
  for (Node* node : topology()) {
    if (node->gradient) node->gradient = 0.0;
  }
}
// endregion: scalar-zero-grad

std::string_view scalar_operation_name(ScalarOperation operation) {
  switch (operation) {
    case ScalarOperation::Parameter:
      return "parameter";
    case ScalarOperation::Constant:
      return "constant";
    case ScalarOperation::Detached:
      return "detached";
    case ScalarOperation::Add:
      return "add";
    case ScalarOperation::Mul:
      return "mul";
    case ScalarOperation::Neg:
      return "neg";
    case ScalarOperation::Sub:
      return "sub";
    case ScalarOperation::Exp:
      return "exp";
    case ScalarOperation::Tanh:
      return "tanh";
  }
  return "unknown";
}

// region: scalar-error-messages
std::string ScalarErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "operation") return std::string(scalar_operation_name(evidence.operation));
  if (field == "value") return format_shortest(evidence.value);
  if (field == "seed") return format_shortest(evidence.seed);
  if (field == "child") return std::to_string(evidence.child);
  if (field == "parent") return std::to_string(evidence.parent);
  if (field == "operand") return std::to_string(evidence.operand);
  if (field == "upstream") return format_shortest(evidence.upstream);
  if (field == "local_derivative") return format_shortest(evidence.local_derivative);
  if (field == "node") return std::to_string(evidence.node);
  if (field == "previous") return format_shortest(evidence.previous);
  if (field == "contribution") return format_shortest(evidence.contribution);
  if (field == "stored") return format_shortest(evidence.stored);
  if (field == "pass_adjoint") return format_shortest(evidence.pass_adjoint);
  error_detail::unknown_field(area, field);
}
// endregion: scalar-error-messages

}  // namespace llm
