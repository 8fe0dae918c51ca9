// The typed-error fixture of chapter 15: see fixtures.hpp.
#include <limits>
#include <stdexcept>
#include <utility>

#include "fixtures.hpp"
#include "tape_state.hpp"

namespace ch15 {

using llm::Retention;
using llm::Tensor;
using llm::TensorValue;

namespace {

// Runs `request`, which must throw TensorAutodiffError, and compares the
// watched nodes' bits before and after it.
template <class Request>
RejectedRequest rejected(std::string label, const std::vector<TensorValue>& watched,
                         Request&& request) {
  const TapeState before = tape_state(watched);
  try {
    request();
  } catch (const llm::TensorAutodiffError& error) {
    return {std::move(label), error, tape_state(watched) == before};
  }
  throw std::runtime_error("the tape accepted the " + label + " request");
}

}  // namespace

// region: tensor-error-fixture
std::vector<RejectedRequest> typed_error_example() {
  const FixtureGraph graph = build_fixture_graph();
  const Tensor seed = fixture_seed();
  graph.output.backward_with_seed(seed, Retention::Retain);  // non-zero gradients to protect

  // A rank-0 constant times a vector: one retained pass stores 1.5e308, 1e308.
  const TensorValue p = TensorValue::parameter(Tensor({2}, {0.5, -0.25}));
  const TensorValue huge = TensorValue::constant(Tensor::scalar(1e308));
  const TensorValue scaled = p.mul(huge);
  const Tensor overflow_seed({2}, {1.5, 1});
  scaled.backward_with_seed(overflow_seed, Retention::Retain);

  std::vector<TensorValue> watched = graph.nodes();
  watched.insert(watched.end(), {p, huge, scaled});
  std::vector<RejectedRequest> requests;
  requests.push_back(rejected("seed-shape", watched, [&] {
    graph.output.backward_with_seed(Tensor({3}, {3, 6, 9}), Retention::Release);
  }));
  requests.push_back(rejected("non-finite-seed", watched, [&] {
    graph.output.backward_with_seed(Tensor({2}, {3, std::numeric_limits<double>::infinity()}),
                                    Retention::Release);
  }));
  graph.output.backward_with_seed(seed, Retention::Release);  // succeeds, then drops contexts
  requests.push_back(rejected("graph-released", watched,
                              [&] { graph.output.backward_with_seed(seed, Retention::Retain); }));
  // Each contribution is finite, but 1.5e308 + 1.5e308 is not.
  requests.push_back(rejected("non-finite-accumulated-gradient", watched, [&] {
    scaled.backward_with_seed(overflow_seed, Retention::Release);
  }));
  return requests;
}
// endregion: tensor-error-fixture

}  // namespace ch15
