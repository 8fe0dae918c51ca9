// The scalar tape of chapter 14: the worked reused-square graph, stored
// gradient accumulation, detach, a nonlinear chain, and every error kind with
// bit-for-bit unchanged gradients after the failure.
#include "llm/autograd/scalar.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "llm/format.hpp"

namespace llm {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The exact bits of every stored gradient (empty for untracked nodes).
std::vector<std::optional<std::uint64_t>> gradient_bits(const std::vector<Scalar>& scalars) {
  std::vector<std::optional<std::uint64_t>> bits;
  for (const Scalar& scalar : scalars) {
    const std::optional<double> gradient = scalar.gradient();
    bits.push_back(gradient ? std::optional(std::bit_cast<std::uint64_t>(*gradient))
                            : std::nullopt);
  }
  return bits;
}

// Runs `action` and returns the ScalarError it threw, or nothing.
template <typename Action>
std::optional<ScalarError> scalar_error_from(Action action) {
  try {
    action();
  } catch (const ScalarError& error) {
    return error;
  }
  return std::nullopt;
}

// x = 2, square = x * x, loss = square + square.
struct ReusedSquare {
  Scalar x = Scalar::parameter(2.0);
  Scalar square = x.mul(x);
  Scalar loss = square.add(square);

  std::vector<double> stored() const {
    return {*x.gradient(), *square.gradient(), *loss.gradient()};
  }
};

TEST(ScalarGraph, LeavesRecordValueOperationAndTracking) {
  const Scalar x = Scalar::parameter(2.0);
  const Scalar c = Scalar::constant(3.0);
  EXPECT_EQ(x.value(), 2.0);
  EXPECT_EQ(x.operation(), ScalarOperation::Parameter);
  EXPECT_TRUE(x.tracks_gradient());
  EXPECT_EQ(x.gradient(), std::optional(0.0));
  EXPECT_EQ(c.value(), 3.0);
  EXPECT_EQ(c.operation(), ScalarOperation::Constant);
  EXPECT_FALSE(c.tracks_gradient());
  EXPECT_EQ(c.gradient(), std::nullopt);
}

TEST(ScalarGraph, OperationAndErrorKindNamesAreStable) {
  EXPECT_EQ(scalar_operation_name(ScalarOperation::Parameter), "parameter");
  EXPECT_EQ(scalar_operation_name(ScalarOperation::Constant), "constant");
  EXPECT_EQ(scalar_operation_name(ScalarOperation::Detached), "detached");
  EXPECT_EQ(scalar_operation_name(ScalarOperation::Add), "add");
  EXPECT_EQ(scalar_operation_name(ScalarOperation::Mul), "mul");
  EXPECT_EQ(scalar_operation_name(ScalarOperation::Neg), "neg");
  EXPECT_EQ(scalar_operation_name(ScalarOperation::Sub), "sub");
  EXPECT_EQ(scalar_operation_name(ScalarOperation::Exp), "exp");
  EXPECT_EQ(scalar_operation_name(ScalarOperation::Tanh), "tanh");
  EXPECT_EQ(ScalarError::kind_name_of(ScalarErrorKind::NonFiniteLeaf), "non-finite-leaf");
  EXPECT_EQ(ScalarError::kind_name_of(ScalarErrorKind::NonFiniteResult), "non-finite-result");
  EXPECT_EQ(ScalarError::kind_name_of(ScalarErrorKind::UntrackedOutput), "untracked-output");
  EXPECT_EQ(ScalarError::kind_name_of(ScalarErrorKind::NonFiniteSeed), "non-finite-seed");
  EXPECT_EQ(ScalarError::kind_name_of(ScalarErrorKind::NonFiniteContribution),
            "non-finite-contribution");
  EXPECT_EQ(ScalarError::kind_name_of(ScalarErrorKind::NonFinitePassAdjoint),
            "non-finite-pass-adjoint");
  EXPECT_EQ(ScalarError::kind_name_of(ScalarErrorKind::NonFiniteAccumulatedGradient),
            "non-finite-accumulated-gradient");
}

TEST(ScalarGraph, NodeIdentityIsSharedByCopiesButNotByEqualValues) {
  const Scalar x = Scalar::parameter(2.0);
  const Scalar copy = x;
  const Scalar twin = Scalar::parameter(2.0);
  EXPECT_TRUE(copy.is_same_node(x));
  EXPECT_FALSE(twin.is_same_node(x));
  EXPECT_FALSE(x.detach().is_same_node(x));
}

TEST(ScalarGraph, ReusedSquareComputesForwardValues) {
  const ReusedSquare graph;
  EXPECT_EQ(graph.x.value(), 2.0);
  EXPECT_EQ(graph.square.value(), 4.0);
  EXPECT_EQ(graph.loss.value(), 8.0);
  EXPECT_EQ(graph.square.operation(), ScalarOperation::Mul);
  EXPECT_EQ(graph.loss.operation(), ScalarOperation::Add);
  EXPECT_TRUE(graph.loss.tracks_gradient());
}

TEST(ScalarGraph, OperationsOnConstantsAreUntracked) {
  const Scalar a = Scalar::constant(1.5);
  const Scalar b = Scalar::constant(-0.5);
  EXPECT_FALSE(a.add(b).tracks_gradient());
  EXPECT_FALSE(a.mul(b).exp().tanh().neg().sub(b).tracks_gradient());
  EXPECT_TRUE(a.add(Scalar::parameter(1.0)).tracks_gradient());
}

TEST(ScalarGraph, EveryOperationRecordsItsLocalDerivatives) {
  const double a_value = 0.75;
  const double b_value = -1.25;
  struct Case {
    const char* name;
    double value;
    double d_a;
    double d_b;
  };
  const double t = std::tanh(a_value);
  const std::vector<Case> cases = {
      {"add", a_value + b_value, 1.0, 1.0},
      {"mul", a_value * b_value, b_value, a_value},
      {"neg", -a_value, -1.0, 0.0},
      {"sub", a_value - b_value, 1.0, -1.0},
      {"exp", std::exp(a_value), std::exp(a_value), 0.0},
      {"tanh", t, 1.0 - t * t, 0.0},
  };
  for (const Case& expected : cases) {
    SCOPED_TRACE(expected.name);
    Scalar a = Scalar::parameter(a_value);
    Scalar b = Scalar::parameter(b_value);
    const std::string name = expected.name;
    Scalar output = name == "add"   ? a.add(b)
                    : name == "mul" ? a.mul(b)
                    : name == "neg" ? a.neg()
                    : name == "sub" ? a.sub(b)
                    : name == "exp" ? a.exp()
                                    : a.tanh();
    EXPECT_EQ(scalar_operation_name(output.operation()), name);
    EXPECT_EQ(output.value(), expected.value);
    output.backward();
    EXPECT_EQ(*a.gradient(), expected.d_a);
    EXPECT_EQ(*b.gradient(), expected.d_b);
  }
}

TEST(ScalarBackward, ReusedSquareRecordsFourEdgesInReverseOrder) {
  ReusedSquare graph;
  const BackwardPass pass = graph.loss.backward();
  EXPECT_EQ(pass.seed, 1.0);

  ASSERT_EQ(pass.nodes.size(), 3u);
  const std::vector<ScalarOperation> operations = {ScalarOperation::Parameter, ScalarOperation::Mul,
                                                   ScalarOperation::Add};
  const std::vector<double> values = {2.0, 4.0, 8.0};
  const std::vector<double> adjoints = {8.0, 2.0, 1.0};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(pass.nodes[i].topology_index, i);
    EXPECT_EQ(pass.nodes[i].operation, operations[i]);
    EXPECT_EQ(pass.nodes[i].value, values[i]);
    EXPECT_TRUE(pass.nodes[i].tracked);
    EXPECT_EQ(pass.nodes[i].pass_adjoint, std::optional(adjoints[i]));
    EXPECT_EQ(pass.nodes[i].stored_gradient, std::optional(adjoints[i]));
  }

