// SharedTensor: owning immutable handles on shared storage, O(1) layout
// changes, explicit copies, and the live-storage counters.
#include "llm/tensor/shared_tensor.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::values_of;

TEST(SharedTensor, TakesOverATensorsValuesWithoutCopying) {
  Tensor tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  const double* values = tensor.values().data();
  const SharedTensor shared(std::move(tensor));
  EXPECT_EQ(shared.contiguous_values().data(), values);
  EXPECT_EQ(shared.shape(), (Shape{2, 3}));
  EXPECT_EQ(shared.strides(), (Strides{3, 1}));
}

TEST(SharedTensor, LayoutChangesShareStorageAndCopiesDoNot) {
  const SharedTensor matrix(Tensor({2, 3}, {10, 11, 12, 20, 21, 22}));
  const SharedTensor transposed = matrix.transpose(0, 1);
  EXPECT_TRUE(transposed.shares_storage_with(matrix));
  EXPECT_EQ(values_of(transposed), (std::vector<double>{10, 20, 11, 21, 12, 22}));
  const SharedTensor contiguous = transposed.contiguous();
  EXPECT_FALSE(contiguous.shares_storage_with(matrix));
  EXPECT_TRUE(contiguous.is_contiguous());
  EXPECT_TRUE(matrix.contiguous().shares_storage_with(matrix));  // already contiguous: no copy
  const SharedTensor copy = SharedTensor::copy_of(matrix.view().slice(1, 1, 3));
  EXPECT_FALSE(copy.shares_storage_with(matrix));
  EXPECT_EQ(values_of(copy), (std::vector<double>{11, 12, 21, 22}));
  const std::vector<std::size_t> at = {1, 0};
  EXPECT_EQ(matrix.slice(1, 1, 3).at(at), 21.0);
}

TEST(SharedTensor, StorageLivesUntilItsLastHandleGoes) {
  const StorageStatistics before = storage_statistics();
  {
    const SharedTensor first(Tensor::zeros({4, 4}));
    const SharedTensor second = first.transpose(0, 1);
    EXPECT_EQ(storage_statistics().blocks, before.blocks + 1);
    EXPECT_EQ(storage_statistics().bytes, before.bytes + 16 * sizeof(double));
    const SharedTensor third = first.reshape({16});
    EXPECT_TRUE(third.shares_storage_with(second));
    EXPECT_EQ(storage_statistics().blocks, before.blocks + 1);
  }
  EXPECT_EQ(storage_statistics().blocks, before.blocks);
  EXPECT_EQ(storage_statistics().bytes, before.bytes);
}

}  // namespace
}  // namespace llm
