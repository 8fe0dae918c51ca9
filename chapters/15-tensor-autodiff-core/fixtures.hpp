// The worked graphs of chapter 15: the shared tensor fixture with its
// handwritten fixed-shape baseline and its retain/zero/release lifecycle;
// detach; the seven sampled VJP checks; and four rejected requests. Each
// example returns plain data that the demo prints and writes into its trace.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "llm/autograd/gradcheck.hpp"
#include "llm/autograd/tensor_value.hpp"
#include "llm/tensor/tensor.hpp"

namespace ch15 {

/// x [2, 3] = 1..6 in row-major order.
inline constexpr std::array<double, 6> kXValues = {1, 2, 3, 4, 5, 6};
/// bias [3] = [1, -1, 0].
inline constexpr std::array<double, 3> kBiasValues = {1, -1, 0};
/// The non-scalar seed S [2] of every pass over the fixture's output.
inline constexpr std::array<double, 2> kSeedValues = {3, 6};

/// Requested central-difference step, in units of each checked element.
inline constexpr double kGradcheckStep = 1e-5;
/// Bound on the scaled error between the analytic and numerical derivative.
inline constexpr double kGradcheckTolerance = 1e-7;
/// Coordinates sampled per check.
inline constexpr std::size_t kGradcheckSamples = 4;

/// The eight nodes of the shared fixture in the order they are built, which
/// is also their topological order.
inline constexpr std::array<const char*, 8> kNodeLabels = {
    "x", "reshape", "transpose", "bias", "broadcast", "add", "multiply", "mean"};

/// The forward value of every node of the shared fixture, by node.
struct FixtureValues {
  llm::Tensor x;           ///< [2, 3]
  llm::Tensor reshaped;    ///< [3, 2]
  llm::Tensor transposed;  ///< [2, 3]
  llm::Tensor bias;        ///< [3]
  llm::Tensor broadcast;   ///< [2, 3]
  llm::Tensor sum;         ///< transposed + broadcast [2, 3]
  llm::Tensor square;      ///< sum * sum [2, 3]
  llm::Tensor output;      ///< mean along axis 1 [2]
};

/// The shared fixture's graph: x -> reshape [3, 2] -> transpose(0, 1);
/// bias -> broadcast_to [2, 3]; add; multiply the sum by itself (one node,
/// two operand uses); mean along axis 1 -> output [2].
struct FixtureGraph {
  llm::TensorValue x;
  llm::TensorValue reshaped;
  llm::TensorValue transposed;
  llm::TensorValue bias;
  llm::TensorValue broadcast;
  llm::TensorValue sum;
  llm::TensorValue square;
  llm::TensorValue output;