  // reverse index, child, parent, operand, upstream, local, contribution, before, after
  struct Row {
    std::size_t child, parent, operand;
    double upstream, local, contribution, before, after;
  };
  const std::vector<Row> rows = {
      {2, 1, 0, 1.0, 1.0, 1.0, 0.0, 1.0},
      {2, 1, 1, 1.0, 1.0, 1.0, 1.0, 2.0},
      {1, 0, 0, 2.0, 2.0, 4.0, 0.0, 4.0},
      {1, 0, 1, 2.0, 2.0, 4.0, 4.0, 8.0},
  };
  ASSERT_EQ(pass.edges.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(i);
    const BackwardEdge& edge = pass.edges[i];
    EXPECT_EQ(edge.reverse_index, i);
    EXPECT_EQ(edge.child, rows[i].child);
    EXPECT_EQ(edge.parent, rows[i].parent);
    EXPECT_EQ(edge.operand, rows[i].operand);
    EXPECT_EQ(edge.upstream, rows[i].upstream);
    EXPECT_EQ(edge.local_derivative, rows[i].local);
    EXPECT_EQ(edge.contribution, rows[i].contribution);
    EXPECT_TRUE(edge.parent_tracked);
    EXPECT_EQ(edge.parent_adjoint_before, std::optional(rows[i].before));
    EXPECT_EQ(edge.parent_adjoint_after, std::optional(rows[i].after));
  }
}

