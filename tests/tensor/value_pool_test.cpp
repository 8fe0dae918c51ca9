// The per-thread cache of large value buffers behind Tensor and SharedTensor.
// Under AddressSanitizer the pool is off (value_pool::kEnabled): a freed
// buffer stays freed so that a read through a dangling view is reported. Each
// test then asserts what holds there instead: nothing is cached, no buffer is
// handed out again, and tensors still start as zeros.
#include "llm/tensor/value_pool.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "llm/tensor/kernel_output.hpp"
#include "llm/tensor/shared_tensor.hpp"
#include "llm/tensor/tensor.hpp"

namespace llm {
namespace {

constexpr std::size_t kLarge = value_pool::kSmallestPooled * 4;

TEST(ValuePool, ReusesTheBufferOfADeadTensorForTheNextOneOfThatSize) {
  const double* first = nullptr;
  {
    const Tensor big = Tensor::filled({kLarge}, 3.0);
    first = big.values().data();
  }
  const Tensor again = Tensor::zeros({kLarge});
  if constexpr (value_pool::kEnabled) {
    EXPECT_EQ(again.values().data(), first);
  } else {  // the freed buffer stays freed (ASan quarantines it), nothing is cached
    EXPECT_NE(again.values().data(), first);
    EXPECT_EQ(value_pool::cached_bytes(), 0u);
  }
  // Tensor::zeros still means zeros, whatever the buffer held before.
  for (double value : again.values()) ASSERT_EQ(value, 0.0);
}

TEST(ValuePool, KeepsSharedStorageBuffersToo) {
  const double* first = nullptr;
  {
    const SharedTensor shared(Tensor::filled({kLarge}, 3.0));
    first = shared.contiguous_values().data();
  }
  const Tensor output = kernel_output({kLarge});
  if constexpr (value_pool::kEnabled) {
    EXPECT_EQ(output.values().data(), first);  // reused without zeroing
  } else {
    EXPECT_NE(output.values().data(), first);
    EXPECT_EQ(value_pool::cached_bytes(), 0u);
  }
  EXPECT_EQ(output.size(), kLarge);
}

TEST(ValuePool, LeavesSmallBuffersToMallocAndStaysWithinItsBound) {
  const std::size_t before = value_pool::cached_bytes();
  { const Tensor small = Tensor::zeros({16}); }
  EXPECT_EQ(value_pool::cached_bytes(), before);
  {
    std::vector<Tensor> many;
    for (int k = 0; k < 200; ++k)
      many.push_back(Tensor::zeros({kLarge + static_cast<std::size_t>(k)}));
  }
  EXPECT_LE(value_pool::cached_bytes(), value_pool::kMaximumBytes);
  if constexpr (value_pool::kEnabled) {
    EXPECT_GT(value_pool::cached_bytes(), before);
  } else {
    EXPECT_EQ(value_pool::cached_bytes(), 0u);
  }
}

TEST(ValuePool, RoundsAFreshBufferUpToItsSizeClassAndServesTheWholeClassFromIt) {
  // Classes are a quarter of a power of two apart: 4096 is one, 4097 rounds
  // up to 5120, and 5120 serves every count in (4096, 5120].
  EXPECT_EQ(value_pool::pooled_capacity(value_pool::kSmallestPooled - 1),
            value_pool::kSmallestPooled - 1);
  if constexpr (!value_pool::kEnabled) {
    EXPECT_EQ(value_pool::pooled_capacity(4097), 4097u);
    return;
  }
  EXPECT_EQ(value_pool::pooled_capacity(4096), 4096u);
  EXPECT_EQ(value_pool::pooled_capacity(4097), 5120u);
  EXPECT_EQ(value_pool::pooled_capacity(5120), 5120u);
  EXPECT_EQ(value_pool::pooled_capacity(7169), 8192u);
  const double* first = nullptr;
  {
    const Tensor made = Tensor::filled({4097}, 2.0);
    EXPECT_EQ(made.values().size(), 4097u);
    first = made.values().data();
  }
  const Tensor larger = kernel_output({5120});  // same class: the same buffer, grown in place
  EXPECT_EQ(larger.values().data(), first);
  EXPECT_EQ(larger.size(), 5120u);
  const Tensor other = Tensor::zeros({5121});  // the next class: a fresh buffer
  EXPECT_NE(other.values().data(), first);
  for (double value : other.values()) ASSERT_EQ(value, 0.0);
}

TEST(ValuePool, IsPerThread) {
  { const Tensor big = Tensor::zeros({kLarge * 2}); }
  // This thread cached the buffer (when the pool is on); another thread has nothing.
  EXPECT_EQ(value_pool::cached_bytes() > 0, value_pool::kEnabled);
  std::size_t other_thread_bytes = 1;
  std::thread other([&] { other_thread_bytes = value_pool::cached_bytes(); });
  other.join();
  EXPECT_EQ(other_thread_bytes, 0u);
}

}  // namespace
}  // namespace llm
