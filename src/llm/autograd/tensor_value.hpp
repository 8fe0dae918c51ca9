// The tensor tape: reverse-mode automatic differentiation with one graph node
// per tensor operation. Taught in chapter 15 and extended by chapter 16.
//
// Chapter 14 kept one node per scalar; here a node holds a whole tensor, and
// each operand use carries a vector-Jacobian product (VJP): a local rule that
// maps the consumer's adjoint (the shape of the result) back to an adjoint with
// exactly the shape of that operand. One reverse pass from output o with seed S
// computes, for every node v of o's dependency subgraph,
//
//     bar(v) = S·[v = o] + Σ_{e ∈ E_o(v)} VJP_e( bar(c(e)) )
//
// where E_o(v) are the operand-use edges leaving v, c(e) the consuming result
// and VJP_e that operation's rule for that operand slot. The rules of chapter
// 14 carry over unchanged: each node is visited once in reverse topological
// order, every operand use contributes once (x*x sends two contributions to
// x), pass adjoints are fresh for every pass, stored gradients (parameters
// only) are accumulated only after the whole pass validated, zeroing is
// explicit, and detached values stop the flow.
//
// Values on the tape are SharedTensor handles (immutable storage + layout),
// so reshape, transpose, permute, slice and broadcast_to share their
// operand's storage in O(rank), and value() returns a handle that stays valid
// whatever happens to the node later. Operations are added through the
// recorder (recorder.hpp): the chapter 15 and 16 operations below are
// members, later chapters add free functions in their own files. The data
// model, graph lifetime and the concurrency contract are written down in
// docs/data-model.md. Shapes use the legend of src/llm/tensor/shape.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "llm/error.hpp"
#include "llm/tensor/index_span.hpp"
#include "llm/tensor/reduction.hpp"
#include "llm/tensor/shared_tensor.hpp"
#include "llm/tensor/tensor.hpp"

namespace llm {

// region: tensor-operations
/// The operation that produced a tensor-tape node: a name that traces and
/// messages print. The set is open: a later chapter declares its own, e.g.
/// `inline constexpr TensorOperation kRmsNorm{"rms_norm"};`, next to the
/// operation in its own header. Two operations are equal when their names are.
class TensorOperation {
 public:
  /// `name` must outlive the program's use of it: pass a string literal.
  constexpr explicit TensorOperation(std::string_view name) noexcept : name_(name) {}
  /// The stable, locale-neutral name, e.g. `mul` or `log_softmax`.
  constexpr std::string_view name() const noexcept { return name_; }
  /// Equal when the names are equal.
  friend constexpr bool operator==(TensorOperation a, TensorOperation b) noexcept {
    return a.name_ == b.name_;
  }

  static const TensorOperation Parameter;       ///< tracked leaf that stores a gradient
  static const TensorOperation Constant;        ///< untracked leaf
  static const TensorOperation Detached;        ///< untracked leaf sharing another node's value
  static const TensorOperation Reshape;         ///< same values, new shape (shares storage)
  static const TensorOperation Transpose;       ///< two axes swapped (shares storage)
  static const TensorOperation Permute;         ///< axes reordered (shares storage)
  static const TensorOperation Slice;           ///< a range of one axis (shares storage)
  static const TensorOperation BroadcastTo;     ///< repeated along broadcast axes (shares storage)
  static const TensorOperation Materialize;     ///< a contiguous copy
  static const TensorOperation Add;             ///< elementwise sum with broadcasting
  static const TensorOperation Mul;             ///< elementwise product with broadcasting
  static const TensorOperation SumAxis;         ///< sum along one axis
  static const TensorOperation MeanAxis;        ///< mean along one axis
  static const TensorOperation MatMul;          ///< batched matrix product (chapter 16)
  static const TensorOperation GatherRows;      ///< rows selected by token IDs (chapter 16)
  static const TensorOperation Exp;             ///< elementwise exponential (chapter 16)
  static const TensorOperation Log;             ///< elementwise natural logarithm (chapter 16)
  static const TensorOperation Silu;            ///< elementwise x * sigmoid(x) (chapter 16)
  static const TensorOperation LogSoftmax;      ///< stable log-softmax along one axis (chapter 16)
  static const TensorOperation IndexedMeanNll;  ///< mean NLL of target classes (chapter 16)

