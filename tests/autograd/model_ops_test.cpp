// The chapter 16 model operations on the tensor tape: the worked token-to-loss
// chain, the row-gather plan and its validation order, extreme logits and
// activations, the saved probabilities, and the strong guarantee of every
// error kind (gradient bits compared before and after each failure).
#include "llm/autograd/model_ops.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

#include "llm/autograd/tensor_value.hpp"
#include "llm/tensor/matmul.hpp"
#include "llm/tensor/probability.hpp"
#include "tensor_tape_support.hpp"

namespace llm {
namespace {

using testing::bits_of;
using testing::capture_error;
using testing::tape_state;
using testing::tensor;
using testing::values_of;

// The chapter's worked chain: E [3, 2], ids [1, 1, 1, 2], W [2, 2], targets [0, 0, 0, 1].
struct WorkedChain {
  TensorValue embeddings = TensorValue::parameter(tensor({3, 2}, {2, 2, 1, -1, -1, 1}));
  std::vector<std::size_t> ids = {1, 1, 1, 2};
  TensorValue gathered = embeddings.gather_rows(ids, {4});
  TensorValue weights = TensorValue::parameter(tensor({2, 2}, {1, -1, 1, -1}));
  TensorValue projected = gathered.matmul(weights);
  TensorValue activated = projected.silu();
  TensorValue log_probabilities = activated.log_softmax(1);
  std::vector<std::size_t> targets = {0, 0, 0, 1};
  TensorValue loss = activated.indexed_mean_nll(1, targets);
};

TEST(ModelChain, ForwardValuesMatchTheWorkedExample) {
  const WorkedChain chain;
  EXPECT_EQ(chain.gathered.shape(), (Shape{4, 2}));
  EXPECT_EQ(values_of(chain.gathered.value()), (std::vector<double>{1, -1, 1, -1, 1, -1, -1, 1}));
  EXPECT_EQ(values_of(chain.projected.value()), std::vector<double>(8, 0.0));
  EXPECT_EQ(values_of(chain.activated.value()), std::vector<double>(8, 0.0));
  for (double value : values_of(chain.log_probabilities.value())) {
    EXPECT_DOUBLE_EQ(value, -std::log(2.0));
  }
  EXPECT_EQ(chain.loss.shape(), Shape{});
  EXPECT_DOUBLE_EQ(chain.loss.value().at({}), std::log(2.0));
}

TEST(ModelChain, ReverseAddsThreeOccurrencesIntoRowOneWithoutAnotherMean) {
  const WorkedChain chain;
  const TensorBackwardTrace trace = chain.loss.backward_with_trace();
  EXPECT_EQ(values_of(*trace.pass_adjoint(TensorOperation::Silu)),
            (std::vector<double>{-0.125, 0.125, -0.125, 0.125, -0.125, 0.125, 0.125, -0.125}));
  EXPECT_EQ(
      values_of(*trace.pass_adjoint(TensorOperation::MatMul)),
      (std::vector<double>{-0.0625, 0.0625, -0.0625, 0.0625, -0.0625, 0.0625, 0.0625, -0.0625}));
  EXPECT_EQ(values_of(*trace.pass_adjoint(TensorOperation::GatherRows)),
            (std::vector<double>{-0.125, -0.125, -0.125, -0.125, -0.125, -0.125, 0.125, 0.125}));
  EXPECT_EQ(values_of(*chain.embeddings.gradient()),
            (std::vector<double>{0, 0, -0.375, -0.375, 0.125, 0.125}));
  EXPECT_EQ(values_of(*chain.weights.gradient()), (std::vector<double>{-0.25, 0.25, 0.25, -0.25}));
}

TEST(ModelChain, ReleasedGraphOfModelOpsRejectsAnotherPassWithoutMutation) {
  const WorkedChain chain;
  chain.loss.backward_with_seed(Tensor::scalar(1.0), Retention::Release);
  EXPECT_TRUE(chain.activated.is_released());
  const std::vector<TensorValue> nodes = {chain.embeddings, chain.gathered,  chain.weights,
                                          chain.projected,  chain.activated, chain.loss};
  const auto before = tape_state(nodes);
  const auto error = capture_error<TensorAutodiffError>([&] { chain.loss.backward(); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorAutodiffErrorKind::ReleasedGraph);
  EXPECT_EQ(error->operation(), TensorOperation::IndexedMeanNll);
  EXPECT_EQ(tape_state(nodes), before);
  // The log-softmax branch was not part of that pass: it can still be reversed.
  EXPECT_FALSE(chain.log_probabilities.is_released());
}

TEST(ModelChain, NoGradScopeRecordsNoModelOperation) {
  const TensorValue table = TensorValue::parameter(tensor({2, 2}, {1, 2, 3, 4}));
  const std::vector<std::size_t> ids = {1, 0};
  NoGradScope no_grad;
  const TensorValue result = table.gather_rows(ids, {2}).matmul(table).silu().exp().log_softmax(1);
  EXPECT_FALSE(result.tracks_gradient());
}

TEST(ModelChain, AssignedParameterMakesARecordedMatmulStale) {
  const TensorValue left = TensorValue::parameter(tensor({1, 2}, {1, 2}));
  TensorValue right = TensorValue::parameter(tensor({2, 1}, {3, 4}));
  const TensorValue product = left.matmul(right);
  EXPECT_EQ(values_of(product.value()), std::vector<double>{11});
  right.assign(tensor({2, 1}, {5, 6}));
  const auto error =
      capture_error<TensorAutodiffError>([&] { product.sum_axis(0).sum_axis(0).backward(); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorAutodiffErrorKind::StaleOperand);
  EXPECT_EQ(values_of(*left.gradient()), (std::vector<double>{0, 0}));
}

TEST(ModelMatmul, BroadcastsBatchAxesLikeTheKernel) {
  const Tensor a = tensor({1, 2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor b = tensor({4, 3, 2}, std::vector<double>(24, 0.5));
  const TensorValue product = TensorValue::constant(a).matmul(TensorValue::constant(b));
  EXPECT_EQ(product.shape(), (Shape{4, 2, 2}));
  EXPECT_EQ(bits_of(product.value()), bits_of(matmul(a.view(), b.view())));
}

TEST(RowGatherPlan, SealsSelectorsAndShapesOfAValidRequest) {
  const std::vector<std::size_t> ids = {1, 1, 1, 2};
  const RowGatherPlan plan = RowGatherPlan::checked({3, 2}, ids, {2, 2});
  EXPECT_EQ(plan.ids(), ids);
  EXPECT_EQ(plan.index_shape(), (Shape{2, 2}));
  EXPECT_EQ(plan.table_shape(), (Shape{3, 2}));
  EXPECT_EQ(plan.output_shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(plan.output_size(), 8u);
  EXPECT_EQ(plan.width(), 2u);
}

TEST(RowGatherPlan, AcceptsARankZeroIndexShapeAsOneSelector) {
  const TensorValue table = TensorValue::parameter(tensor({3, 2}, {1, 2, 3, 4, 5, 6}));
  const std::vector<std::size_t> ids = {2};
  const TensorValue row = table.gather_rows(ids, {});
  EXPECT_EQ(row.shape(), Shape{2});
  EXPECT_EQ(values_of(row.value()), (std::vector<double>{5, 6}));
}

TEST(RowGatherPlan, TableRankWinsOverCountAndBounds) {
  const std::vector<std::size_t> ids = {9, 9, 9};  // wrong count and out of bounds too
  const auto error = capture_error<ModelOpError>([&] {
    RowGatherPlan::checked({3, 2, 1}, ids, {2});
  });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), ModelOpErrorKind::GatherTableRank);
  EXPECT_EQ(error->rank(), 3u);
  EXPECT_STREQ(error->what(),
               "gather_rows needs a rank-two table [R, D], but the table has shape [3, 2, 1] of "
               "rank 3");
}

TEST(RowGatherPlan, IndexShapeOverflowWinsOverCountAndBounds) {
  const std::vector<std::size_t> ids = {9};
  const std::size_t huge = std::numeric_limits<std::size_t>::max();
  const auto error = capture_error<TensorError>([&] {
    RowGatherPlan::checked({3, 2}, ids, {huge, 2});
  });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::ShapeOverflow);
}

TEST(RowGatherPlan, CountWinsOverBounds) {
  const std::vector<std::size_t> ids = {9, 9, 9};
  const auto error = capture_error<ModelOpError>([&] {
    RowGatherPlan::checked({3, 2}, ids, {2, 2});
  });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), ModelOpErrorKind::GatherIndexCountMismatch);
  EXPECT_EQ(error->expected(), 4u);
  EXPECT_EQ(error->actual(), 3u);
  EXPECT_STREQ(error->what(), "gather_rows index shape has 4 positions, but 3 ids were given");
}

TEST(RowGatherPlan, ReportsTheFirstBadSelectorInFlatOrder) {
  const std::vector<std::size_t> ids = {0, 2, 3, 7};
  const auto error = capture_error<ModelOpError>([&] {
    RowGatherPlan::checked({3, 2}, ids, {2, 2});
  });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), ModelOpErrorKind::GatherIndexOutOfBounds);
  EXPECT_EQ(error->position(), 2u);
  EXPECT_EQ(error->index(), 3u);
  EXPECT_EQ(error->rows(), 3u);
  EXPECT_STREQ(error->what(),
               "gather_rows id 3 at flat position 2 is out of bounds for a table with 3 rows");
}

