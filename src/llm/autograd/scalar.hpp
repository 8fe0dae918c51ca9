// Reverse-mode automatic differentiation on a graph of scalars (chapter 14).
//
// Every Scalar is a handle to one graph node. A node stores its primal value,
// the operation that produced it, one ordered edge per operand use (the parent
// node and the local derivative of this result with respect to that use), and
// a stored gradient if it is tracked. Edges point only from a result to nodes
// that already existed when it was made and never change afterwards, so the
// graph is a DAG by construction: no operation can create a cycle.
//
// backward() runs one fresh reverse pass over the node-unique topology, adds
// every operand-edge contribution into pass-local adjoints, validates every
// number, and only then adds the pass to the stored gradients. The tensor
// tape of chapter 15 keeps exactly these rules with tensor-valued nodes.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llm/error.hpp"

namespace llm {

// region: scalar-error-kinds
/// The operation that produced a scalar graph node.
enum class ScalarOperation {
  Parameter,  ///< a tracked leaf made by Scalar::parameter
  Constant,   ///< an untracked leaf made by Scalar::constant
  Detached,   ///< an untracked leaf made by Scalar::detach
  Add,        ///< a + b
  Mul,        ///< a * b
  Neg,        ///< -a
  Sub,        ///< a - b
  Exp,        ///< exp(a)
  Tanh,       ///< tanh(a)
};

/// Stable, locale-neutral name of an operation: `parameter`, `constant`,
/// `detached`, `add`, `mul`, `neg`, `sub`, `exp` or `tanh`.
std::string_view scalar_operation_name(ScalarOperation operation);

// region: scalar-error-kind-enum
/// Why building a scalar graph or running its reverse pass was refused.
enum class ScalarErrorKind {
  NonFiniteLeaf,                 ///< a parameter or constant was given NaN or an infinity
  NonFiniteResult,               ///< an operation's primal result is not finite
  UntrackedOutput,               ///< backward was called on a node with no tracked gradient
  NonFiniteSeed,                 ///< the seed installed at the output is not finite
  NonFiniteContribution,         ///< upstream adjoint times local derivative is not finite
  NonFinitePassAdjoint,          ///< adding a contribution to a pass adjoint is not finite
  NonFiniteAccumulatedGradient,  ///< stored gradient plus pass adjoint is not finite
};
// endregion: scalar-error-kind-enum

/// Stable kebab-case name of a kind, e.g. `non-finite-seed`.
std::string_view scalar_error_kind_name(ScalarErrorKind kind);

/// An error from scalar graph construction or backpropagation (area `scalar-tape`).
///
/// Each kind fills the evidence fields listed beside it; the others are zero.
/// Topology indices count nodes in the result-last order of the failed pass.
/// Every throw happens while validating, so stored gradients, values and graph
/// state are bit-for-bit what they were before the call.
class ScalarError : public Error {
 public:
  ScalarErrorKind kind() const noexcept { return kind_; }
  /// Offending operation (NonFiniteLeaf, NonFiniteResult, UntrackedOutput).
  ScalarOperation operation() const noexcept { return operation_; }
  /// Offending primal value (NonFiniteLeaf, NonFiniteResult).
  double value() const noexcept { return value_; }
  /// Offending seed (NonFiniteSeed).
  double seed() const noexcept { return seed_; }
  /// Topology index of the consuming result (NonFiniteContribution).
  std::size_t child() const noexcept { return child_; }
  /// Topology index of the operand node (NonFiniteContribution).
  std::size_t parent() const noexcept { return parent_; }
  /// Operand slot of the edge, 0 for the left operand (NonFiniteContribution).
  std::size_t operand() const noexcept { return operand_; }
  /// Pass adjoint of the consuming result (NonFiniteContribution).
  double upstream() const noexcept { return upstream_; }
  /// Local derivative stored on the edge (NonFiniteContribution).
  double local_derivative() const noexcept { return local_derivative_; }
  /// Topology index of the node that could not accumulate
  /// (NonFinitePassAdjoint, NonFiniteAccumulatedGradient).
  std::size_t node() const noexcept { return node_; }
  /// Pass adjoint before the rejected addition (NonFinitePassAdjoint).
  double previous() const noexcept { return previous_; }
  /// Finite contribution whose addition overflowed (NonFinitePassAdjoint).
  double contribution() const noexcept { return contribution_; }
  /// Stored gradient before the rejected commit (NonFiniteAccumulatedGradient).
  double stored() const noexcept { return stored_; }
  /// Completed pass adjoint of that node (NonFiniteAccumulatedGradient).
  double pass_adjoint() const noexcept { return pass_adjoint_; }

