// What the tape promises about threads (docs/data-model.md, concurrency):
// separate tapes on separate threads are independent and give the same bits
// as a serial run; a NoGradScope affects only its own thread; value() handles
// may be read from any thread while the tape's own thread assigns.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "llm/autograd/tensor_value.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::bits_of;
using testing::values_of;

// One small training step on a tape of the caller's own; returns the bits of
// both gradients after `steps` steps.
std::vector<std::uint64_t> train(std::size_t steps, double offset) {
  const TensorValue w = TensorValue::parameter(Tensor({3, 2}, {0.1, -0.2, 0.3, 0.4, -0.5, 0.6}));
  const TensorValue x = TensorValue::constant(Tensor({4, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3}));
  const std::array<std::size_t, 4> targets = {0, 1, 1, 0};
  for (std::size_t step = 0; step < steps; ++step) {
    const TensorValue loss = x.matmul(w).silu().indexed_mean_nll(1, targets);
    loss.backward_with_seed(Tensor::scalar(1.0), Retention::Release);
    Tensor next = w.value().materialize();
    for (std::size_t k = 0; k < next.size(); ++k) {
      next.mutable_values()[k] -= (0.1 + offset) * w.gradient()->values()[k];
    }
    TensorValue handle = w;
    handle.assign(std::move(next));
    w.zero_grad();
  }
  return bits_of(w.value());
}

TEST(TapeConcurrency, SeparateTapesOnSeparateThreadsMatchASerialRun) {
  const std::vector<std::uint64_t> serial_a = train(200, 0.0);
  const std::vector<std::uint64_t> serial_b = train(200, 0.01);
  std::vector<std::uint64_t> threaded_a, threaded_b;
  std::thread first([&] { threaded_a = train(200, 0.0); });
  std::thread second([&] { threaded_b = train(200, 0.01); });
  first.join();
  second.join();
  EXPECT_EQ(threaded_a, serial_a);
  EXPECT_EQ(threaded_b, serial_b);
  EXPECT_NE(serial_a, serial_b);
}

TEST(TapeConcurrency, ANoGradScopeAffectsOnlyItsOwnThread) {
  const TensorValue p = TensorValue::parameter(Tensor({2}, {1, 2}));
  std::atomic<bool> scope_open{false};
  std::atomic<bool> checked{false};
  bool other_thread_tracked = false;
  std::thread scoped([&] {
    const NoGradScope no_grad;
    EXPECT_FALSE(p.mul(p).tracks_gradient());
    scope_open = true;
    while (!checked) std::this_thread::yield();
  });
  while (!scope_open) std::this_thread::yield();
  other_thread_tracked = p.mul(p).tracks_gradient() && !NoGradScope::active();
  checked = true;
  scoped.join();
  EXPECT_TRUE(other_thread_tracked);
}

TEST(TapeConcurrency, ValueHandlesMayBeReadOnAnotherThreadWhileTheOwnerAssigns) {
  TensorValue p = TensorValue::parameter(Tensor({1024}, std::vector<double>(1024, 1.0)));
  std::vector<SharedTensor> handles;
  for (int k = 0; k < 50; ++k) handles.push_back(p.value());  // each keeps its storage
  std::atomic<bool> reading{true};
  double total = 0.0;
  std::thread reader([&] {
    // Reads only the handles it was given: immutable storage, nothing to lock.
    while (reading) {
      for (const SharedTensor& handle : handles) total += handle.contiguous_values()[7];
    }
  });
  for (int k = 2; k < 200; ++k) {
    p.assign(Tensor({1024}, std::vector<double>(1024, static_cast<double>(k))));
  }
  reading = false;
  reader.join();
  for (const SharedTensor& handle : handles) {
    EXPECT_EQ(values_of(handle), std::vector<double>(1024, 1.0));
  }
  EXPECT_EQ(values_of(p.value()), std::vector<double>(1024, 199.0));
  EXPECT_GE(total, 0.0);
}

}  // namespace
}  // namespace llm