TEST(ModelGatherRows, ScatterAddsEachOccurrenceOfARepeatedId) {
  const TensorValue table = TensorValue::parameter(tensor({3, 2}, {1, 2, 3, 4, 5, 6}));
  const std::vector<std::size_t> ids = {2, 1, 2};
  const TensorValue rows = table.gather_rows(ids, {3});
  EXPECT_EQ(values_of(rows.value()), (std::vector<double>{5, 6, 3, 4, 5, 6}));
  rows.backward_with_seed(tensor({3, 2}, {1, 10, 100, 1000, 0.5, 0.25}), Retention::Retain);
  EXPECT_EQ(values_of(*table.gradient()), (std::vector<double>{0, 0, 100, 1000, 1.5, 10.25}));
}

TEST(ModelGatherRows, ConstantTableGivesAnUntrackedResult) {
  const TensorValue table = TensorValue::constant(tensor({2, 1}, {1, 2}));
  const std::vector<std::size_t> ids = {1};
  EXPECT_FALSE(table.gather_rows(ids, {1}).tracks_gradient());
}

TEST(ModelProbability, LogSoftmaxAtExtremeLogitsIsFiniteAndExact) {
  const TensorValue logits =
      TensorValue::parameter(tensor({3, 2}, {1000, -1000, -1000, 1000, 1000, 1000}));
  const TensorValue log_probabilities = logits.log_softmax(1);
  const double ln2 = std::log(2.0);
  EXPECT_EQ(values_of(log_probabilities.value()),
            (std::vector<double>{0, -2000, -2000, 0, -ln2, -ln2}));
  // dx = g - P sum(g) with P = [1, 0], [0, 1], [1/2, 1/2].
  log_probabilities.backward_with_seed(tensor({3, 2}, {1, 2, 3, 5, 4, 8}), Retention::Retain);
  EXPECT_EQ(values_of(*logits.gradient()), (std::vector<double>{-2, 2, 3, -3, -2, 2}));
}