  static ScalarError non_finite_leaf(ScalarOperation operation, double value);
  static ScalarError non_finite_result(ScalarOperation operation, double value);
  static ScalarError untracked_output(ScalarOperation operation);
  static ScalarError non_finite_seed(double seed);
  static ScalarError non_finite_contribution(std::size_t child, std::size_t parent,
                                             std::size_t operand, double upstream,
                                             double local_derivative);
  static ScalarError non_finite_pass_adjoint(std::size_t node, double previous,
                                             double contribution);
  static ScalarError non_finite_accumulated_gradient(std::size_t node, double stored,
                                                     double pass_adjoint);

 private:
  ScalarError(ScalarErrorKind kind, const std::string& message);

  ScalarErrorKind kind_;
  ScalarOperation operation_ = ScalarOperation::Parameter;
  double value_ = 0.0;
  double seed_ = 0.0;
  std::size_t child_ = 0;
  std::size_t parent_ = 0;
  std::size_t operand_ = 0;
  double upstream_ = 0.0;
  double local_derivative_ = 0.0;
  std::size_t node_ = 0;
  double previous_ = 0.0;
  double contribution_ = 0.0;
  double stored_ = 0.0;
  double pass_adjoint_ = 0.0;
};
// endregion: scalar-error-kinds

// region: scalar-backward-record
/// One node of a completed reverse pass, in result-last topological order.
struct BackwardNode {
  std::size_t topology_index;  ///< position in the pass topology; the output is last
  ScalarOperation operation;
  double value;  ///< primal value from the forward evaluation
  bool tracked;
  /// The fresh pass-local adjoint: seed times d(output)/d(node). Empty when untracked.
  std::optional<double> pass_adjoint;
  /// The stored gradient after this pass was committed. Empty when untracked.
  std::optional<double> stored_gradient;
};

/// One operand-use edge, in the order the reverse pass visited it.
struct BackwardEdge {
  std::size_t reverse_index;  ///< 0 for the first edge the pass processed
  std::size_t child;          ///< topology index of the consuming result
  std::size_t parent;         ///< topology index of the operand node
  std::size_t operand;        ///< operand slot: 0 left, 1 right
  double upstream;            ///< pass adjoint of the child (0 for an untracked child)
  double local_derivative;    ///< d(child)/d(this operand use), from forward values
  double contribution;        ///< upstream * local_derivative
  bool parent_tracked;        ///< untracked parents receive nothing
  std::optional<double> parent_adjoint_before;  ///< empty when the parent is untracked
  std::optional<double> parent_adjoint_after;   ///< empty when the parent is untracked
};

/// The record of one committed reverse pass: its seed, every node of the
/// topology and every operand edge in reverse processing order.
struct BackwardPass {
  double seed;
  std::vector<BackwardNode> nodes;
  std::vector<BackwardEdge> edges;
};
// endregion: scalar-backward-record

// region: scalar-handle
/// A handle to one node of a scalar computation graph.
///
/// Copies share the node: `Scalar y = x;` makes `y.is_same_node(x)` true, and a
/// gradient stored through one handle is seen through the other. Nodes live as
/// long as any handle or any result built from them. Operations on a tracked
/// operand yield tracked results; operations on untracked operands only yield
/// untracked results. Values are doubles in the units of the caller's function.
/// Taught in chapter 14.
class Scalar {
 public:
  /// A tracked leaf whose stored gradient starts at 0 (the word for a
  /// tracked leaf on both tapes, docs/naming.md).
  /// @throws ScalarError NonFiniteLeaf if `value` is NaN or infinite.
  static Scalar parameter(double value);

