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
  return {x.value().materialize(),      reshaped.value().materialize(),
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
  states.push_back(gradients("release backward", graph));

  const std::vector<TensorValue> nodes = graph.nodes();
  const TapeState before = tape_state(nodes);
  std::optional<llm::TensorAutodiffError> rejection;
  try {
    graph.output.backward_with_seed(seed, Retention::Retain);
  } catch (const llm::TensorAutodiffError& error) {
    rejection = error;
  }
  if (!rejection) throw std::runtime_error("the released graph was reversed again");
  RejectedRequest released{"released-graph", *rejection, tape_state(nodes) == before};

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
  const TensorValue output = p.mul(p).add(detached.mul(c)).sum_axis(0);
  output.backward();
  return {p.value().materialize(), c.value().at({}), output.value().at({}), *p.gradient(),
          detached.gradient()};
}
// endregion: tensor-detach-example

}  // namespace ch15