TEST(ModelProbability, IndexedMeanNllAtExtremeLogitsIsFiniteAndExact) {
  const TensorValue logits =
      TensorValue::parameter(tensor({3, 2}, {1000, -1000, -1000, 1000, 1000, 1000}));
  const std::vector<std::size_t> targets = {1, 1, 0};
  const TensorValue loss = logits.indexed_mean_nll(1, targets);
  // -log P[t]: 2000, 0 and ln 2, averaged over three groups.
  EXPECT_DOUBLE_EQ(loss.value().at({}), (2000.0 + std::log(2.0)) / 3.0);
  loss.backward_with_seed(Tensor::scalar(3.0), Retention::Retain);  // L / G = 1
  EXPECT_EQ(values_of(*logits.gradient()), (std::vector<double>{1, -1, 0, 0, -0.5, 0.5}));
}

TEST(ModelProbability, IndexedMeanNllScalesByUpstreamOverGroupCount) {
  const TensorValue logits = TensorValue::parameter(tensor({2, 2}, {0, 0, 0, 0}));
  const std::vector<std::size_t> targets = {0, 1};
  logits.indexed_mean_nll(1, targets).backward_with_seed(Tensor::scalar(4.0), Retention::Retain);
  // (4 / 2) (P - one_hot) with P = 1/2 everywhere.
  EXPECT_EQ(values_of(*logits.gradient()), (std::vector<double>{-1, 1, 1, -1}));
}

