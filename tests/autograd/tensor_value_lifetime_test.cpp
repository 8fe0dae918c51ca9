// Graph lifetime on the tensor tape: a million-operation chain is freed
// without recursion on an 8 MiB stack, a released graph frees everything but
// the values handles name, a logging loop does not grow, and a value() handle
// stays valid after assign(). Also built with AddressSanitizer
// (tensor_value_lifetime_asan_test), where a dangling read would abort.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <vector>

#include "llm/autograd/tensor_value.hpp"
#include "llm/format.hpp"
#include "llm/tensor/shared_tensor.hpp"
#include "support/fixed_stack.hpp"
#include "support/sanitizer.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::run_with_stack;
using testing::values_of;

constexpr std::size_t kChainLength = 1'000'000;

TEST(TensorGraphLifetime, AMillionOperationChainIsReversedAndFreedOnAnEightMiBStack) {
  const std::size_t nodes_before = TensorValue::live_node_count();
  run_with_stack(testing::kDefaultStackBytes, [] {
    const TensorValue x = TensorValue::parameter(Tensor({1}, {0.5}));
    const TensorValue step = TensorValue::constant(Tensor({1}, {0.25}));
    {
      TensorValue chain = x;
      for (std::size_t k = 0; k < kChainLength; ++k) chain = chain.add(step);
      const TensorValue output = chain.sum_axis(0);
      output.backward();
      EXPECT_EQ(values_of(*x.gradient()), (std::vector<double>{1.0}));
      EXPECT_EQ(output.value().at({}), 0.5 + 0.25 * static_cast<double>(kChainLength));
    }  // the last handles of the chain go here: one destructor call, no recursion
  });
  EXPECT_EQ(TensorValue::live_node_count(), nodes_before);
}

// A small model step: gather rows of E [5, 4] for ids [2, 3], project with
// W [4, 3], SiLU, mean NLL over the class axis. Only the loss handle is kept.
TensorValue model_loss(const TensorValue& embeddings, const TensorValue& weights) {
  const std::array<std::size_t, 6> ids = {0, 3, 1, 4, 4, 2};
  const std::array<std::size_t, 6> targets = {2, 0, 1, 1, 0, 2};
  return embeddings.gather_rows(ids, {2, 3}).matmul(weights).silu().indexed_mean_nll(2, targets);
}

Tensor counting(const Shape& shape, double scale) {
  Tensor tensor = Tensor::zeros(shape);
  std::span<double> values = tensor.mutable_values();
  for (std::size_t k = 0; k < values.size(); ++k) {
    values[k] = scale * static_cast<double>(static_cast<int>(k % 7) - 3);
  }
  return tensor;
}

TEST(TensorGraphLifetime, ARetainedGraphKeepsItsIntermediatesAndAReleasedOneDoesNot) {
  const std::size_t nodes_before = TensorValue::live_node_count();
  const TensorValue embeddings = TensorValue::parameter(counting({5, 4}, 0.1));
  const TensorValue weights = TensorValue::parameter(counting({4, 3}, 0.2));
  const TensorValue retained = model_loss(embeddings, weights);
  retained.backward(Retention::Retain);
  // The loss names gather, matmul and silu through its edges: all alive.
  EXPECT_EQ(TensorValue::live_node_count(), nodes_before + 2 + 4);
  const TensorValue released = model_loss(embeddings, weights);
  released.backward();  // the default releases
  EXPECT_TRUE(released.is_released());
  EXPECT_FALSE(retained.is_released());
  EXPECT_EQ(TensorValue::live_node_count(), nodes_before + 2 + 4 + 1);
  EXPECT_EQ(released.value().at({}), retained.value().at({}));
}

TEST(TensorGraphLifetime, BackwardReleasesByDefaultSoASecondPassNamesTheReleasedGraph) {
  const TensorValue embeddings = TensorValue::parameter(counting({5, 4}, 0.1));
  const TensorValue weights = TensorValue::parameter(counting({4, 3}, 0.2));
  const TensorValue loss = model_loss(embeddings, weights);
  loss.backward();
  EXPECT_TRUE(loss.is_released());
  const Tensor gradient = *weights.gradient();
  const auto error = testing::capture_error<TensorAutodiffError>([&] { loss.backward(); });
  EXPECT_EQ(error->kind(), TensorAutodiffErrorKind::ReleasedGraph);
  EXPECT_EQ(testing::bits_of(*weights.gradient()), testing::bits_of(gradient));
  const TensorValue traced = model_loss(embeddings, weights);
  EXPECT_EQ(traced.backward_with_trace().retention, Retention::Release);
  EXPECT_TRUE(traced.is_released());
}

