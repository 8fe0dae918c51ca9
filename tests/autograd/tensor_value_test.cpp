// The tensor tape of chapter 15: leaves, forward values of every operation,
// the worked example's values, gradients and trace, the retain/zero/release
// lifecycle, detach, node identity and the inference scope.
#include "llm/autograd/tensor_value.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tensor_tape_support.hpp"

namespace llm {
namespace {

using testing::bits_of;
using testing::tensor;
using testing::values_of;
using testing::WorkedExample;

TEST(TensorTapeLeaves, ParameterTracksAndStoresAZeroGradient) {
  const TensorValue p = TensorValue::parameter(tensor({2}, {2, 3}));
  EXPECT_EQ(p.operation(), TensorOperation::Parameter);
  EXPECT_TRUE(p.tracks_gradient());
  EXPECT_TRUE(p.is_parameter());
  EXPECT_FALSE(p.is_released());
  EXPECT_EQ(p.version(), 0u);
  EXPECT_EQ(p.shape(), (Shape{2}));
  EXPECT_EQ(values_of(p.value()), (std::vector<double>{2, 3}));
  ASSERT_TRUE(p.gradient().has_value());
  EXPECT_EQ(p.gradient()->shape(), (Shape{2}));
  EXPECT_EQ(values_of(*p.gradient()), (std::vector<double>{0, 0}));
}

TEST(TensorTapeLeaves, ConstantIsUntrackedAndHasNoGradient) {
  const TensorValue c = TensorValue::constant(Tensor::scalar(10));
  EXPECT_EQ(c.operation(), TensorOperation::Constant);
  EXPECT_FALSE(c.tracks_gradient());
  EXPECT_FALSE(c.is_parameter());
  EXPECT_EQ(c.gradient(), std::nullopt);
  EXPECT_EQ(c.gradient_snapshot(), std::nullopt);
  EXPECT_EQ(c.value().rank(), 0u);
}

TEST(TensorTapeLeaves, SnapshotsAreIndependentCopies) {
  const TensorValue p = TensorValue::parameter(tensor({2}, {2, 3}));
  Tensor value = p.value().materialize();
  Tensor gradient = *p.gradient_snapshot();
  value.mutable_values()[0] = 99;
  gradient.mutable_values()[0] = 99;
  EXPECT_EQ(values_of(p.value()), (std::vector<double>{2, 3}));
  EXPECT_EQ(values_of(*p.gradient()), (std::vector<double>{0, 0}));
}

TEST(TensorTapeLeaves, OperationNamesAreStable) {
  const std::vector<std::pair<TensorOperation, std::string>> expected = {
      {TensorOperation::Parameter, "parameter"},
      {TensorOperation::Constant, "constant"},
      {TensorOperation::Detached, "detached"},
      {TensorOperation::Reshape, "reshape"},
      {TensorOperation::Transpose, "transpose"},
      {TensorOperation::BroadcastTo, "broadcast_to"},
      {TensorOperation::Add, "add"},
      {TensorOperation::Mul, "mul"},
      {TensorOperation::SumAxis, "sum_axis"},
      {TensorOperation::MeanAxis, "mean_axis"},
      {TensorOperation::MatMul, "matmul"},
      {TensorOperation::GatherRows, "gather_rows"},
      {TensorOperation::Exp, "exp"},
      {TensorOperation::Log, "log"},
      {TensorOperation::Silu, "silu"},
      {TensorOperation::LogSoftmax, "log_softmax"},
      {TensorOperation::IndexedMeanNll, "indexed_mean_nll"}};
  for (const auto& [operation, name] : expected) {
    EXPECT_EQ(operation.name(), name);
  }
}

TEST(TensorTapeLeaves, ItemReadsTheOneElementOfAnyRank) {
  EXPECT_EQ(TensorValue::constant(Tensor::scalar(2.5)).item(), 2.5);
  EXPECT_EQ(TensorValue::constant(tensor({1}, {-1.0})).item(), -1.0);
  const TensorValue column = TensorValue::parameter(tensor({2, 1}, {3.0, 4.0}));
  EXPECT_EQ(column.slice(0, 1, 2).item(), 4.0);  // a strided one-element view
  const testing::TapeState before = testing::tape_state({column});
  const auto error = testing::capture_error<TensorAutodiffError>([&] { column.item(); });
  EXPECT_EQ(error->kind(), TensorAutodiffErrorKind::NotOneElement);
  EXPECT_EQ(error->kind_name(), "not-one-element");
  EXPECT_EQ(error->shape(), (Shape{2, 1}));
  EXPECT_EQ(
      std::string(error->what()),
      "item() reads a value of exactly one element, but the parameter value has shape [2, 1]");
  EXPECT_EQ(testing::capture_error<TensorAutodiffError>([] {
              TensorValue::constant(Tensor::zeros({0})).item();
            })->kind(),
            TensorAutodiffErrorKind::NotOneElement);
  EXPECT_EQ(testing::tape_state({column}), before);
}

TEST(TensorTapeIdentity, CopiesShareANodeButEqualValuesDoNot) {
  const TensorValue p = TensorValue::parameter(tensor({2}, {2, 3}));
  const TensorValue copy = p;
  const TensorValue twin = TensorValue::parameter(tensor({2}, {2, 3}));
  EXPECT_TRUE(p.is_same_node(copy));
  EXPECT_EQ(p.node_id(), copy.node_id());
  EXPECT_FALSE(p.is_same_node(twin));
  EXPECT_LT(p.node_id(), twin.node_id());
}

TEST(TensorTapeForward, WorkedExampleComputesEveryIntermediate) {
  const WorkedExample example;
  EXPECT_EQ(example.reshaped.shape(), (Shape{3, 2}));
  EXPECT_EQ(values_of(example.reshaped.value()), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(example.transposed.shape(), (Shape{2, 3}));
  EXPECT_EQ(values_of(example.transposed.value()), (std::vector<double>{1, 3, 5, 2, 4, 6}));
  EXPECT_EQ(values_of(example.broadcast.value()), (std::vector<double>{1, -1, 0, 1, -1, 0}));
  EXPECT_EQ(values_of(example.sum.value()), (std::vector<double>{2, 2, 5, 3, 3, 6}));
  EXPECT_EQ(values_of(example.square.value()), (std::vector<double>{4, 4, 25, 9, 9, 36}));
  EXPECT_EQ(example.output.shape(), (Shape{2}));
  EXPECT_EQ(values_of(example.output.value()), (std::vector<double>{11, 18}));
  for (const TensorValue& node : example.nodes()) EXPECT_TRUE(node.tracks_gradient());
  EXPECT_EQ(example.square.operation(), TensorOperation::Mul);
  EXPECT_EQ(example.output.operation(), TensorOperation::MeanAxis);
}

TEST(TensorTapeForward, ReductionsKeepOrDropTheAxis) {
  const TensorValue p = TensorValue::parameter(tensor({2, 3}, {1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(p.sum_axis(0, KeepDim::No).shape(), (Shape{3}));
  EXPECT_EQ(values_of(p.sum_axis(0, KeepDim::No).value()), (std::vector<double>{5, 7, 9}));
  EXPECT_EQ(p.sum_axis(1, KeepDim::Yes).shape(), (Shape{2, 1}));
  EXPECT_EQ(values_of(p.sum_axis(1, KeepDim::Yes).value()), (std::vector<double>{6, 15}));
  EXPECT_EQ(p.mean_axis(0, KeepDim::Yes).shape(), (Shape{1, 3}));
  EXPECT_EQ(values_of(p.mean_axis(0, KeepDim::Yes).value()), (std::vector<double>{2.5, 3.5, 4.5}));
  EXPECT_EQ(p.mean_axis(1, KeepDim::No).shape(), (Shape{2}));
}

TEST(TensorTapeForward, RankZeroConstantBroadcastsAgainstAVector) {
  const TensorValue p = TensorValue::parameter(tensor({3}, {1, -2, 4}));
  const TensorValue c = TensorValue::constant(Tensor::scalar(10));
  EXPECT_EQ(values_of(c.mul(p).value()), (std::vector<double>{10, -20, 40}));
  EXPECT_EQ(values_of(p.add(c).value()), (std::vector<double>{11, 8, 14}));
}

TEST(TensorTapeForward, OperationsOnConstantsAreUntrackedAndKeepNoOperands) {
  const TensorValue a = TensorValue::constant(tensor({2}, {1, 2}));
  const TensorValue b = a.mul(a).sum_axis(0);
  EXPECT_FALSE(b.tracks_gradient());
  EXPECT_EQ(b.operation(), TensorOperation::SumAxis);
  EXPECT_EQ(b.gradient(), std::nullopt);
}

TEST(TensorTapeBackward, WorkedExampleGradientsMatchTheHandDerivation) {
  const WorkedExample example;
  example.output.backward_with_seed(example.seed, Retention::Retain);
  // bar(square) = seed / 3 = [[1, 1, 1], [2, 2, 2]]; bar(sum) = 2 * sum * bar(square).
  EXPECT_EQ(values_of(*example.x.gradient()), (std::vector<double>{4, 12, 4, 12, 10, 24}));
  EXPECT_EQ(values_of(*example.bias.gradient()), (std::vector<double>{16, 16, 34}));
  for (const TensorValue& node : example.nodes()) {
    if (!node.is_parameter()) {
      EXPECT_EQ(node.gradient(), std::nullopt);
    }
  }
}

TEST(TensorTapeBackward, RepeatedPassDoublesZeroGradClearsAndReleasePassRestores) {
  const WorkedExample example;
  example.output.backward_with_seed(example.seed, Retention::Retain);
  example.output.backward_with_seed(example.seed, Retention::Retain);
  EXPECT_EQ(values_of(*example.x.gradient()), (std::vector<double>{8, 24, 8, 24, 20, 48}));
  EXPECT_EQ(values_of(*example.bias.gradient()), (std::vector<double>{32, 32, 68}));

  example.output.zero_grad();
  EXPECT_EQ(values_of(*example.x.gradient()), (std::vector<double>(6, 0.0)));
  EXPECT_EQ(values_of(*example.bias.gradient()), (std::vector<double>(3, 0.0)));
  EXPECT_EQ(values_of(example.output.value()), (std::vector<double>{11, 18}));

  example.output.backward_with_seed(example.seed, Retention::Release);
  EXPECT_EQ(values_of(*example.x.gradient()), (std::vector<double>{4, 12, 4, 12, 10, 24}));
  EXPECT_EQ(values_of(*example.bias.gradient()), (std::vector<double>{16, 16, 34}));
  for (const TensorValue& node : example.nodes()) {
    EXPECT_EQ(node.is_released(), !node.is_parameter()) << node.operation().name();
  }
}

TEST(TensorTapeBackward, ReleasedGraphRejectsAnotherPassAndKeepsGradients) {
  const WorkedExample example;
  example.output.backward_with_seed(example.seed, Retention::Release);
  const testing::TapeState before = testing::tape_state(example.nodes());
  const auto error = testing::capture_error<TensorAutodiffError>(
      [&] { example.output.backward_with_seed(example.seed, Retention::Retain); });
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->kind(), TensorAutodiffErrorKind::ReleasedGraph);
  EXPECT_EQ(error->operation(), TensorOperation::MeanAxis);
  EXPECT_EQ(error->node(), 7u);
  EXPECT_EQ(std::string(error->what()),
            "cannot reverse mean_axis node 7: an earlier backward pass released its saved "
            "context");
  EXPECT_EQ(testing::tape_state(example.nodes()), before);
}

TEST(TensorTapeBackward, AReleasedGraphKeepsNoEdgesSoZeroGradReachesOnlyItsOutput) {
  const WorkedExample example;
  example.output.backward_with_seed(example.seed, Retention::Release);
  // The release dropped every edge: the output no longer reaches the parameters.
  example.output.zero_grad();
  EXPECT_EQ(values_of(*example.bias.gradient()), (std::vector<double>{16, 16, 34}));
  // Parameters are zeroed through themselves (what an optimizer step does).
  example.bias.zero_grad();
  EXPECT_EQ(values_of(*example.bias.gradient()), (std::vector<double>(3, 0.0)));
  // The values stay readable through every handle.
  EXPECT_EQ(values_of(example.output.value()), (std::vector<double>{11, 18}));
  EXPECT_EQ(values_of(example.transposed.value()), (std::vector<double>{1, 3, 5, 2, 4, 6}));
}

TEST(TensorTapeBackward, NewOperationsOnReleasedNodesFailOnlyWhenReversedThroughThem) {
  const WorkedExample example;
  example.output.backward_with_seed(example.seed, Retention::Release);
  const TensorValue fresh = example.bias.sum_axis(0);  // reaches no released node
  fresh.backward();
  EXPECT_EQ(values_of(*example.bias.gradient()), (std::vector<double>{17, 17, 35}));
  const TensorValue through = example.output.sum_axis(0);
  const auto error = testing::capture_error<TensorAutodiffError>([&] { through.backward(); });
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->kind(), TensorAutodiffErrorKind::ReleasedGraph);
  EXPECT_EQ(error->operation(), TensorOperation::MeanAxis);
}

TEST(TensorTapeBackward, ScalarBackwardSeedsOneAndWorksOnALeaf) {
  const TensorValue p = TensorValue::parameter(Tensor::scalar(5));
  p.backward();
  p.backward();
  EXPECT_EQ(values_of(*p.gradient()), (std::vector<double>{2}));

  const TensorValue q = TensorValue::parameter(tensor({2}, {2, 3}));
  q.mul(q).sum_axis(0).backward();
  EXPECT_EQ(values_of(*q.gradient()), (std::vector<double>{4, 6}));
}

TEST(TensorTapeBackward, TensorUsedTwiceReceivesTwoContributions) {
  const TensorValue x = TensorValue::parameter(tensor({3}, {1, -2, 0.5}));
  const TensorValue square = x.mul(x);
  const TensorBackwardTrace trace =
      square.backward_with_trace(tensor({3}, {1, 1, 1}), Retention::Retain);
  ASSERT_EQ(trace.edges.size(), 2u);
  EXPECT_EQ(trace.edges[0].operand, 0u);
  EXPECT_EQ(trace.edges[1].operand, 1u);
  EXPECT_EQ(trace.edges[0].parent, trace.edges[1].parent);
  EXPECT_EQ(values_of(*trace.edges[0].contribution), (std::vector<double>{1, -2, 0.5}));
  EXPECT_EQ(values_of(*trace.edges[1].contribution), (std::vector<double>{1, -2, 0.5}));
  EXPECT_EQ(values_of(*x.gradient()), (std::vector<double>{2, -4, 1}));
}

TEST(TensorTapeBackward, ConsumersOutsideTheOutputSubgraphAreIgnored) {
  const TensorValue p = TensorValue::parameter(tensor({2}, {2, 3}));
  const TensorValue used = p.sum_axis(0);
  const TensorValue unused = p.mul(p).sum_axis(0);  // never reversed
  used.backward();
  EXPECT_EQ(values_of(*p.gradient()), (std::vector<double>{1, 1}));
  EXPECT_FALSE(unused.is_released());
}

TEST(TensorTapeTrace, WorkedExampleRecordsEightNodesAndEightEdges) {
  const WorkedExample example;
  const TensorBackwardTrace trace =
      example.output.backward_with_trace(example.seed, Retention::Retain);
  ASSERT_EQ(trace.nodes.size(), 8u);
  const std::vector<TensorOperation> operations = {
      TensorOperation::Parameter, TensorOperation::Reshape,     TensorOperation::Transpose,
      TensorOperation::Parameter, TensorOperation::BroadcastTo, TensorOperation::Add,
      TensorOperation::Mul,       TensorOperation::MeanAxis};
  const std::vector<TensorValue> nodes = example.nodes();
  for (std::size_t index = 0; index < 8; ++index) {
    EXPECT_EQ(trace.nodes[index].index, index);
    EXPECT_EQ(trace.nodes[index].operation, operations[index]);
    EXPECT_EQ(trace.nodes[index].node_id, nodes[index].node_id());
    EXPECT_EQ(trace.find(nodes[index].node_id()), &trace.nodes[index]);
    EXPECT_TRUE(trace.nodes[index].tracked);
  }
  EXPECT_EQ(trace.nodes[6].operands, (std::vector<std::size_t>{5, 5}));
  EXPECT_EQ(trace.nodes[5].operands, (std::vector<std::size_t>{2, 4}));
  EXPECT_EQ(values_of(*trace.nodes[7].pass_adjoint), (std::vector<double>{3, 6}));
  EXPECT_EQ(values_of(*trace.nodes[6].pass_adjoint), (std::vector<double>{1, 1, 1, 2, 2, 2}));
  EXPECT_EQ(values_of(*trace.nodes[5].pass_adjoint), (std::vector<double>{4, 4, 10, 12, 12, 24}));
  EXPECT_EQ(values_of(*trace.nodes[1].pass_adjoint), (std::vector<double>{4, 12, 4, 12, 10, 24}));
  EXPECT_EQ(values_of(*trace.nodes[3].gradient), (std::vector<double>{16, 16, 34}));
  EXPECT_EQ(values_of(*trace.pass_adjoint(TensorOperation::Mul)),
            (std::vector<double>{1, 1, 1, 2, 2, 2}));
  EXPECT_EQ(trace.pass_adjoint(TensorOperation::Exp), nullptr);

  struct Edge {
    std::size_t child, parent, operand;
    std::string rule;
  };
  const std::vector<Edge> edges = {{7, 6, 0, "spread along axis, divide by extent"},
                                   {6, 5, 0, "times right, sum to operand shape"},
                                   {6, 5, 1, "times left, sum to operand shape"},
                                   {5, 2, 0, "sum to operand shape"},
                                   {5, 4, 1, "sum to operand shape"},
                                   {4, 3, 0, "sum broadcast axes"},
                                   {2, 1, 0, "transpose the same axes"},
                                   {1, 0, 0, "reshape to operand shape"}};
  ASSERT_EQ(trace.edges.size(), edges.size());
  for (std::size_t index = 0; index < edges.size(); ++index) {
    const TensorTraceEdge& edge = trace.edges[index];
    EXPECT_EQ(edge.reverse_index, index);
    EXPECT_EQ(edge.child, edges[index].child);
    EXPECT_EQ(edge.parent, edges[index].parent);
    EXPECT_EQ(edge.operand, edges[index].operand);
    EXPECT_EQ(edge.rule, edges[index].rule);
    EXPECT_EQ(edge.parent_shape, trace.nodes[edge.parent].shape);
    EXPECT_TRUE(edge.parent_tracked);
    EXPECT_EQ(bits_of(edge.upstream), bits_of(*trace.nodes[edge.child].pass_adjoint));
  }
  EXPECT_EQ(values_of(*trace.edges[1].contribution), (std::vector<double>{2, 2, 5, 6, 6, 12}));
  EXPECT_EQ(values_of(*trace.edges[5].contribution), (std::vector<double>{16, 16, 34}));
  EXPECT_EQ(values_of(*trace.edges[6].contribution), (std::vector<double>{4, 12, 4, 12, 10, 24}));
}

TEST(TensorTapeTrace, TracedAndLeanPassesCommitTheSameGradients) {
  const WorkedExample lean;
  const WorkedExample traced;
  lean.output.backward_with_seed(lean.seed, Retention::Release);
  const TensorBackwardTrace trace =
      traced.output.backward_with_trace(traced.seed, Retention::Release);
  EXPECT_EQ(bits_of(*lean.x.gradient()), bits_of(*traced.x.gradient()));
  EXPECT_EQ(bits_of(*lean.bias.gradient()), bits_of(*traced.bias.gradient()));
  EXPECT_EQ(trace.retention, Retention::Release);
  EXPECT_TRUE(traced.square.is_released());
}

TEST(TensorTapeTrace, UntrackedOperandsAppearAsEdgesWithoutContribution) {
  const TensorValue p = TensorValue::parameter(tensor({2}, {2, 3}));
  const TensorValue c = TensorValue::constant(Tensor::scalar(10));
  const TensorBackwardTrace trace = p.mul(c).sum_axis(0).backward_with_trace();
  ASSERT_EQ(trace.edges.size(), 3u);
  const TensorTraceEdge& constant_edge = trace.edges[2];
  EXPECT_EQ(constant_edge.operand, 1u);
  EXPECT_FALSE(constant_edge.parent_tracked);
  EXPECT_EQ(constant_edge.contribution, std::nullopt);
  EXPECT_EQ(trace.nodes[constant_edge.parent].pass_adjoint, std::nullopt);
  EXPECT_EQ(values_of(*p.gradient()), (std::vector<double>{10, 10}));
}

TEST(TensorTapeDetach, DetachedCopyStopsTheGradient) {
  const TensorValue p = TensorValue::parameter(tensor({2}, {2, 3}));
  const TensorValue detached = p.detach();
  const TensorValue c = TensorValue::constant(Tensor::scalar(10));
  const TensorValue output = p.mul(p).add(detached.mul(c)).sum_axis(0);
  output.backward();
  EXPECT_EQ(values_of(output.value()), (std::vector<double>{63}));
  EXPECT_EQ(values_of(*p.gradient()), (std::vector<double>{4, 6}));
  EXPECT_EQ(detached.gradient(), std::nullopt);
  EXPECT_FALSE(detached.tracks_gradient());
  EXPECT_EQ(detached.operation(), TensorOperation::Detached);
  EXPECT_FALSE(detached.is_same_node(p));
  EXPECT_EQ(bits_of(detached.value()), bits_of(p.value()));
}

// Chapter 15: detach(p) * c has two untracked operands, so the product is
// untracked and keeps no edges. The pass applies five edges, one of them to
// the product (without a contribution), and none reaches c or detach(p).
TEST(TensorTapeDetach, ProductOfDetachedCopyAndConstantKeepsNoEdges) {
  const TensorValue p = TensorValue::parameter(tensor({2}, {2, 3}));
  const TensorValue detached = p.detach();
  const TensorValue c = TensorValue::constant(Tensor::scalar(10));
  const TensorValue product = detached.mul(c);
  EXPECT_FALSE(product.tracks_gradient());
  const TensorBackwardTrace trace = p.mul(p).add(product).sum_axis(0).backward_with_trace();
  ASSERT_EQ(trace.edges.size(), 5u);
  EXPECT_EQ(trace.find(c.node_id()), nullptr);
  EXPECT_EQ(trace.find(detached.node_id()), nullptr);
  const TensorTraceNode* product_node = trace.find(product.node_id());
  ASSERT_NE(product_node, nullptr);
  std::size_t edges_into_product = 0;
  for (const TensorTraceEdge& edge : trace.edges) {
    EXPECT_NE(trace.nodes[edge.child].node_id, product.node_id());  // no edge out of the product
    if (trace.nodes[edge.parent].node_id == product.node_id()) {
      ++edges_into_product;
      EXPECT_EQ(edge.contribution, std::nullopt);
    }
  }
  EXPECT_EQ(edges_into_product, 1u);
}

// Chapter 15's asymmetric product: with two different operands a VJP that
// multiplied the upstream by its own operand would give x_grad
// [1, 4, 3, 8, 5, 12] and bias_grad [3, -3, 0]; sum * sum cannot tell.
TEST(TensorTapeBackward, ProductOfTwoDifferentTensorsSendsEachTheOtherOperand) {
  const TensorValue x = TensorValue::parameter(tensor({2, 3}, {1, 2, 3, 4, 5, 6}));
  const TensorValue bias = TensorValue::parameter(tensor({3}, {1, -1, 0}));
  const TensorValue output =
      x.reshape({3, 2}).transpose(0, 1).mul(bias.broadcast_to({2, 3})).mean_axis(1, KeepDim::No);
  output.backward_with_seed(tensor({2}, {3, 6}), Retention::Release);
  EXPECT_EQ(values_of(*x.gradient()), (std::vector<double>{1, 2, -1, -2, 0, 0}));
  EXPECT_EQ(values_of(*bias.gradient()), (std::vector<double>{5, 11, 17}));
}

TEST(TensorTapeNoGrad, OperationsInsideTheScopeRecordNoGraph) {
  const TensorValue p = TensorValue::parameter(tensor({2}, {2, 3}));
  EXPECT_FALSE(NoGradScope::active());
  {
    const NoGradScope outer;
    {
      const NoGradScope inner;
      EXPECT_TRUE(NoGradScope::active());
    }
    EXPECT_TRUE(NoGradScope::active());
    const TensorValue square = p.mul(p);
    EXPECT_EQ(values_of(square.value()), (std::vector<double>{4, 9}));
    EXPECT_FALSE(square.tracks_gradient());
    EXPECT_EQ(square.operation(), TensorOperation::Mul);
    const auto error = testing::capture_error<TensorAutodiffError>([&] {
      square.backward_with_seed(tensor({2}, {1, 1}), Retention::Retain);
    });
    ASSERT_TRUE(error.has_value());
    EXPECT_EQ(error->kind(), TensorAutodiffErrorKind::UntrackedOutput);
    EXPECT_TRUE(p.tracks_gradient());  // leaves are unaffected
  }
  EXPECT_FALSE(NoGradScope::active());
  const TensorValue square = p.mul(p);
  EXPECT_TRUE(square.tracks_gradient());
}

TEST(TensorTapeStructural, ViewOperationsShareTheOperandStorage) {
  const TensorValue x = TensorValue::parameter(tensor({2, 3}, {1, 2, 3, 4, 5, 6}));
  const SharedTensor storage = x.value();
  for (const TensorValue& view : {x.reshape({3, 2}), x.transpose(0, 1), x.permute({1, 0}),
                                  x.slice(1, 1, 3), x.reshape({1, 2, 3}).broadcast_to({4, 2, 3})}) {
    EXPECT_TRUE(view.value().shares_storage_with(storage)) << view.operation().name();
  }
  const TensorValue copy = x.transpose(0, 1).materialize();
  EXPECT_FALSE(copy.value().shares_storage_with(storage));
  EXPECT_TRUE(copy.value().is_contiguous());
  EXPECT_EQ(values_of(copy.value()), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(x.slice(1, 1, 3).value().offset(), 1u);
  EXPECT_EQ(x.transpose(0, 1).value().strides(), (Strides{1, 3}));
}

TEST(TensorTapeStructural, ReshapeOfANonContiguousValueIsATypedErrorThatRecordsNothing) {
  const TensorValue x = TensorValue::parameter(tensor({2, 3}, {1, 2, 3, 4, 5, 6}));
  const TensorValue transposed = x.transpose(0, 1);
  const std::size_t nodes_before = TensorValue::live_node_count();
  const auto error = testing::capture_error<TensorError>([&] { transposed.reshape({6}); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::NonContiguousReshape);
  EXPECT_EQ(error->strides(), (Strides{1, 3}));
  EXPECT_EQ(TensorValue::live_node_count(), nodes_before);
  EXPECT_EQ(values_of(transposed.materialize().reshape({6}).value()),
            (std::vector<double>{1, 4, 2, 5, 3, 6}));
}

TEST(TensorTapeStructural, AGradientThroughAStrideZeroViewAddsEveryRepetition) {
  const TensorValue bias = TensorValue::parameter(tensor({3}, {1, 2, 3}));
  const TensorValue repeated = bias.broadcast_to({4, 3});
  EXPECT_EQ(repeated.value().strides(), (Strides{0, 1}));
  repeated.sum_axis(0).sum_axis(0).backward();
  EXPECT_EQ(values_of(*bias.gradient()), (std::vector<double>{4, 4, 4}));
}

TEST(TensorTapeErrors, NameTheirAreaAndKindThroughTheBaseClass) {
  const TensorValue x = TensorValue::constant(tensor({2}, {1, 2}));
  try {
    x.backward();
    FAIL() << "an untracked output was reversed";
  } catch (const Error& error) {  // no dynamic_cast needed to report it
    EXPECT_EQ(error.area(), "tensor-tape");
    EXPECT_EQ(error.kind_name(), "untracked-output");
  }
  try {
    x.reshape({3});
    FAIL() << "a reshape changed the element count";
  } catch (const Error& error) {
    EXPECT_EQ(error.area(), "tensor");
    EXPECT_EQ(error.kind_name(), "reshape-count-mismatch");
  }
}

}  // namespace
}  // namespace llm