// For the seed g = -e_j in every group, the log-softmax VJP returns
// g - P sum(g) = P exactly at every class other than j (0 - P * -1), so the
// contribution reveals the saved probabilities' bits.
TEST(ModelProbability, LogSoftmaxSavesTheProbabilityBitsItsForwardCallEmitted) {
  const Tensor input = tensor({2, 3}, {0.7, -0.4, 1.1, -0.2, 0.3, 0.8});
  const Tensor direct = *log_softmax_forward(input.view(), 1, EmitProbabilities::Yes).probabilities;
  const TensorValue logits = TensorValue::parameter(input);
  const TensorValue log_probabilities = logits.log_softmax(1);
  std::vector<bool> checked(6, false);
  for (std::size_t j = 0; j < 3; ++j) {
    Tensor seed = Tensor::zeros({2, 3});
    for (std::size_t g = 0; g < 2; ++g) seed.mutable_values()[g * 3 + j] = -1.0;
    const TensorBackwardTrace trace =
        log_probabilities.backward_with_trace(seed, Retention::Retain);
    const Tensor& contribution = *trace.edges.at(0).contribution;
    for (std::size_t k = 0; k < 6; ++k) {
      if (k % 3 == j) continue;
      EXPECT_EQ(std::bit_cast<std::uint64_t>(contribution.values()[k]),
                std::bit_cast<std::uint64_t>(direct.values()[k]))
          << "flat " << k;
      checked[k] = true;
    }
  }
  EXPECT_EQ(checked, std::vector<bool>(6, true));
}

// With upstream L = G the NLL VJP is 1 * (P - [c = t]), which is P exactly at
// every non-target class; two target sets cover every class.
TEST(ModelProbability, IndexedMeanNllSavesTheProbabilityBitsItsForwardCallEmitted) {
  const Tensor input = tensor({2, 3}, {0.7, -0.4, 1.1, -0.2, 0.3, 0.8});
  const Tensor direct = *indexed_mean_nll_forward(input.view(), 1, std::vector<std::size_t>{2, 0},
                                                  EmitProbabilities::Yes)
                             .probabilities;
  const TensorValue logits = TensorValue::parameter(input);
  for (const std::vector<std::size_t>& targets :
       {std::vector<std::size_t>{2, 0}, std::vector<std::size_t>{0, 1}}) {
    const TensorValue loss = logits.indexed_mean_nll(1, targets);
    const TensorBackwardTrace trace =
        loss.backward_with_trace(Tensor::scalar(2.0), Retention::Retain);
    const Tensor& contribution = *trace.edges.at(0).contribution;
    for (std::size_t k = 0; k < 6; ++k) {
      if (k % 3 == targets[k / 3]) continue;
      EXPECT_EQ(std::bit_cast<std::uint64_t>(contribution.values()[k]),
                std::bit_cast<std::uint64_t>(direct.values()[k]))
          << "flat " << k;
    }
  }
}