TEST(TensorGraphLifetime, ReleaseLeavesExactlyTheLossAndTheParameters) {
  const std::size_t nodes_before = TensorValue::live_node_count();
  const StorageStatistics storage_before = storage_statistics();
  const TensorValue embeddings = TensorValue::parameter(counting({5, 4}, 0.1));
  const TensorValue weights = TensorValue::parameter(counting({4, 3}, 0.2));
  const TensorValue loss = model_loss(embeddings, weights);
  loss.backward_with_seed(Tensor::scalar(1.0), Retention::Release);
  EXPECT_EQ(TensorValue::live_node_count(), nodes_before + 3);
  const StorageStatistics after = storage_statistics();
  EXPECT_EQ(after.blocks, storage_before.blocks + 3);
  EXPECT_EQ(after.bytes, storage_before.bytes + (20 + 12 + 1) * sizeof(double));
}

TEST(TensorGraphLifetime, KeepingEveryLossForLoggingDoesNotKeepItsGraph) {
  const std::size_t nodes_before = TensorValue::live_node_count();
  const StorageStatistics storage_before = storage_statistics();
  const TensorValue embeddings = TensorValue::parameter(counting({5, 4}, 0.1));
  const TensorValue weights = TensorValue::parameter(counting({4, 3}, 0.2));
  std::vector<TensorValue> losses;
  for (std::size_t step = 1; step <= 2000; ++step) {
    const TensorValue loss = model_loss(embeddings, weights);
    loss.backward_with_seed(Tensor::scalar(1.0), Retention::Release);
    losses.push_back(loss);
    // A plain gradient step, then zero the gradients through the parameters.
    for (const TensorValue& parameter : {embeddings, weights}) {
      Tensor next = parameter.value().materialize();
      for (std::size_t k = 0; k < next.size(); ++k) {
        next.mutable_values()[k] -= 0.05 * parameter.gradient()->values()[k];
      }
      TensorValue handle = parameter;
      handle.assign(std::move(next));
      parameter.zero_grad();
    }
    if (step % 500 == 0) {
      // Per step exactly one node and one 8-byte value survive: the loss.
      EXPECT_EQ(TensorValue::live_node_count(), nodes_before + 2 + step) << step;
      const StorageStatistics now = storage_statistics();
      EXPECT_EQ(now.blocks, storage_before.blocks + 2 + step) << step;
      EXPECT_EQ(now.bytes, storage_before.bytes + (20 + 12 + step) * sizeof(double)) << step;
    }
  }
  EXPECT_LT(losses.back().value().at({}), losses.front().value().at({}));  // it did train
}

TEST(TensorValueHandles, ReadValueThenAssignThenUseTheFirstHandle) {
  TensorValue p = TensorValue::parameter(Tensor({3}, {1, 2, 3}));
  const SharedTensor first = p.value();
  const TensorView view = first.view();
  p.assign(Tensor({3}, {4, 5, 6}));
  // The first handle still owns the old storage: reading it is safe.
  EXPECT_EQ(values_of(first), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(view.at(std::vector<std::size_t>{1}), 2.0);
  EXPECT_EQ(format_list(first.contiguous_values()), "[1.0, 2.0, 3.0]");
  EXPECT_EQ(values_of(p.value()), (std::vector<double>{4, 5, 6}));
  EXPECT_FALSE(first.shares_storage_with(p.value()));
  p.assign(Tensor({3}, {7, 8, 9}));
  EXPECT_EQ(values_of(first), (std::vector<double>{1, 2, 3}));
}

TEST(TensorValueHandles, OutliveEveryHandleToTheirNode) {
  SharedTensor kept;
  {
    const TensorValue x = TensorValue::parameter(Tensor({2, 2}, {1, 2, 3, 4}));
    kept = x.transpose(0, 1).value();  // a view sharing x's storage
  }
  EXPECT_EQ(values_of(kept), (std::vector<double>{1, 3, 2, 4}));
  EXPECT_FALSE(kept.is_contiguous());
}

#if defined(LLM_TEST_UNDER_ASAN)
// Proof that the *_asan_test build really checks: reading through a view of
// storage that is gone is reported (the tape's handles above never do this).
TEST(TensorValueHandlesDeathTest, AddressSanitizerReportsAViewOfStorageThatIsGone) {
  EXPECT_DEATH(
      {
        const TensorView dangling = [] {
          const Tensor temporary({4}, {1, 2, 3, 4});
          return temporary.view();
        }();
        volatile double read = dangling.at(std::vector<std::size_t>{2});
        (void)read;
      },
      "heap-use-after-free");
}
#endif

}  // namespace
}  // namespace llm