 private:
  std::string_view name_;
};

inline constexpr TensorOperation TensorOperation::Parameter{"parameter"};
inline constexpr TensorOperation TensorOperation::Constant{"constant"};
inline constexpr TensorOperation TensorOperation::Detached{"detached"};
inline constexpr TensorOperation TensorOperation::Reshape{"reshape"};
inline constexpr TensorOperation TensorOperation::Transpose{"transpose"};
inline constexpr TensorOperation TensorOperation::Permute{"permute"};
inline constexpr TensorOperation TensorOperation::Slice{"slice"};
inline constexpr TensorOperation TensorOperation::BroadcastTo{"broadcast_to"};
inline constexpr TensorOperation TensorOperation::Materialize{"materialize"};
inline constexpr TensorOperation TensorOperation::Add{"add"};
inline constexpr TensorOperation TensorOperation::Mul{"mul"};
inline constexpr TensorOperation TensorOperation::SumAxis{"sum_axis"};
inline constexpr TensorOperation TensorOperation::MeanAxis{"mean_axis"};
inline constexpr TensorOperation TensorOperation::MatMul{"matmul"};
inline constexpr TensorOperation TensorOperation::GatherRows{"gather_rows"};
inline constexpr TensorOperation TensorOperation::Exp{"exp"};
inline constexpr TensorOperation TensorOperation::Log{"log"};
inline constexpr TensorOperation TensorOperation::Silu{"silu"};
inline constexpr TensorOperation TensorOperation::LogSoftmax{"log_softmax"};
inline constexpr TensorOperation TensorOperation::IndexedMeanNll{"indexed_mean_nll"};

/// What a reverse pass does with the graph it reversed, once it has succeeded.
enum class Retention {
  Retain,   ///< keep every edge, VJP and saved tensor: the graph may be reversed again
  Release,  ///< drop them: the graph keeps only the values handles still name, and
            ///< a later pass through these nodes fails with ReleasedGraph
};
// endregion: tensor-operations

// region: tensor-autodiff-errors
/// What went wrong while building or reversing a tensor tape. Shape errors of
/// the operations themselves are thrown as TensorError by the tensor kernels.
enum class TensorAutodiffErrorKind {
  NonFiniteLeaf,                 ///< a parameter, constant or assigned value is NaN or infinite
  NonFiniteResult,               ///< an operation's forward result is NaN or infinite
  UntrackedOutput,               ///< a reverse pass starts from a node that tracks no gradient
  NonScalarOutput,               ///< backward() without a seed on an output of rank above zero
  SeedShapeMismatch,             ///< the seed's shape differs from the output's shape
  NonFiniteSeed,                 ///< the seed holds NaN or an infinity
  ReleasedGraph,                 ///< a pass reaches a node whose graph was released
  StaleOperand,                  ///< a parameter operand was assigned after it was recorded
  NotAParameter,                 ///< assign() on a node that is not a parameter
  AssignShapeMismatch,           ///< assign() with a value of another shape
  ContributionShapeMismatch,     ///< a VJP returned a shape other than its operand's
  NonFiniteContribution,         ///< a VJP returned NaN or an infinity
  NonFinitePassAdjoint,          ///< adding a contribution to a pass adjoint overflowed
  NonFiniteAccumulatedGradient,  ///< adding the pass adjoint to a stored gradient overflowed
  NotOneElement,                 ///< item() on a value with zero or several elements
};

/// The offending values of a TensorAutodiffError; a kind leaves the fields it
/// does not use empty or zero.
struct TensorAutodiffErrorEvidence {
  /// The operation the message names (the consumer, the output or the leaf);
  /// a parameter unless the kind names another.
  TensorOperation operation = TensorOperation::Parameter;
  /// Topological index (in the failing pass) of the node the message names;
  /// for ReleasedGraph, the index the node had in the pass that released it.
  std::size_t node = 0;
  std::string label{};      ///< the label of that node (TensorValue::labeled), or empty
  std::size_t parent = 0;   ///< topological index of the operand node of a failing edge
  std::size_t operand = 0;  ///< operand slot of a failing edge (0 = left/first operand)
  Shape shape{};            ///< the offending shape: seed, assigned value, output or contribution
  Shape expected_shape{};   ///< the shape that was required
  std::vector<std::size_t> coordinate{};  ///< coordinate of the first offending element
  double value = 0.0;        ///< the offending value, or the stored/previous value of a failed sum
  double other_value = 0.0;  ///< the second term of a failed sum (contribution or pass adjoint)
  std::uint64_t recorded_version = 0;  ///< the operand version an edge recorded (StaleOperand)
  std::uint64_t current_version = 0;   ///< the operand's version when the pass found it
};

/// The `tensor-tape` area: each kind's stable name and message, in enum order.
struct TensorAutodiffErrorTraits {
  using Kind = TensorAutodiffErrorKind;                    ///< the area's kinds
  using Evidence = TensorAutodiffErrorEvidence;            ///< the offending values
  static constexpr std::string_view area = "tensor-tape";  ///< Error::area()
  /// Each kind's stable name and message, in enum order. `{named_node}` is the
  /// node's operation and index, with its label if it has one: `mean_axis node 7 ("loss")`.
  static constexpr std::array<ErrorKindSpec<Kind>, 15> kinds{{
      {Kind::NonFiniteLeaf, "non-finite-leaf",
       "{operation} value {value} at coordinate {coordinate} of shape {shape} must be finite"},
      {Kind::NonFiniteResult, "non-finite-result",
       "{operation} produced non-finite value {value} at coordinate {coordinate} of shape {shape}"},
      {Kind::UntrackedOutput, "untracked-output",
       "cannot backpropagate from untracked {operation} output"},
      {Kind::NonScalarOutput, "non-scalar-output",
       "backward() seeds 1 only for a rank-zero output, but the {operation} output has shape "
       "{shape}; pass a seed of that shape to backward_with_seed"},
      {Kind::SeedShapeMismatch, "seed-shape-mismatch",
       "backward seed shape {shape} does not match {operation} output shape {expected_shape}"},
      {Kind::NonFiniteSeed, "non-finite-seed",
       "backward seed value {value} at coordinate {coordinate} for the {operation} output must be "
       "finite"},
      {Kind::ReleasedGraph, "released-graph",
       "cannot reverse {named_node}: an earlier backward pass released its saved context"},
      {Kind::StaleOperand, "stale-operand",
       "{named_node} recorded operand {operand} (node {parent}) at version {recorded_version}, but "
       "that parameter was assigned since and is at version {current_version}"},
      {Kind::NotAParameter, "not-a-parameter",
       "assign() replaces parameter values only, not a {operation} value"},
      {Kind::AssignShapeMismatch, "assign-shape-mismatch",
       "assigned value of shape {shape} does not match parameter shape {expected_shape}"},
      {Kind::ContributionShapeMismatch, "contribution-shape-mismatch",
       "VJP of {named_node} for operand {operand} (node {parent}) returned shape {shape}, but the "
       "operand has shape {expected_shape}"},
      {Kind::NonFiniteContribution, "non-finite-contribution",
       "VJP of {named_node} for operand {operand} (node {parent}) produced non-finite contribution "
       "{value} at coordinate {coordinate}"},
      {Kind::NonFinitePassAdjoint, "non-finite-pass-adjoint",
       "{named_node} cannot accumulate pass adjoint {value} plus contribution {other_value} at "
       "coordinate {coordinate}"},
      {Kind::NonFiniteAccumulatedGradient, "non-finite-accumulated-gradient",
       "{named_node} cannot accumulate stored gradient {value} plus pass adjoint {other_value} at "
       "coordinate {coordinate}"},
      {Kind::NotOneElement, "not-one-element",
       "item() reads a value of exactly one element, but the {operation} value has shape {shape}"},
  }};
  /// A field as the message prints it, or `named_node`.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};

/// An error of the tensor tape (area `tensor-tape`). It is thrown only while
/// validating, before any gradient, value or retention state changes: after
/// it, every stored gradient, every value and every node's retention state is
/// bit-for-bit as before the call. Fields a kind does not use are empty or zero.
class TensorAutodiffError : public KindedError<TensorAutodiffErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw TensorAutodiffError(TensorAutodiffErrorKind::..., {.field = value});`
  explicit TensorAutodiffError(TensorAutodiffErrorKind kind,
                               TensorAutodiffErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}

  /// The operation the message names (the consumer, the output or the leaf).
  TensorOperation operation() const noexcept { return evidence().operation; }
  /// Topological index (in the failing pass) of the node the message names;
  /// for ReleasedGraph, the index the node had in the pass that released it.
  std::size_t node() const noexcept { return evidence().node; }
  /// The label of that node (TensorValue::labeled), empty if it has none.
  const std::string& label() const noexcept { return evidence().label; }
  /// Topological index of the operand node of a failing edge.
  std::size_t parent() const noexcept { return evidence().parent; }
  /// Operand slot of a failing edge (0 = left/first operand).
  std::size_t operand() const noexcept { return evidence().operand; }
  /// The offending shape: seed, assigned value, output or contribution.
  const Shape& shape() const noexcept { return evidence().shape; }
  /// The shape that was required.
  const Shape& expected_shape() const noexcept { return evidence().expected_shape; }
  /// Coordinate of the first offending element.
  const std::vector<std::size_t>& coordinate() const noexcept { return evidence().coordinate; }
  /// The offending value, or the stored/previous value of a failed sum.
  double value() const noexcept { return evidence().value; }
  /// The second term of a failed sum (contribution or pass adjoint).
  double other_value() const noexcept { return evidence().other_value; }
  /// The operand version an edge recorded (StaleOperand).
  std::uint64_t recorded_version() const noexcept { return evidence().recorded_version; }
  /// The operand's version when the pass found it (StaleOperand).
  std::uint64_t current_version() const noexcept { return evidence().current_version; }
};
// endregion: tensor-autodiff-errors

// region: tensor-backward-trace
/// One node of a traced reverse pass, in topological order (operands first,
/// the output last).
struct TensorTraceNode {
  std::size_t index = 0;                                  ///< topological index in this pass
  std::uint64_t node_id = 0;                              ///< TensorValue::node_id() of the node
  TensorOperation operation = TensorOperation::Constant;  ///< what produced the node
  std::string label;                                      ///< TensorValue::label() of the node
  Shape shape;                                            ///< shape of the value
  Tensor value;                                           ///< the forward value (a row-major copy)
  bool tracked = false;                                   ///< whether the node tracks a gradient
  std::vector<std::size_t> operands;   ///< topological index of each operand slot
  std::optional<Tensor> pass_adjoint;  ///< bar(v) of this pass; absent if untracked
  std::optional<Tensor> gradient;      ///< stored gradient after the commit (parameters)
};

/// One operand-use edge of a traced reverse pass, in the order the pass
/// applied it: consumers from the output backwards, slots in order.
struct TensorTraceEdge {
  std::size_t reverse_index = 0;       ///< position in the reverse ledger
  std::size_t child = 0;               ///< topological index of the consuming result c(e)
  std::size_t parent = 0;              ///< topological index of the operand
  std::size_t operand = 0;             ///< operand slot inside the consumer
  std::string rule;                    ///< the VJP rule's name, e.g. "sum to operand shape"
  Tensor upstream;                     ///< bar(c(e)), shape of the consumer
  std::optional<Tensor> contribution;  ///< VJP_e(upstream); absent if the operand is untracked
  Shape parent_shape;                  ///< shape of the operand (and of the contribution)
  bool parent_tracked = false;         ///< whether the operand tracks a gradient
};

/// Everything one reverse pass computed, recorded while it ran (tracing never
/// recomputes a VJP). Used by chapter 16 to read intermediate adjoints and by
/// the figures of chapters 15 and 16.
struct TensorBackwardTrace {
  Tensor seed;                              ///< S, shape of the output
  Retention retention = Retention::Retain;  ///< what the pass did with the graph
  std::vector<TensorTraceNode> nodes;       ///< topological order, output last
  std::vector<TensorTraceEdge> edges;       ///< reverse ledger

  /// The pass adjoint of the first tracked node in topological order that
  /// `operation` produced, or nullptr if there is none. The pointer is valid
  /// while this trace lives.
  const Tensor* pass_adjoint(TensorOperation operation) const noexcept;
  /// The trace node of `node_id`, or nullptr if the pass did not visit it.
  const TensorTraceNode* find(std::uint64_t node_id) const noexcept;
};
// endregion: tensor-backward-trace

struct RecordedOperand;
class PreparedAssignment;

// region: tensor-value-class
/// A handle to one node of the tensor tape: a value, the operation that made
/// it, and for each operand slot the operand and its VJP. Copies of a handle
/// share the node. Parameters are tracked leaves that store a gradient;
/// results of operations are tracked when an operand is; constants and
/// detached values are not. A tape is used by one thread at a time (see
/// docs/data-model.md, concurrency). Taught in chapter 15; chapter 16 adds
/// model operations (see the file head).
class TensorValue {
 public:
  // --- Leaves -------------------------------------------------------------

  /// A tracked leaf with a zero gradient of the same shape.
  /// @throws TensorAutodiffError NonFiniteLeaf naming the first non-finite element.
  static TensorValue parameter(Tensor value);

  /// An untracked leaf: gradients never flow into it.
  /// @throws TensorAutodiffError NonFiniteLeaf naming the first non-finite element.
  static TensorValue constant(Tensor value);

  /// An untracked leaf that shares `value`'s storage and layout, copying
  /// nothing: how a key/value cache's prefix reaches the tape (chapter 37).
  /// The value is still checked, so the finite-tape rule holds.
  /// @throws TensorAutodiffError NonFiniteLeaf naming the first non-finite element.
  static TensorValue constant(SharedTensor value);

  // --- Reading a node --------------------------------------------------------

  /// The forward value: an owning, immutable handle (no copy). It keeps the
  /// value it was read as even after assign() installs a new one, and stays
  /// valid after every handle to the node is gone.
  SharedTensor value() const noexcept;
  /// The value's shape (a copy: the node may be reassigned meanwhile).
  Shape shape() const;
  /// The value of a node holding exactly one element, whatever its rank
  /// ([], [1], [1, 1]): a loss to print or log, e.g. `loss.item()`.
  /// @throws TensorAutodiffError NotOneElement naming the shape.
  double item() const;
  /// The value's rank.
  std::size_t rank() const noexcept;
  /// The operation that produced the node.
  TensorOperation operation() const noexcept;
  /// Whether gradients flow into this node (parameters and their descendants).
  bool tracks_gradient() const noexcept;
  /// Whether the node is a parameter: a tracked leaf with a stored gradient.
  bool is_parameter() const noexcept;
  /// Whether a Release pass dropped this node's edges and saved context.
  bool is_released() const noexcept;
  /// Incremented by every assign(); operations record it (stale-operand guard).
  std::uint64_t version() const noexcept;
  /// A process-unique identifier of the node, increasing in creation order.
  std::uint64_t node_id() const noexcept;
  /// Whether both handles refer to the same node (equal values are not enough).
  bool is_same_node(const TensorValue& other) const noexcept;
  /// The stored gradient (shape of the value); absent unless this is a parameter.
  /// The reference reads the node itself: it stays valid while any handle to
  /// the node lives and shows later passes' updates (which add in place). Use
  /// gradient_snapshot() to keep the gradient of one moment.
  const std::optional<Tensor>& gradient() const noexcept;
  /// A copy of the stored gradient; absent unless this is a parameter.
  std::optional<Tensor> gradient_snapshot() const;

  /// The node's label (empty unless labeled() gave it one).
  const std::string& label() const noexcept;
  /// Gives the node a label that errors and traces print (e.g. `loss`) and
  /// returns a handle to the same node. A label changes no value, gradient
  /// or graph state.
  TensorValue labeled(std::string label) const;

  // --- Changing a parameter ----------------------------------------------------

  /// Replaces a parameter's value (an optimizer step) and increments its
  /// version; the gradient is kept. A later pass through an operation that
  /// recorded the old version fails with StaleOperand. Handles returned by
  /// value() before the call keep the old value.
  /// @throws TensorAutodiffError NotAParameter, AssignShapeMismatch, or NonFiniteLeaf.
  void assign(Tensor value);

  // region: prepared-assignment-declarations
  /// The first half of assign(), for updating many parameters all or nothing
  /// (chapter 17): checks `value` exactly as assign() does and stores it,
  /// changing nothing. commit_assignment() then installs it without throwing.
  /// @throws TensorAutodiffError NotAParameter, AssignShapeMismatch, or NonFiniteLeaf.
  PreparedAssignment prepare_assignment(Tensor value) const;
  /// Like prepare_assignment, for a restore: `value` (any layout, e.g. a
  /// value() read earlier) and `gradient` replace the value and the stored
  /// gradient together (chapter 17).
  /// @throws TensorAutodiffError NotAParameter, AssignShapeMismatch (value or
  ///         gradient), or NonFiniteLeaf (value or gradient).
  PreparedAssignment prepare_restore(SharedTensor value, Tensor gradient) const;
  /// The second half: installs a prepared value (and gradient) and increments
  /// the parameter's version, as assign() does. Swaps handles only, so it
  /// cannot throw. A prepared assignment is installed once; committing it
  /// again does nothing.
  static void commit_assignment(PreparedAssignment& prepared) noexcept;
  // endregion: prepared-assignment-declarations

  /// A new untracked leaf sharing the same value (no copy) and no operand:
  /// the gradient flow stops here.
  TensorValue detach() const;

  // --- Operations -------------------------------------------------------------
  // Each returns a new node whose value the tensor kernel computed; it tracks
  // a gradient when an operand does and no NoGradScope is active. A kernel's
  // shape error propagates as TensorError before anything is recorded. Each
  // operation's VJP is defined beside it, in the source file named below.

  // --- Structural operations (tensor_structural_ops.cpp) ---------------------
  // Each shares the operand's storage in O(rank); its VJP applies the inverse
  // layout change to the upstream adjoint.

  /// The same values viewed as `shape` (equal element count): [2, 3] -> [3, 2].
  /// Shares storage; a non-contiguous value (after transpose, say) must be
  /// materialize()d first. VJP: the upstream reshaped back to this node's shape.
  /// @throws TensorError ShapeOverflow, ReshapeCountMismatch, NonContiguousReshape.
  TensorValue reshape(const Shape& shape) const;
  /// Axes `axis_a` and `axis_b` swapped: [2, 3] with (0, 1) -> [3, 2], sharing
  /// storage. VJP: the upstream with the same two axes swapped back.
  /// @throws TensorError InvalidAxis.
  TensorValue transpose(std::size_t axis_a, std::size_t axis_b) const;
  /// Axes reordered: result axis i is axis `axes[i]` ([B, T, H, D] with
  /// [0, 2, 1, 3] -> [B, H, T, D]), sharing storage. VJP: the inverse permutation.
  /// @throws TensorError InvalidPermutation.
  TensorValue permute(const Axes& axes) const;
  /// Positions [start, end) of `axis`, sharing storage ([T, C] rows 2..5 ->
  /// [3, C]). VJP: the upstream placed into zeros of this node's shape.
  /// @throws TensorError InvalidAxis or InvalidSlice.
  TensorValue slice(std::size_t axis, std::size_t start, std::size_t end) const;
  /// The value repeated to `shape` under NumPy broadcasting ([3] -> [2, 3]),
  /// sharing storage (stride 0). VJP: the upstream summed over the broadcast
  /// axes back to this node's shape.
  /// @throws TensorError IncompatibleBroadcast, or ShapeOverflow.
  TensorValue broadcast_to(const Shape& shape) const;
  /// A row-major contiguous copy of the value (the only copying structural
  /// operation). VJP: the upstream unchanged.
  /// @throws TensorError AllocationFailed.
  TensorValue materialize() const;

  // --- Elementwise arithmetic (tensor_arithmetic_ops.cpp) ----------------------

  /// this + other in their broadcast shape ([2, 3] + [3] -> [2, 3]; [] + [n] -> [n]).
  /// VJP for each operand: the upstream summed to that operand's shape.
  /// @throws TensorError IncompatibleBroadcast.
  /// @throws TensorAutodiffError NonFiniteResult if a sum overflows.
  TensorValue add(const TensorValue& other) const;
  /// this * other in their broadcast shape. VJP for each operand: upstream
  /// times the other operand, summed to this operand's shape; it saves both
  /// operand values (shared with their nodes, not copied).
  /// @throws TensorError IncompatibleBroadcast.
  /// @throws TensorAutodiffError NonFiniteResult if a product overflows.
  TensorValue mul(const TensorValue& other) const;

  // --- Reductions (tensor_reduction_ops.cpp) -----------------------------------

  /// Sum along `axis`: [2, 3] along 1 gives [2], or [2, 1] with KeepDim::Yes.
  /// VJP: the upstream repeated along `axis` back to this node's shape.
  /// @throws TensorError InvalidAxis.
  /// @throws TensorAutodiffError NonFiniteResult if a sum overflows.
  TensorValue sum_axis(std::size_t axis, KeepDim keep_dim = KeepDim::No) const;
  /// Arithmetic mean along `axis` of extent n; shapes as for sum_axis.
  /// VJP: the upstream repeated along `axis` and divided by n.
  /// @throws TensorError InvalidAxis or EmptyAxis.
  /// @throws TensorAutodiffError NonFiniteResult if a sum overflows.
  TensorValue mean_axis(std::size_t axis, KeepDim keep_dim = KeepDim::No) const;

  // --- Model operations (chapter 16) -------------------------------------------
  // Declared here, defined beside their VJPs in src/llm/autograd/model_ops.cpp
  // (matmul, gather_rows), model_activation_ops.cpp (exp, log, silu) and
  // model_probability_ops.cpp (log_softmax, indexed_mean_nll). ModelOpError
  // is in model_ops.hpp. Later chapters write their operations as free
  // functions instead (recorder.hpp).

  // region: model-operation-declarations
  /// The matrix product over the last two axes, batch axes broadcast (chapter 16):
  /// this [..., M, K] times other [..., K, N] gives [batch..., M, N]
  /// ([B, T, C] times [C, V] gives [B, T, V]). VJPs: dA = dC B^T and
  /// dB = A^T dC (B^T and A^T are strided views, not copies), each summed
  /// over the batch axes its operand was broadcast along, back to that
  /// operand's shape. For a rank-two B shared by every batch, dB is one
  /// product over A's rows with its batch axes folded in: each element adds
  /// its products in row-major (batch, row) order from 0.0. Saves both
  /// operand values (shared).
  /// @throws TensorError MatMulRank, MatMulInnerMismatch, IncompatibleBroadcast.
  /// @throws TensorAutodiffError NonFiniteResult if a product sum overflows.
  TensorValue matmul(const TensorValue& other) const;

  /// Rows of this table [R, D] selected by `ids`, laid out as `index_shape`
  /// (chapter 16): the result is index_shape + [D] ([B, T] token IDs give
  /// [B, T, D]) and owns copies of the rows. `ids` are std::size_t or the
  /// tokenizer's TokenId (IndexSpan), read without a conversion copy. IDs
  /// choose destinations; they are not operands and receive no gradient. VJP: each output row's
  /// adjoint is added into the table row its ID selected (repeated IDs accumulate, no mean).
  /// Validation order as RowGatherPlan::checked (model_ops.hpp).
  /// @throws ModelOpError GatherTableRank, GatherIndexCountMismatch,
  ///         GatherIndexOutOfBounds (the first bad ID in flat order).
  /// @throws TensorError ShapeOverflow for index_shape or the output shape.
  TensorValue gather_rows(IndexSpan ids, const Shape& index_shape) const;

  /// e^x elementwise, same shape (chapter 16). VJP: upstream times the saved output.
  /// @throws TensorAutodiffError NonFiniteResult if e^x overflows (x > ~709.78).
  TensorValue exp() const;

  /// ln x elementwise (natural log), same shape (chapter 16); every x must be positive.
  /// VJP: upstream divided by the saved input.
  /// @throws ModelOpError LogNonPositiveInput naming the first x <= 0 in
  ///         row-major order (ln 0 = -inf and ln of a negative number is
  ///         undefined, so this is a domain error of the operation, reported
  ///         before anything is computed).
  TensorValue log() const;

  /// SiLU x * sigmoid(x) elementwise with the stable sigmoid, same shape
  /// (chapter 16); finite for every finite x (silu(-1000) = -0, silu(1000) = 1000).
  /// VJP: upstream * sigmoid(x) * (1 + x (1 - sigmoid(x))) from the saved input.
  TensorValue silu() const;

  /// Stable log-softmax along `axis` (V classes), same shape [..., V, ...] (chapter 16).
  /// One checked forward call emits the log-probabilities and, from the same
  /// per-group statistics, the probabilities P, which are saved: the VJP
  /// dx = g - P * sum_axis(g) never normalizes again. Finite for logits of +-1000.
  /// @throws TensorError InvalidAxis, EmptyAxis.
  TensorValue log_softmax(std::size_t axis) const;

  /// Mean negative log-likelihood [] of `targets` (chapter 16): one class per
  /// group of the class axis `axis`, in flat group order; the loss is
  /// (1/G) sum_g -log P[g, t_g], natural log. `targets` are std::size_t or
  /// TokenId (IndexSpan).
  /// One checked forward call emits the loss and the probabilities P, which
  /// are saved: dZ[g, c] = (L/G) (P[g, c] - [c = t_g]) with L the upstream.
  /// @throws TensorError InvalidAxis, EmptyAxis, TargetCountMismatch,
  ///         EmptyTargets, TargetOutOfRange (first failing group), in that order.
  TensorValue indexed_mean_nll(std::size_t axis, IndexSpan targets) const;
  // endregion: model-operation-declarations

  // --- Reverse passes (tensor_backward.cpp) ----------------------------------

  /// One reverse pass from this rank-zero output with seed 1; adds the pass
  /// adjoint of every reachable parameter to its gradient. The graph is
  /// released afterwards unless `retention` is Retention::Retain, so a loss
  /// kept for logging keeps one node, not its graph (a second pass through
  /// the same graph, or zero_grad() through it, needs Retain).
  /// @throws TensorAutodiffError UntrackedOutput, NonScalarOutput, and the
  ///         kinds of backward_with_seed.
  void backward(Retention retention = Retention::Release) const;

  /// One reverse pass from this output of any shape with seed `seed`.
  /// Postcondition on success: every reachable parameter's gradient grew by
  /// its pass adjoint (added in place), and with Retention::Release every
  /// reached operation dropped its edges and saved context, so the graph
  /// holds nothing but the values that handles still name. On any throw
  /// nothing changed.
  /// @throws TensorAutodiffError UntrackedOutput, SeedShapeMismatch (the seed
  ///         must have exactly this node's shape), NonFiniteSeed, ReleasedGraph,
  ///         StaleOperand, ContributionShapeMismatch, NonFiniteContribution,
  ///         NonFinitePassAdjoint, NonFiniteAccumulatedGradient.
  void backward_with_seed(const Tensor& seed, Retention retention) const;

  /// backward() that also returns the trace of the pass (releasing the graph
  /// afterwards unless `retention` is Retention::Retain).
  TensorBackwardTrace backward_with_trace(Retention retention = Retention::Release) const;

  /// backward_with_seed() that also returns the trace of the pass: the same
  /// reverse implementation, recording what it computes.
  TensorBackwardTrace backward_with_trace(const Tensor& seed, Retention retention) const;

  /// Sets the gradient of every parameter reachable from this node to zero,
  /// in place; values and the graph are unchanged. Never throws after it has
  /// found the reachable nodes. A released graph reaches only its output.
  void zero_grad() const;

  /// Tape nodes alive in the process (test hook for graph lifetime). Exact
  /// when no other thread is creating or freeing nodes at the same moment.
  static std::size_t live_node_count() noexcept;

 private:
  struct Node;
  friend TensorValue record_operation(TensorOperation operation, SharedTensor value,
                                      std::span<RecordedOperand> operands);

  explicit TensorValue(std::shared_ptr<Node> node) noexcept;

  // region: gradient-transform-hook
  /// The one door to a stored gradient besides the reverse pass and
  /// zero_grad(): ParameterSet (chapter 33's clipping) rescales it in place,
  /// every element g becoming (g / divisor) * multiplier. A transform of the
  /// gradient is not a new value, so the version stays and graphs recorded
  /// before stay valid. The caller has checked that every result is finite;
  /// a node without a gradient is left alone. gradient() stays const for
  /// everyone else.
  friend class ParameterSet;
  void scale_gradient_in_place(double multiplier, double divisor) const noexcept;
  // endregion: gradient-transform-hook

  /// The one reverse-pass implementation behind backward(), backward_with_seed()
  /// and backward_with_trace() (tensor_backward.cpp).
  class ReversePass;
  /// Rejects an untracked or non-rank-zero output before backward()'s default seed.
  void require_scalar_output() const;

  std::shared_ptr<Node> node_;
};
// endregion: tensor-value-class

// region: prepared-assignment
/// A parameter's replacement value, already checked and stored by
/// TensorValue::prepare_assignment or prepare_restore, waiting for
/// TensorValue::commit_assignment (chapter 17). Only the tape makes one.
class PreparedAssignment {
 public:
  /// The parameter the value is for.
  const TensorValue& parameter() const noexcept { return parameter_; }
  /// Whether commit_assignment() has installed it already.
  bool committed() const noexcept { return committed_; }

 private:
  friend class TensorValue;
  PreparedAssignment(TensorValue parameter, SharedTensor value,
                     std::optional<Tensor> gradient) noexcept
      : parameter_(std::move(parameter)),
        value_(std::move(value)),
        gradient_(std::move(gradient)) {}

  TensorValue parameter_;
  SharedTensor value_;
  std::optional<Tensor> gradient_;  // present for a restore
  bool committed_ = false;
};
// endregion: prepared-assignment

// region: no-grad-scope
/// While an object of this type lives, operations on the current thread record
/// no graph: their results are untracked nodes without operands, as in
/// inference. Scopes nest; leaves and reverse passes are unaffected.
/// Taught in chapter 15.
class NoGradScope {
 public:
  NoGradScope() noexcept;
  ~NoGradScope();
  NoGradScope(const NoGradScope&) = delete;
  NoGradScope& operator=(const NoGradScope&) = delete;

  /// Whether a NoGradScope is alive on the current thread.
  static bool active() noexcept;
};
// endregion: no-grad-scope

}  // namespace llm