TEST(ScalarBackward, StoresRepeatedPassesZeroesAndRestores) {
  ReusedSquare graph;
  graph.loss.backward();
  EXPECT_EQ(graph.stored(), (std::vector<double>{8.0, 2.0, 1.0}));
  const BackwardPass second = graph.loss.backward();
  EXPECT_EQ(graph.stored(), (std::vector<double>{16.0, 4.0, 2.0}));
  // The second pass recomputes fresh adjoints; only storage accumulates.
  EXPECT_EQ(second.nodes[0].pass_adjoint, std::optional(8.0));
  EXPECT_EQ(second.nodes[0].stored_gradient, std::optional(16.0));
  EXPECT_EQ(second.edges[2].upstream, 2.0);
  graph.loss.zero_grad();
  EXPECT_EQ(graph.stored(), (std::vector<double>{0.0, 0.0, 0.0}));
  graph.loss.backward();
  EXPECT_EQ(graph.stored(), (std::vector<double>{8.0, 2.0, 1.0}));
}

TEST(ScalarBackward, SeedScalesEveryPassAdjoint) {
  ReusedSquare graph;
  const BackwardPass pass = graph.loss.backward_with_seed(3.0);
  EXPECT_EQ(pass.seed, 3.0);
  EXPECT_EQ(graph.stored(), (std::vector<double>{24.0, 6.0, 3.0}));
  EXPECT_EQ(pass.edges[0].upstream, 3.0);
  EXPECT_EQ(pass.edges[3].contribution, 12.0);
}

TEST(ScalarBackward, ExcludesConsumersOutsideTheOutputSubgraph) {
  ReusedSquare graph;
  const BackwardPass pass = graph.square.backward();
  EXPECT_EQ(pass.nodes.size(), 2u);
  EXPECT_EQ(*graph.x.gradient(), 4.0);
  EXPECT_EQ(*graph.square.gradient(), 1.0);
  EXPECT_EQ(*graph.loss.gradient(), 0.0);
}

TEST(ScalarBackward, ZeroGradClearsOnlyReachableTrackedNodes) {
  ReusedSquare graph;
  Scalar other = graph.x.add(Scalar::constant(1.0));
  graph.loss.backward();
  other.backward();
  EXPECT_EQ(*graph.x.gradient(), 9.0);
  graph.loss.zero_grad();
  EXPECT_EQ(graph.stored(), (std::vector<double>{0.0, 0.0, 0.0}));
  EXPECT_EQ(*other.gradient(), 1.0);  // a consumer of x, but not reachable from loss
}

TEST(ScalarBackward, DetachStopsTheGradientAtACopiedLeaf) {
  Scalar x = Scalar::parameter(2.0);
  const Scalar square = x.mul(x);
  const Scalar detached = x.detach();
  const Scalar stopped = detached.mul(Scalar::constant(3.0));
  Scalar loss = square.add(stopped);
  const BackwardPass pass = loss.backward();

  EXPECT_EQ(loss.value(), 10.0);
  EXPECT_EQ(*x.gradient(), 4.0);
  EXPECT_EQ(detached.value(), 2.0);
  EXPECT_EQ(detached.operation(), ScalarOperation::Detached);
  EXPECT_EQ(detached.gradient(), std::nullopt);
  EXPECT_FALSE(stopped.tracks_gradient());
  // x, square, detached, three, stopped, loss: untracked nodes have no adjoint.
  ASSERT_EQ(pass.nodes.size(), 6u);
  EXPECT_EQ(pass.nodes[2].operation, ScalarOperation::Detached);
  EXPECT_EQ(pass.nodes[2].pass_adjoint, std::nullopt);
  EXPECT_EQ(pass.nodes[4].pass_adjoint, std::nullopt);
  // The edge from loss to stopped is recorded but delivers nothing.
  const BackwardEdge& into_stopped = pass.edges[1];
  EXPECT_EQ(into_stopped.parent, 4u);
  EXPECT_FALSE(into_stopped.parent_tracked);
  EXPECT_EQ(into_stopped.parent_adjoint_before, std::nullopt);
  EXPECT_EQ(into_stopped.parent_adjoint_after, std::nullopt);
}