TEST(ModelActivation, SiluAtLargeMagnitudesHasFiniteValueAndDerivative) {
  const TensorValue x = TensorValue::parameter(tensor({4}, {-1000, -50, 50, 1000}));
  const TensorValue y = x.silu();
  const std::vector<double> values = values_of(y.value());
  EXPECT_EQ(values[0], 0.0);  // -1000 * sigmoid(-1000) = -1000 * 0
  EXPECT_DOUBLE_EQ(values[1], -50.0 * std::exp(-50.0) / (1.0 + std::exp(-50.0)));
  EXPECT_EQ(values[2], 50.0);
  EXPECT_EQ(values[3], 1000.0);
  y.backward_with_seed(tensor({4}, {1, 1, 1, 1}), Retention::Retain);
  const Tensor gradient = *x.gradient();
  const double s = std::exp(-50.0) / (1.0 + std::exp(-50.0));
  EXPECT_EQ(gradient.values()[0], 0.0);
  EXPECT_DOUBLE_EQ(gradient.values()[1], s * (1.0 - 50.0 * (1.0 - s)));
  EXPECT_EQ(gradient.values()[2], 1.0);
  EXPECT_EQ(gradient.values()[3], 1.0);
  for (double value : gradient.values()) EXPECT_TRUE(std::isfinite(value));
}

TEST(ModelActivation, ScalarProbesGiveTheTextbookValuesAndDerivatives) {
  struct Probe {
    double input;
    TensorValue (TensorValue::*operation)() const;
    double value;
    double derivative;
  };
  for (const Probe& probe :
       {Probe{0.0, &TensorValue::exp, 1.0, 1.0}, Probe{1.0, &TensorValue::log, 0.0, 1.0},
        Probe{0.0, &TensorValue::silu, 0.0, 0.5}}) {
    const TensorValue x = TensorValue::parameter(Tensor::scalar(probe.input));
    const TensorValue y = (x.*probe.operation)();
    y.backward();
    EXPECT_EQ(y.value().at({}), probe.value);
    EXPECT_EQ(x.gradient()->values()[0], probe.derivative);
  }
}

// --- The strong guarantee: every error kind after a real backward -------------

// Parameters with non-zero stored gradients from one real backward pass each.
struct ProtectedGradients {
  TensorValue table = TensorValue::parameter(tensor({2, 2}, {1, 2, 3, 4}));
  TensorValue logits = TensorValue::parameter(tensor({2, 2}, {1, -1, 0.5, -0.5}));
  TensorValue empty_logits = TensorValue::parameter(tensor({0, 2}, {}));
  TensorValue overflow = TensorValue::parameter(Tensor::scalar(std::numeric_limits<double>::max()));
  TensorValue tiny = TensorValue::parameter(tensor({2}, {1e-320, 1}));

  ProtectedGradients() {
    table.sum_axis(0).sum_axis(0).backward();
    logits.mul(logits).sum_axis(1).sum_axis(0).backward();
    empty_logits.sum_axis(0).sum_axis(0).backward();
    overflow.backward();
    tiny.sum_axis(0).backward();
  }
  std::vector<TensorValue> nodes() const { return {table, logits, empty_logits, overflow, tiny}; }
};

