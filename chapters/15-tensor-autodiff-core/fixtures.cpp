// The shared tensor fixture, its lifecycle, and the detach example: see
// fixtures.hpp.
#include "fixtures.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <stdexcept>
#include <utility>

#include "llm/format.hpp"
#include "llm/tensor/layout.hpp"
#include "llm/tensor/shared_tensor.hpp"
#include "tape_state.hpp"

namespace ch15 {

using llm::Retention;
using llm::Tensor;
using llm::TensorValue;

namespace {

Tensor tensor(llm::Shape shape, std::span<const double> values) {
  return Tensor(std::move(shape), std::vector<double>(values.begin(), values.end()));
}

GradientState gradients(std::string step, const FixtureGraph& graph) {
  return {std::move(step), *graph.x.gradient(), *graph.bias.gradient()};
}

// The largest |tape - baseline| over one tensor.
double max_difference(const Tensor& tape, std::span<const double> baseline) {
  if (tape.size() != baseline.size()) return std::numeric_limits<double>::infinity();
  double largest = 0.0;
  for (std::size_t k = 0; k < baseline.size(); ++k) {
    largest = std::max(largest, std::fabs(tape.values()[k] - baseline[k]));
  }
  return largest;
}

}  // namespace

std::vector<TensorValue> FixtureGraph::nodes() const {
  return {x, reshaped, transposed, bias, broadcast, sum, square, output};
}

FixtureValues FixtureGraph::values() const {
  return {x.value().materialize(),          reshaped.value().materialize(),
          transposed.value().materialize(), bias.value().materialize(),
          broadcast.value().materialize(),  sum.value().materialize(),
          square.value().materialize(),     output.value().materialize()};
}

Tensor fixture_seed() {
  return tensor({2}, kSeedValues);
}

// region: shared-tensor-fixture
FixtureGraph build_fixture_graph() {
  TensorValue x = TensorValue::parameter(tensor({2, 3}, kXValues));
  TensorValue reshaped = x.reshape({3, 2});
  TensorValue transposed = reshaped.transpose(0, 1);
  TensorValue bias = TensorValue::parameter(tensor({3}, kBiasValues));
  TensorValue broadcast = bias.broadcast_to({2, 3});
  TensorValue sum = transposed.add(broadcast);
  TensorValue square = sum.mul(sum);  // one node, two operand uses
  TensorValue output = square.mean_axis(1, llm::KeepDim::No);
  return {x, reshaped, transposed, bias, broadcast, sum, square, output};
}
// endregion: shared-tensor-fixture

// region: tensor-lifecycle
WorkedExample worked_example() {
  const FixtureGraph graph = build_fixture_graph();
  const Tensor seed = fixture_seed();

  llm::TensorBackwardTrace first_pass = graph.output.backward_with_trace(seed, Retention::Retain);
  std::vector<GradientState> states{gradients("one backward", graph)};
  graph.output.backward_with_seed(seed, Retention::Retain);  // gradients double
  states.push_back(gradients("repeated backward", graph));
  graph.output.zero_grad();
  states.push_back(gradients("zero_grad", graph));
  graph.output.backward_with_seed(seed, Retention::Release);  // fresh pass, then drop contexts
  states.push_back(gradients("after zero and release", graph));

  const std::vector<TensorValue> nodes = graph.nodes();
  const TapeState before = tape_state(nodes);
  std::optional<llm::TensorAutodiffError> rejection;
  try {
    graph.output.backward_with_seed(seed, Retention::Retain);
  } catch (const llm::TensorAutodiffError& error) {
    rejection = error;
  }
  if (!rejection) throw std::runtime_error("the released graph was reversed again");
  RejectedRequest released{"graph-released", *rejection, tape_state(nodes) == before};

  // The tape against the handwritten baseline: every value, both gradients.
  const HandwrittenBaseline baseline = handwritten_baseline();
  const std::vector<std::span<const double>> expected = {
      kXValues,           baseline.reshaped, baseline.transposed, kBiasValues,
      baseline.broadcast, baseline.sum,      baseline.square,     baseline.output};
  double largest = 0.0;
  for (std::size_t node = 0; node < expected.size(); ++node) {
    largest = std::max(largest, max_difference(nodes[node].value().materialize(), expected[node]));
  }
  largest = std::max(largest, max_difference(states[0].x, baseline.x_gradient));
  largest = std::max(largest, max_difference(states[0].bias, baseline.bias_gradient));
  if (!(largest <= 1e-12)) {
    throw std::runtime_error("the tape disagrees with the handwritten baseline by " +
                             llm::format_shortest(largest));
  }

  std::vector<std::string> trace_labels;
  for (const llm::TensorTraceNode& node : first_pass.nodes) {
    const auto match = std::find_if(nodes.begin(), nodes.end(), [&](const TensorValue& value) {
      return value.node_id() == node.node_id;
    });
    trace_labels.push_back(kNodeLabels.at(static_cast<std::size_t>(match - nodes.begin())));
  }
  return {graph.values(), seed,   std::move(first_pass), std::move(trace_labels),
          largest,        states, std::move(released)};
}
// endregion: tensor-lifecycle

// region: tensor-detach-example
DetachExample detach_example() {
  const TensorValue p = TensorValue::parameter(tensor({2}, std::array<double, 2>{2, 3}));
  const TensorValue detached = p.detach();  // same value, no operand: the flow stops here
  const TensorValue c = TensorValue::constant(Tensor::scalar(10));
  const TensorValue square = p.mul(p);
  const TensorValue product = detached.mul(c);  // both operands untracked: no edges at all
  const TensorValue total = square.add(product);
  const TensorValue output = total.sum_axis(0);
  const llm::TensorBackwardTrace trace = output.backward_with_trace();

  // Name each traced node, and list the edges the pass applied.
  const std::vector<std::pair<const TensorValue*, const char*>> named = {
      {&p, "p"},
      {&detached, "detach(p)"},
      {&c, "c"},
      {&square, "p*p"},
      {&product, "detach(p)*c"},
      {&total, "p*p+detach(p)*c"},
      {&output, "sum_axis"}};
  const auto label_of = [&](std::size_t index) -> std::string {
    for (const auto& [value, label] : named) {
      if (value->node_id() == trace.nodes.at(index).node_id) return label;
    }
    throw std::logic_error("the detach trace visited an unnamed node");
  };
  std::vector<DetachEdge> edges;
  for (const llm::TensorTraceEdge& edge : trace.edges) {
    edges.push_back(
        {label_of(edge.child), edge.operand, label_of(edge.parent), edge.contribution.has_value()});
  }
  return {p.value().materialize(), c.value().at({}),          output.value().at({}), *p.gradient(),
          detached.gradient(),     product.tracks_gradient(), std::move(edges)};
}
// endregion: tensor-detach-example

// region: asymmetric-product
AsymmetricProductExample asymmetric_product_example() {
  const TensorValue x = TensorValue::parameter(tensor({2, 3}, kXValues));
  const TensorValue bias = TensorValue::parameter(tensor({3}, kBiasValues));
  const TensorValue transposed = x.reshape({3, 2}).transpose(0, 1);
  const TensorValue broadcast = bias.broadcast_to({2, 3});
  // Two different operands: slot 0 must receive upstream * broadcast, slot 1
  // upstream * transposed. sum.mul(sum) cannot tell the two apart.
  const TensorValue output = transposed.mul(broadcast).mean_axis(1, llm::KeepDim::No);
  output.backward_with_seed(fixture_seed(), Retention::Release);
  // endregion: asymmetric-product

  // By hand: u[i][j] = S[i] / 3; t[i][j] = x[2j + i]; b[i][j] = bias[j].
  AsymmetricProductExample example{
      output.value().materialize(), *x.gradient(), *bias.gradient(), {}, {}, {}, {}};
  example.x_gradient_by_hand.assign(6, 0.0);
  example.bias_gradient_by_hand.assign(3, 0.0);
  example.x_gradient_if_swapped.assign(6, 0.0);
  example.bias_gradient_if_swapped.assign(3, 0.0);
  for (std::size_t i = 0; i < 2; ++i) {
    for (std::size_t j = 0; j < 3; ++j) {
      const double upstream = kSeedValues[i] / 3.0;
      const double t = kXValues[2 * j + i];
      const double b = kBiasValues[j];
      example.x_gradient_by_hand[2 * j + i] = upstream * b;
      example.bias_gradient_by_hand[j] += upstream * t;
      example.x_gradient_if_swapped[2 * j + i] = upstream * t;  // slot 0 times its own operand
      example.bias_gradient_if_swapped[j] += upstream * b;
    }
  }
  return example;
}

// region: stride-offset-traces
namespace {

// The storage offset of every element of `view`, in row-major order.
std::vector<std::size_t> offsets_of(const llm::Layout& layout) {
  std::vector<std::size_t> offsets;
  std::vector<std::size_t> coordinate(layout.rank(), 0);
  for (std::size_t k = 0; k < layout.size(); ++k) {
    offsets.push_back(layout.offset_of(coordinate));
    for (std::size_t axis = layout.rank(); axis-- > 0;) {
      if (++coordinate[axis] < layout.shape()[axis]) break;
      coordinate[axis] = 0;
    }
  }
  return offsets;
}

StrideTrace stride_trace(std::string what, const llm::Layout& layout) {
  return {std::move(what), layout.shape(), layout.strides(), layout.offset(), offsets_of(layout)};
}

}  // namespace

std::vector<StrideTrace> stride_offset_traces() {
  const llm::SharedTensor x(tensor({2, 3}, kXValues));
  const llm::SharedTensor seed(fixture_seed());
  return {
      // Forward: the transpose is a view of reshape's storage.
      stride_trace("transpose(0, 1) of reshape [3, 2]", x.reshape({3, 2}).transpose(0, 1).layout()),
      // Mean's VJP: the seed [2] regrouped as [2, 1] and spread along axis 1
      // (spread_along_axis): each upstream element is read three times.
      stride_trace("mean VJP: seed spread along axis 1",
                   seed.contiguous().reshape({2, 1}).broadcast_to({2, 3}).layout()),
      // Broadcast's VJP: sum_to_shape walks the [2, 3] upstream and adds each
      // element into bias position offset_of(coordinate) of this layout.
      stride_trace("broadcast VJP: bias [3] positions of a [2, 3] upstream",
                   llm::Layout({3}).broadcast_to({2, 3}))};
}
// endregion: stride-offset-traces

}  // namespace ch15