TEST(ScalarBackward, DifferentiatesExpOfTanh) {
  Scalar x = Scalar::parameter(0.5);
  Scalar output = x.tanh().exp();
  output.backward();
  EXPECT_EQ(format_fixed(output.value(), 12), "1.587431271430");
  EXPECT_EQ(format_fixed(*x.gradient(), 12), "1.248431724655");
  const double t = std::tanh(0.5);
  EXPECT_EQ(*x.gradient(), std::exp(t) * (1.0 - t * t));
}

TEST(ScalarErrors, RejectsNonFiniteLeavesWithoutMutation) {
  ReusedSquare graph;
  graph.loss.backward();
  const auto before = gradient_bits({graph.x, graph.square, graph.loss});

  const auto infinite = scalar_error_from([] { Scalar::parameter(kInfinity); });
  ASSERT_TRUE(infinite.has_value());
  EXPECT_EQ(infinite->kind(), ScalarErrorKind::NonFiniteLeaf);
  EXPECT_EQ(infinite->operation(), ScalarOperation::Parameter);
  EXPECT_EQ(infinite->value(), kInfinity);
  EXPECT_STREQ(infinite->what(), "parameter scalar value inf must be finite");

  const auto nan = scalar_error_from([] { Scalar::constant(kNaN); });
  ASSERT_TRUE(nan.has_value());
  EXPECT_EQ(nan->kind(), ScalarErrorKind::NonFiniteLeaf);
  EXPECT_EQ(nan->operation(), ScalarOperation::Constant);
  EXPECT_TRUE(std::isnan(nan->value()));
  EXPECT_STREQ(nan->what(), "constant scalar value NaN must be finite");

  EXPECT_EQ(gradient_bits({graph.x, graph.square, graph.loss}), before);
}

TEST(ScalarErrors, RejectsNonFiniteResultsWithoutMutation) {
  ReusedSquare graph;
  graph.loss.backward();
  const auto before = gradient_bits({graph.x, graph.square, graph.loss});

  const auto product = scalar_error_from([&] { graph.loss.mul(Scalar::constant(1e308)); });
  ASSERT_TRUE(product.has_value());
  EXPECT_EQ(product->kind(), ScalarErrorKind::NonFiniteResult);
  EXPECT_EQ(product->operation(), ScalarOperation::Mul);
  EXPECT_EQ(product->value(), kInfinity);
  EXPECT_STREQ(product->what(), "mul produced non-finite scalar value inf");

  const auto exponential =
      scalar_error_from([&] { graph.loss.mul(Scalar::constant(100.0)).exp(); });
  ASSERT_TRUE(exponential.has_value());
  EXPECT_EQ(exponential->kind(), ScalarErrorKind::NonFiniteResult);
  EXPECT_EQ(exponential->operation(), ScalarOperation::Exp);
  EXPECT_STREQ(exponential->what(), "exp produced non-finite scalar value inf");

  const auto difference =
      scalar_error_from([] { Scalar::constant(-1e308).sub(Scalar::parameter(1e308)); });
  ASSERT_TRUE(difference.has_value());
  EXPECT_EQ(difference->operation(), ScalarOperation::Sub);
  EXPECT_EQ(difference->value(), -kInfinity);
  EXPECT_STREQ(difference->what(), "sub produced non-finite scalar value -inf");

  EXPECT_EQ(gradient_bits({graph.x, graph.square, graph.loss}), before);
}

TEST(ScalarBackward, RejectsUntrackedOutputWithoutMutation) {
  ReusedSquare graph;
  graph.loss.backward();
  const auto before = gradient_bits({graph.x, graph.square, graph.loss});

  Scalar constant = Scalar::constant(3.0);
  const auto from_constant = scalar_error_from([&] { constant.backward(); });
  ASSERT_TRUE(from_constant.has_value());
  EXPECT_EQ(from_constant->kind(), ScalarErrorKind::UntrackedOutput);
  EXPECT_EQ(from_constant->operation(), ScalarOperation::Constant);
  EXPECT_STREQ(from_constant->what(), "cannot backpropagate from untracked constant output");

  Scalar detached_product = graph.loss.detach().mul(Scalar::constant(2.0));
  const auto from_detached = scalar_error_from([&] { detached_product.backward(); });
  ASSERT_TRUE(from_detached.has_value());
  EXPECT_EQ(from_detached->kind(), ScalarErrorKind::UntrackedOutput);
  EXPECT_EQ(from_detached->operation(), ScalarOperation::Mul);
  EXPECT_STREQ(from_detached->what(), "cannot backpropagate from untracked mul output");

  EXPECT_EQ(constant.gradient(), std::nullopt);
  EXPECT_EQ(gradient_bits({graph.x, graph.square, graph.loss}), before);
}