TEST(ModelOpErrors, EveryModelErrorKindLeavesGradientBitsUnchanged) {
  const ProtectedGradients p;
  ASSERT_EQ(values_of(*p.table.gradient()), (std::vector<double>{1, 1, 1, 1}));
  const auto before = tape_state(p.nodes());
  const std::vector<std::size_t> bad_id = {2};
  const std::vector<std::size_t> two_ids = {0, 1};
  const auto rank = capture_error<ModelOpError>([&] { p.tiny.gather_rows(bad_id, {1}); });
  const auto count = capture_error<ModelOpError>([&] { p.table.gather_rows(two_ids, {3}); });
  const auto bounds = capture_error<ModelOpError>([&] { p.table.gather_rows(bad_id, {1}); });
  const auto log = capture_error<ModelOpError>([&] { p.logits.log(); });
  ASSERT_TRUE(rank && count && bounds && log);
  EXPECT_EQ(rank->kind(), ModelOpErrorKind::GatherTableRank);
  EXPECT_EQ(count->kind(), ModelOpErrorKind::GatherIndexCountMismatch);
  EXPECT_EQ(bounds->kind(), ModelOpErrorKind::GatherIndexOutOfBounds);
  EXPECT_EQ(log->kind(), ModelOpErrorKind::LogNonPositiveInput);
  EXPECT_EQ(log->coordinate(), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(log->value(), -1.0);
  EXPECT_STREQ(log->what(),
               "log needs positive inputs, but the value at coordinate [0, 1] of shape [2, 2] is "
               "-1.0");
  EXPECT_EQ(tape_state(p.nodes()), before);
}

TEST(ModelOpErrors, EveryKernelErrorKindLeavesGradientBitsUnchanged) {
  const ProtectedGradients p;
  const auto before = tape_state(p.nodes());
  const std::vector<std::size_t> out_of_range = {0, 2};
  const std::vector<std::size_t> one_target = {0};
  const std::vector<std::size_t> none = {};
  struct Expected {
    std::function<void()> call;
    TensorErrorKind kind;
  };
  const std::vector<Expected> cases = {
      {[&] { p.logits.indexed_mean_nll(1, out_of_range); }, TensorErrorKind::TargetOutOfRange},
      {[&] { p.empty_logits.indexed_mean_nll(1, none); }, TensorErrorKind::EmptyTargets},
      {[&] { p.logits.indexed_mean_nll(1, one_target); }, TensorErrorKind::TargetCountMismatch},
      {[&] { p.logits.indexed_mean_nll(2, out_of_range); }, TensorErrorKind::InvalidAxis},
      {[&] { p.logits.log_softmax(2); }, TensorErrorKind::InvalidAxis},
      {[&] { p.empty_logits.log_softmax(0); }, TensorErrorKind::EmptyAxis},
      {[&] { p.tiny.matmul(p.table); }, TensorErrorKind::MatMulRank},
      {[&] { p.table.matmul(p.table.gather_rows(one_target, {1})); },
       TensorErrorKind::MatMulInnerMismatch},
  };
  for (const Expected& c : cases) {
    const auto error = capture_error<TensorError>(c.call);
    ASSERT_TRUE(error);
    EXPECT_EQ(error->kind(), c.kind) << error->what();
    EXPECT_EQ(tape_state(p.nodes()), before) << error->what();
  }
}

TEST(ModelOpErrors, ExpOverflowIsANonFiniteResultThatChangesNoGradient) {
  const ProtectedGradients p;
  ASSERT_EQ(values_of(*p.overflow.gradient()), std::vector<double>{1});
  const auto before = tape_state(p.nodes());
  const auto error = capture_error<TensorAutodiffError>([&] { p.overflow.exp(); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorAutodiffErrorKind::NonFiniteResult);
  EXPECT_EQ(error->operation(), TensorOperation::Exp);
  EXPECT_EQ(error->value(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(tape_state(p.nodes()), before);
}

TEST(ModelOpErrors, LogOfASubnormalInputFailsInReverseWithoutMutation) {
  const ProtectedGradients p;
  const TensorValue log = p.tiny.log();  // ln(1e-320) is finite, 1 / 1e-320 is not
  EXPECT_TRUE(std::isfinite(values_of(log.value())[0]));
  const auto before = tape_state(p.nodes());
  const auto error = capture_error<TensorAutodiffError>([&] {
    log.backward_with_seed(tensor({2}, {1, 1}), Retention::Release);
  });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorAutodiffErrorKind::NonFiniteContribution);
  EXPECT_EQ(error->operation(), TensorOperation::Log);
  EXPECT_EQ(tape_state(p.nodes()), before);
  EXPECT_FALSE(log.is_released());
}

}  // namespace
}  // namespace llm