  /// The nodes in kNodeLabels order.
  std::vector<llm::TensorValue> nodes() const;
  /// A copy of every node's forward value.
  FixtureValues values() const;
};

/// Builds the fixture's graph from kXValues and kBiasValues.
FixtureGraph build_fixture_graph();

/// The seed S = kSeedValues as a [2] tensor.
llm::Tensor fixture_seed();

/// The same values and gradients computed with fixed-size arrays and
/// handwritten loops, without the tape.
struct HandwrittenBaseline {
  std::array<double, 6> reshaped;        ///< [3, 2]
  std::array<double, 6> transposed;      ///< [2, 3]
  std::array<double, 6> broadcast;       ///< [2, 3]
  std::array<double, 6> sum;             ///< [2, 3]
  std::array<double, 6> square;          ///< [2, 3]
  std::array<double, 2> output;          ///< [2]
  std::array<double, 6> square_adjoint;  ///< bar(square) [2, 3]
  std::array<double, 6> sum_adjoint;     ///< bar(sum) [2, 3], two contributions
  std::array<double, 6> x_gradient;      ///< [2, 3]
  std::array<double, 3> bias_gradient;   ///< [3]
};

/// The worked example by hand: one forward and one reverse pass with seed S.
HandwrittenBaseline handwritten_baseline();

/// Both stored gradients at one moment of the lifecycle.
struct GradientState {
  std::string step;  ///< e.g. `one backward`
  llm::Tensor x;
  llm::Tensor bias;
};

/// A request the tape rejected and whether every watched node kept its value
/// and gradient bits, its retention state and its version (TapeState).
struct RejectedRequest {
  std::string label;  ///< what was asked, e.g. `released-graph`
  llm::TensorAutodiffError error;
  bool gradients_unchanged;
};

struct WorkedExample {
  FixtureValues values;  ///< the forward value of every node
  llm::Tensor seed;
  llm::TensorBackwardTrace first_pass;    ///< the traced first pass (retained)
  std::vector<std::string> trace_labels;  ///< label of each trace node, topological order
  double baseline_max_difference;         ///< max |tape - baseline| over values and gradients
  std::vector<GradientState> states;      ///< one backward, repeated, zero_grad, release
  RejectedRequest released;               ///< one more pass over the released graph
};

/// Builds the fixture, checks it against the handwritten baseline, then runs a
/// traced retained pass, a second retained pass, zero_grad, a release pass,
/// and one more pass that must fail with ReleasedGraph.
/// @throws std::runtime_error if the tape disagrees with the baseline or the
///         released graph is reversed without an error.
WorkedExample worked_example();

/// One operand use the detach example's pass applied.
struct DetachEdge {
  std::string consumer;
  std::size_t slot;
  std::string operand;
  bool contributed;  ///< whether a contribution was computed (the operand is tracked)
};

struct DetachExample {
  llm::Tensor p;                                 ///< [2] = [2, 3]
  double c;                                      ///< the rank-0 constant 10
  double value;                                  ///< sum(p*p + detach(p)*c)
  llm::Tensor p_gradient;                        ///< 2p: the detached branch adds nothing
  std::optional<llm::Tensor> detached_gradient;  ///< empty: the copy is untracked
  bool product_tracked;                          ///< whether detach(p)*c is tracked: false
  std::vector<DetachEdge> edges;                 ///< the traced pass's edges, reverse order
};

/// output = sum_axis(p*p + detach(p)*c, 0) with p = [2, 3], c = 10, reversed
/// with a trace: detach(p)*c has two untracked operands, so it is untracked
/// and keeps no edges; no edge of the pass reaches c or detach(p).
DetachExample detach_example();

/// mean_axis(transposed * broadcast, 1) seeded with S: the fixture's graph
/// with a product of two *different* tensors, where a VJP that multiplied
/// by the wrong operand gives different gradients (with sum * sum it cannot).
struct AsymmetricProductExample {
  llm::Tensor output;                         ///< [2]
  llm::Tensor x_gradient;                     ///< from the tape, [2, 3]
  llm::Tensor bias_gradient;                  ///< from the tape, [3]
  std::vector<double> x_gradient_by_hand;     ///< (S_i / 3) * bias[j] at x[2j + i]
  std::vector<double> bias_gradient_by_hand;  ///< sum_i (S_i / 3) * t[i][j]
  std::vector<double> x_gradient_if_swapped;  ///< what slots multiplying by their own operand give
  std::vector<double> bias_gradient_if_swapped;
};
AsymmetricProductExample asymmetric_product_example();

/// A layout and the storage offset of each of its elements in row-major
/// order: how a strided view reads (or sum_to_shape writes) a buffer.
struct StrideTrace {
  std::string what;
  llm::Shape shape;
  llm::Strides strides;
  std::size_t offset;
  std::vector<std::size_t> offsets;
};

/// The transpose view of the fixture, the spread of mean's VJP (stride 0
/// along axis 1) and the accumulation positions of broadcast's VJP.
std::vector<StrideTrace> stride_offset_traces();

/// One sampled check of one VJP.
struct VjpCheck {
  std::string operation;   ///< add, multiply, reshape, transpose, broadcast, sum, mean
  std::string expression;  ///< what was reversed, e.g. `c[2,4] + p[4]`
  llm::Tensor input;       ///< the checked parameter p
  llm::Tensor seed;        ///< the non-trivial seed of the reverse pass
  llm::Tensor analytic;    ///< p's gradient from the tape
  llm::TensorGradientCheck report;
};

/// Reverses on_tape(p) for p = a deterministic input of `input_shape`, seeded
/// with a non-trivial tensor, and compares p's gradient with chapter 13's
/// sampled central differences of seed · forward(p) (kGradcheckStep,
/// kGradcheckTolerance, kGradcheckSamples). `forward` uses plain kernels.
VjpCheck check_vjp(std::string operation, std::string expression, const llm::Shape& input_shape,
                   const std::function<llm::TensorValue(const llm::TensorValue&)>& on_tape,
                   const std::function<llm::Tensor(const llm::Tensor&)>& forward);

/// The seven VJP checks against chapter 13's sampled central differences of
/// seed · forward(p), where forward uses the plain tensor kernels.
std::vector<VjpCheck> vjp_gradchecks();

/// Four rejected requests: a seed of the wrong shape, a non-finite seed, a
/// pass over a released graph, and a stored gradient that would overflow.
std::vector<RejectedRequest> typed_error_example();

}  // namespace ch15
