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

#include <array>
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

/// The offending values of a ScalarError; each kind fills the fields listed
/// beside it and leaves the others zero.
struct ScalarErrorEvidence {
  /// Offending operation (NonFiniteLeaf, NonFiniteResult, UntrackedOutput).
  ScalarOperation operation = ScalarOperation::Parameter;
  double value = 0.0;       ///< offending primal value (NonFiniteLeaf, NonFiniteResult)
  double seed = 0.0;        ///< offending seed (NonFiniteSeed)
  std::size_t child = 0;    ///< topology index of the consuming result (NonFiniteContribution)
  std::size_t parent = 0;   ///< topology index of the operand node (NonFiniteContribution)
  std::size_t operand = 0;  ///< operand slot of the edge, 0 = left (NonFiniteContribution)
  double upstream = 0.0;    ///< pass adjoint of the consuming result (NonFiniteContribution)
  double local_derivative = 0.0;  ///< local derivative stored on the edge (NonFiniteContribution)
  /// Topology index of the node that could not accumulate (NonFinitePassAdjoint,
  /// NonFiniteAccumulatedGradient).
  std::size_t node = 0;
  double previous = 0.0;      ///< pass adjoint before the rejected addition (NonFinitePassAdjoint)
  double contribution = 0.0;  ///< finite contribution whose addition overflowed
  double stored = 0.0;        ///< stored gradient before the rejected commit
  double pass_adjoint = 0.0;  ///< completed pass adjoint of that node
};

/// The `scalar-tape` area: each kind's stable name and message, in enum order.
struct ScalarErrorTraits {
  using Kind = ScalarErrorKind;                            ///< the area's kinds
  using Evidence = ScalarErrorEvidence;                    ///< the offending values
  static constexpr std::string_view area = "scalar-tape";  ///< Error::area()
  /// Each kind's stable name and message, in enum order.
  static constexpr std::array<ErrorKindSpec<Kind>, 7> kinds{{
      {Kind::NonFiniteLeaf, "non-finite-leaf", "{operation} scalar value {value} must be finite"},
      {Kind::NonFiniteResult, "non-finite-result",
       "{operation} produced non-finite scalar value {value}"},
      {Kind::UntrackedOutput, "untracked-output",
       "cannot backpropagate from untracked {operation} output"},
      {Kind::NonFiniteSeed, "non-finite-seed", "backward seed {seed} must be finite"},
      {Kind::NonFiniteContribution, "non-finite-contribution",
       "edge {operand} from topology node {child} to {parent} produced a non-finite contribution "
       "from upstream {upstream} and local derivative {local_derivative}"},
      {Kind::NonFinitePassAdjoint, "non-finite-pass-adjoint",
       "topology node {node} cannot accumulate pass adjoint {previous} plus contribution "
       "{contribution}"},
      {Kind::NonFiniteAccumulatedGradient, "non-finite-accumulated-gradient",
       "topology node {node} cannot accumulate stored gradient {stored} plus pass adjoint "
       "{pass_adjoint}"},
  }};
  /// A field as the message prints it.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};

/// An error from scalar graph construction or backpropagation (area `scalar-tape`).
///
/// Each kind fills the evidence fields listed beside it; the others are zero.
/// Topology indices count nodes in the result-last order of the failed pass.
/// Every throw happens while validating, so stored gradients, values and graph
/// state are bit-for-bit what they were before the call.
class ScalarError : public KindedError<ScalarErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw ScalarError(ScalarErrorKind::..., {.field = value});`
  explicit ScalarError(ScalarErrorKind kind, ScalarErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}

  /// Offending operation (NonFiniteLeaf, NonFiniteResult, UntrackedOutput).
  ScalarOperation operation() const noexcept { return evidence().operation; }
  /// Offending primal value (NonFiniteLeaf, NonFiniteResult).
  double value() const noexcept { return evidence().value; }
  /// Offending seed (NonFiniteSeed).
  double seed() const noexcept { return evidence().seed; }
  /// Topology index of the consuming result (NonFiniteContribution).
  std::size_t child() const noexcept { return evidence().child; }
  /// Topology index of the operand node (NonFiniteContribution).
  std::size_t parent() const noexcept { return evidence().parent; }
  /// Operand slot of the edge, 0 for the left operand (NonFiniteContribution).
  std::size_t operand() const noexcept { return evidence().operand; }
  /// Pass adjoint of the consuming result (NonFiniteContribution).
  double upstream() const noexcept { return evidence().upstream; }
  /// Local derivative stored on the edge (NonFiniteContribution).
  double local_derivative() const noexcept { return evidence().local_derivative; }
  /// Topology index of the node that could not accumulate
  /// (NonFinitePassAdjoint, NonFiniteAccumulatedGradient).
  std::size_t node() const noexcept { return evidence().node; }
  /// Pass adjoint before the rejected addition (NonFinitePassAdjoint).
  double previous() const noexcept { return evidence().previous; }
  /// Finite contribution whose addition overflowed (NonFinitePassAdjoint).
  double contribution() const noexcept { return evidence().contribution; }
  /// Stored gradient before the rejected commit (NonFiniteAccumulatedGradient).
  double stored() const noexcept { return evidence().stored; }
  /// Completed pass adjoint of that node (NonFiniteAccumulatedGradient).
  double pass_adjoint() const noexcept { return evidence().pass_adjoint; }
};
// endregion: scalar-error-kinds

// region: scalar-backward-record
/// One node of a completed reverse pass, in result-last topological order.
struct BackwardNode {
  std::size_t topology_index;  ///< position in the pass topology; the output is last
  ScalarOperation operation;   ///< the operation that produced the node
  double value;                ///< primal value from the forward evaluation
  bool tracked;                ///< whether the node has a stored gradient
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
  double seed;                      ///< the value installed at the output
  std::vector<BackwardNode> nodes;  ///< the topology, result last
  std::vector<BackwardEdge> edges;  ///< every operand use, in processing order
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

  /// The primal value computed when the node was made.
  double value() const noexcept;
  /// The operation that produced the node.
  ScalarOperation operation() const noexcept;
  /// Whether the node has a stored gradient (parameters and their descendants).
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