TEST(ScalarBackward, RejectsNonFiniteSeedWithoutMutation) {
  ReusedSquare graph;
  graph.loss.backward();
  const auto before = gradient_bits({graph.x, graph.square, graph.loss});

  const auto infinite = scalar_error_from([&] { graph.loss.backward_with_seed(kInfinity); });
  ASSERT_TRUE(infinite.has_value());
  EXPECT_EQ(infinite->kind(), ScalarErrorKind::NonFiniteSeed);
  EXPECT_EQ(infinite->seed(), kInfinity);
  EXPECT_STREQ(infinite->what(), "backward seed inf must be finite");

  const auto nan = scalar_error_from([&] { graph.loss.backward_with_seed(kNaN); });
  ASSERT_TRUE(nan.has_value());
  EXPECT_EQ(nan->kind(), ScalarErrorKind::NonFiniteSeed);
  EXPECT_TRUE(std::isnan(nan->seed()));
  EXPECT_STREQ(nan->what(), "backward seed NaN must be finite");

  EXPECT_EQ(gradient_bits({graph.x, graph.square, graph.loss}), before);
}

TEST(ScalarBackward, RejectsNonFiniteContributionWithoutMutation) {
  // y = x * 1e200 is 1e-100 and z = y * 1e200 is 1e100, both finite, but the
  // edge from y to x would carry 1e200 * 1e200.
  Scalar x = Scalar::parameter(1e-300);
  const Scalar y = x.mul(Scalar::constant(1e200));
  Scalar z = y.mul(Scalar::constant(1e200));
  z.backward_with_seed(1e-100);  // a small seed keeps every product finite
  EXPECT_EQ(*x.gradient(), 1e-100 * 1e200 * 1e200);
  const auto before = gradient_bits({x, y, z});

  const auto error = scalar_error_from([&] { z.backward(); });
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->kind(), ScalarErrorKind::NonFiniteContribution);
  EXPECT_EQ(error->child(), 2u);  // topology: x, 1e200, y, 1e200, z
  EXPECT_EQ(error->parent(), 0u);
  EXPECT_EQ(error->operand(), 0u);
  EXPECT_EQ(error->upstream(), 1e200);
  EXPECT_EQ(error->local_derivative(), 1e200);
  EXPECT_STREQ(error->what(),
               "edge 0 from topology node 2 to 0 produced a non-finite contribution from "
               "upstream 1e200 and local derivative 1e200");

  EXPECT_EQ(gradient_bits({x, y, z}), before);
}

TEST(ScalarBackward, RejectsNonFinitePassAdjointWithoutMutation) {
  // Two separate products of x with 1e308 each send x a finite 1e308; their sum overflows.
  Scalar x = Scalar::parameter(1e-300);
  const Scalar big = Scalar::constant(1e308);
  const Scalar a = x.mul(big);
  const Scalar b = x.mul(big);
  Scalar z = a.add(b);
  z.backward_with_seed(0.5);
  EXPECT_EQ(*x.gradient(), 1e308);
  const auto before = gradient_bits({x, big, a, b, z});

  const auto error = scalar_error_from([&] { z.backward(); });
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->kind(), ScalarErrorKind::NonFinitePassAdjoint);
  EXPECT_EQ(error->node(), 0u);
  EXPECT_EQ(error->previous(), 1e308);
  EXPECT_EQ(error->contribution(), 1e308);
  EXPECT_STREQ(error->what(),
               "topology node 0 cannot accumulate pass adjoint 1e308 plus contribution 1e308");

  EXPECT_EQ(gradient_bits({x, big, a, b, z}), before);
}

TEST(ScalarBackward, RejectsNonFiniteAccumulatedGradientWithoutPartialCommit) {
  Scalar x = Scalar::parameter(1.0);
  Scalar y = x.mul(Scalar::constant(1e308));
  y.backward();
  EXPECT_EQ(*x.gradient(), 1e308);
  EXPECT_EQ(*y.gradient(), 1.0);
  const auto before = gradient_bits({x, y});

  const auto error = scalar_error_from([&] { y.backward(); });
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->kind(), ScalarErrorKind::NonFiniteAccumulatedGradient);
  EXPECT_EQ(error->node(), 0u);
  EXPECT_EQ(error->stored(), 1e308);
  EXPECT_EQ(error->pass_adjoint(), 1e308);
  EXPECT_STREQ(error->what(),
               "topology node 0 cannot accumulate stored gradient 1e308 plus pass adjoint 1e308");

  // y's own sum 1 + 1 was valid, yet nothing is committed when x fails.
  EXPECT_EQ(gradient_bits({x, y}), before);
  EXPECT_EQ(*y.gradient(), 1.0);
}

}  // namespace
}  // namespace llm