  /// An untracked leaf: backward never stores or propagates an adjoint into it.
  /// @throws ScalarError NonFiniteLeaf if `value` is NaN or infinite.
  static Scalar constant(double value);

  /// `this + other`, recording edges to both operand uses (local derivatives 1, 1).
  /// @throws ScalarError NonFiniteResult if the sum is not finite.
  Scalar add(const Scalar& other) const;
  /// `this * other`, recording edges to both operand uses (local derivatives
  /// `other`, `this`). `x.mul(x)` records two edges to the same node.
  /// @throws ScalarError NonFiniteResult if the product is not finite.
  Scalar mul(const Scalar& other) const;
  /// `-this`, recording one edge (local derivative -1).
  Scalar neg() const;
  /// `this - other`, recording edges to both operand uses (local derivatives 1, -1).
  /// @throws ScalarError NonFiniteResult if the difference is not finite.
  Scalar sub(const Scalar& other) const;
  /// `exp(this)`, recording one edge (local derivative exp(this)).
  /// @throws ScalarError NonFiniteResult if the exponential overflows.
  Scalar exp() const;
  /// `tanh(this)`, recording one edge (local derivative 1 - tanh(this)^2).
  Scalar tanh() const;

  /// A new untracked leaf with this node's value and no parent edge: gradients
  /// stop here, and nothing reaches this node's ancestors through the copy.
  Scalar detach() const;

  double value() const noexcept;
  ScalarOperation operation() const noexcept;
  bool tracks_gradient() const noexcept;
  /// The stored gradient accumulated by committed passes; empty when untracked.
  std::optional<double> gradient() const noexcept;
  /// Whether both handles refer to one graph node (equal values do not count).
  bool is_same_node(const Scalar& other) const noexcept;

  /// backward_with_seed(1.0): adds d(this)/d(node) to every reachable tracked node.
  /// @throws ScalarError as backward_with_seed.
  BackwardPass backward();

  /// Runs one fresh reverse pass from this node and adds its adjoints to the
  /// stored gradients of every reachable tracked node.
  ///
  /// The pass installs `seed` at this node, visits the node-unique topology in
  /// reverse, and adds upstream * local derivative of every operand edge into
  /// pass-local adjoints; stored gradients are never read as inputs.
  /// @throws ScalarError UntrackedOutput if this node is not tracked.
  /// @throws ScalarError NonFiniteSeed if `seed` is NaN or infinite.
  /// @throws ScalarError NonFiniteContribution if an edge's contribution is not finite.
  /// @throws ScalarError NonFinitePassAdjoint if adding a contribution overflows.
  /// @throws ScalarError NonFiniteAccumulatedGradient if a stored gradient plus
  ///         its pass adjoint is not finite.
  /// Postcondition on throw: every stored gradient is bit-for-bit unchanged.
  BackwardPass backward_with_seed(double seed);

  /// Sets the stored gradient of every tracked node reachable from this one to
  /// 0, leaving values, edges and untracked nodes untouched.
  void zero_grad();

 private:
  struct Node;
  struct ParentEdge;

  explicit Scalar(std::shared_ptr<Node> node) noexcept;
  static Scalar leaf(double value, ScalarOperation operation, bool tracked);
  static Scalar result(double value, ScalarOperation operation, std::vector<ParentEdge> parents);
  std::vector<Node*> topology() const;

  std::shared_ptr<Node> node_;
};
// endregion: scalar-handle

}  // namespace llm
