// Chapter 37's storage rule: an append buffer grows along one axis without
// copying its committed rows, a prefix handle's values never change after
// later appends or a reset, and refused appends change nothing.
#include "llm/tensor/append_buffer.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "llm/autograd/tensor_value.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;
using testing::values_of;

// [B, H, capacity, Dh] = [1, 2, 3, 2], growing along axis 2 like a key cache.
AppendBuffer key_cache() {
  return AppendBuffer::create(Shape{1, 2, 3, 2}, 2);
}

Tensor row(double base) {  // one new position for both heads: [1, 2, 1, 2]
  return Tensor(Shape{1, 2, 1, 2}, {base, base + 1, base + 10, base + 11});
}

TEST(AppendBuffer, AppendsRowsAfterTheCommittedOnesInEveryBlock) {
  AppendBuffer buffer = key_cache();
  buffer.append(row(1));
  buffer.append(row(2));
  const SharedTensor prefix = buffer.prefix();
  EXPECT_EQ(prefix.shape(), (Shape{1, 2, 2, 2}));
  EXPECT_EQ(values_of(prefix), (std::vector<double>{1, 2, 2, 3, 11, 12, 12, 13}));
  EXPECT_TRUE(buffer.shares_storage_with(prefix));  // no copy
  EXPECT_EQ(buffer.length(), 2u);
  EXPECT_EQ(buffer.capacity(), 3u);
}

TEST(AppendBuffer, APrefixHandleNeverSeesAValueChange) {
  AppendBuffer buffer = key_cache();
  buffer.append(row(1));
  const SharedTensor early = buffer.prefix();
  buffer.append(row(2));  // written past what `early` reaches
  EXPECT_EQ(values_of(early), (std::vector<double>{1, 2, 11, 12}));
  buffer.reset();
  buffer.append(row(7));  // `early` is alive: fresh storage, not an overwrite
  EXPECT_EQ(values_of(early), (std::vector<double>{1, 2, 11, 12}));
  EXPECT_FALSE(buffer.shares_storage_with(early));
  EXPECT_EQ(values_of(buffer.prefix()), (std::vector<double>{7, 8, 17, 18}));
}

const double* storage_of(const SharedTensor& tensor) {
  return tensor.view().storage().data();
}

TEST(AppendBuffer, ResetReusesTheStorageWhenNoHandleIsLeft) {
  AppendBuffer buffer = key_cache();
  buffer.append(row(1));
  const double* first = storage_of(buffer.prefix());  // the handle is gone after this line
  buffer.reset();
  EXPECT_EQ(buffer.length(), 0u);
  buffer.append(row(3));
  const SharedTensor prefix = buffer.prefix();
  EXPECT_EQ(storage_of(prefix), first);  // allocation reused
  EXPECT_EQ(values_of(prefix), (std::vector<double>{3, 4, 13, 14}));
}

TEST(AppendBuffer, RefusedAppendsChangeNothing) {
  AppendBuffer buffer = key_cache();
  buffer.append(row(1));
  EXPECT_EQ(capture_error<AppendBufferError>([&] {
              buffer.append(Tensor(Shape{1, 3, 1, 2}, {0, 0, 0, 0, 0, 0}));
            })->kind(),
            AppendBufferErrorKind::RowShapeMismatch);
  EXPECT_EQ(capture_error<AppendBufferError>([&] {
              buffer.append(Tensor::zeros(Shape{1, 2, 3, 2}));
            })->kind(),
            AppendBufferErrorKind::CapacityExceeded);
  EXPECT_EQ(buffer.length(), 1u);
  EXPECT_EQ(values_of(buffer.prefix()), (std::vector<double>{1, 2, 11, 12}));
  EXPECT_EQ(capture_error<AppendBufferError>([] {
              AppendBuffer::create(Shape{2, 2}, 2);
            })->kind(),
            AppendBufferErrorKind::InvalidAxis);
}

TEST(AppendBuffer, APrefixBecomesATapeConstantWithoutACopy) {
  AppendBuffer buffer = key_cache();
  buffer.append(row(1));
  const SharedTensor prefix = buffer.prefix();
  const TensorValue constant = TensorValue::constant(prefix);
  EXPECT_TRUE(constant.value().shares_storage_with(prefix));
  EXPECT_FALSE(constant.tracks_gradient());
  const auto error = capture_error<TensorAutodiffError>([] {
    SharedTensor bad = Tensor(Shape{2}, {1.0, std::numeric_limits<double>::infinity()});
    TensorValue::constant(bad);
  });
  EXPECT_EQ(error->kind(), TensorAutodiffErrorKind::NonFiniteLeaf);
  EXPECT_EQ(error->coordinate(), (std::vector<std::size_t>{1}));
}

}  // namespace
}  // namespace llm
