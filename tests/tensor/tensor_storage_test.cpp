// Chapter 08's worked values for tensor.hpp and layout.hpp: every offset of
// the [2, 2, 3] tensor, the model-shaped stand-ins, the scalar and empty
// edge shapes, and each error the chapter names with its evidence, in the
// order the checks run. tensor_test.cpp covers the general rules.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "llm/tensor/layout.hpp"
#include "llm/tensor/tensor.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;
using testing::values_of;

const std::vector<double> kWorkedValues = {10, 11, 12, 20, 21, 22, 30, 31, 32, 40, 41, 42};

Tensor worked_tensor() {
  return Tensor({2, 2, 3}, kWorkedValues);
}

TEST(TensorStorage, ModelShapedStandInsHaveSuffixProductStrides) {
  struct Case {
    Shape shape;
    Strides strides;
    std::size_t elements;
  };
  const std::vector<Case> cases = {
      {{5, 3}, {3, 1}, 15}, {{4, 6}, {6, 1}, 24},       {{5, 4}, {4, 1}, 20},
      {{2, 3}, {3, 1}, 6},  {{2, 2, 3}, {6, 3, 1}, 12}, {{3, 4, 5}, {20, 5, 1}, 60},
  };
  for (const Case& c : cases) {
    const Tensor tensor = Tensor::zeros(c.shape);
    EXPECT_EQ(tensor.strides(), c.strides) << shape_text(c.shape);
    EXPECT_EQ(tensor.size(), c.elements) << shape_text(c.shape);
    EXPECT_EQ(element_count(c.shape), c.elements) << shape_text(c.shape);
  }
}

TEST(TensorStorage, EveryCoordinateOfTheWorkedTensorHasItsRowMajorOffset) {
  // In row-major order the offsets are 0..11: [a, b, c] -> 6a + 3b + c, and the
  // value there is 10 * (2a + b + 1) + c. One coordinate cannot test a layout:
  // extents used as strides ([2, 2, 3]) also give 8 for [1, 0, 2], but 5 for [0, 1, 1].
  const Tensor tensor = worked_tensor();
  const Layout layout(tensor.shape());
  std::size_t expected_offset = 0;
  for (std::size_t a = 0; a < 2; ++a) {
    for (std::size_t b = 0; b < 2; ++b) {
      for (std::size_t c = 0; c < 3; ++c, ++expected_offset) {
        const std::vector<std::size_t> coordinate = {a, b, c};
        EXPECT_EQ(offset_from_coordinate(tensor.shape(), coordinate), expected_offset);
        EXPECT_EQ(layout.offset_of(coordinate), expected_offset);
        EXPECT_EQ(6 * a + 3 * b + c, expected_offset);
        EXPECT_EQ(tensor.at(coordinate), static_cast<double>(10 * (2 * a + b + 1) + c));
        EXPECT_EQ(coordinate_from_offset(tensor.shape(), expected_offset), coordinate);
      }
    }
  }
  EXPECT_EQ(offset_from_coordinate(tensor.shape(), std::vector<std::size_t>{1, 0, 2}), 8u);
  EXPECT_EQ(offset_from_coordinate(tensor.shape(), std::vector<std::size_t>{0, 1, 1}), 4u);
}

TEST(TensorStorage, AScalarHasNoStridesAndOneValueAtOffsetZero) {
  const Tensor scalar({}, {7.0});
  EXPECT_EQ(scalar.rank(), 0u);
  EXPECT_EQ(scalar.strides(), Strides{});
  EXPECT_EQ(scalar.size(), 1u);
  const std::vector<std::size_t> empty_coordinate;
  EXPECT_EQ(offset_from_coordinate(scalar.shape(), empty_coordinate), 0u);
  EXPECT_EQ(scalar.at(empty_coordinate), 7.0);
  const std::vector<std::size_t> one_index = {0};
  const auto error = capture_error<TensorError>([&] { (void)scalar.at(one_index); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::RankMismatch);
  EXPECT_EQ(error->coordinate(), one_index);
  EXPECT_EQ(error->shape(), Shape{});
}

TEST(TensorStorage, AnEmptyTensorHasStridesButNoValidCoordinate) {
  const Tensor empty({2, 0, 3}, {});
  EXPECT_EQ(empty.strides(), (Strides{0, 3, 1}));
  EXPECT_EQ(empty.size(), 0u);
  const std::vector<std::size_t> origin = {0, 0, 0};
  const auto error = capture_error<TensorError>([&] { (void)empty.at(origin); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::CoordinateOutOfBounds);
  EXPECT_EQ(error->axis(), 1u);  // axis 0 passes (0 < 2); axis 1 has no index below 0
}

TEST(TensorStorage, ACoordinateOfTheWrongRankNamesBothRanks) {
  const Tensor tensor = worked_tensor();
  const std::vector<std::size_t> short_coordinate = {1, 0};
  const auto error = capture_error<TensorError>(
      [&] { (void)offset_from_coordinate(tensor.shape(), short_coordinate); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::RankMismatch);
  EXPECT_EQ(error->kind_name(), "rank-mismatch");
  EXPECT_EQ(error->coordinate().size(), 2u);
  EXPECT_EQ(error->shape().size(), 3u);
  EXPECT_STREQ(error->what(), "coordinate [1, 0] has rank 2 but tensor shape [2, 2, 3] has rank 3");
}

TEST(TensorStorage, TheFirstFailingAxisIsReported) {
  const Tensor tensor = worked_tensor();
  const std::vector<std::size_t> coordinate = {1, 2, 0};
  const auto error =
      capture_error<TensorError>([&] { (void)offset_from_coordinate(tensor.shape(), coordinate); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::CoordinateOutOfBounds);
  EXPECT_EQ(error->kind_name(), "coordinate-out-of-bounds");
  EXPECT_EQ(error->axis(), 1u);
  EXPECT_EQ(error->coordinate()[error->axis()], 2u);
  EXPECT_EQ(error->shape()[error->axis()], 2u);
  EXPECT_STREQ(error->what(),
               "coordinate [1, 2, 0] is out of bounds for shape [2, 2, 3] at axis 1 (2 >= 2)");
  // Two bad axes: the first one is named.
  const std::vector<std::size_t> two_bad = {2, 2, 3};
  const auto first = capture_error<TensorError>([&] { (void)tensor.at(two_bad); });
  ASSERT_TRUE(first);
  EXPECT_EQ(first->axis(), 0u);
}

TEST(TensorStorage, FailedWritesLeaveEveryValueUnchanged) {
  Tensor tensor = worked_tensor();
  const std::vector<std::size_t> outside = {1, 2, 0};
  const std::vector<std::size_t> short_coordinate = {1, 0};
  EXPECT_TRUE(capture_error<TensorError>([&] { tensor.set(outside, 99.0); }));
  EXPECT_TRUE(capture_error<TensorError>([&] { tensor.set(short_coordinate, 99.0); }));
  EXPECT_EQ(values_of(tensor), kWorkedValues);
  EXPECT_EQ(tensor.shape(), (Shape{2, 2, 3}));
}

TEST(TensorStorage, TheConstructorCountsTheShapeBeforeComparingTheValues) {
  constexpr std::size_t largest = std::numeric_limits<std::size_t>::max();
  // No values at all, but the shape's count does not fit: overflow, not a count mismatch.
  const auto overflow = capture_error<TensorError>([] { Tensor({largest, 2}, {}); });
  ASSERT_TRUE(overflow);
  EXPECT_EQ(overflow->kind(), TensorErrorKind::ShapeOverflow);
  EXPECT_EQ(overflow->shape(), (Shape{largest, 2}));

  // [2^32, 2^32] would wrap around to a count of 0 and accept no values.
  const std::size_t half = std::size_t{1} << 32;
  const auto wrapped = capture_error<TensorError>([&] { Tensor({half, half}, {}); });
  ASSERT_TRUE(wrapped);
  EXPECT_EQ(wrapped->kind(), TensorErrorKind::ShapeOverflow);

  const auto count = capture_error<TensorError>([] { Tensor({2, 2}, {1.0, 2.0, 3.0}); });
  ASSERT_TRUE(count);
  EXPECT_EQ(count->kind(), TensorErrorKind::ValueCountMismatch);
  EXPECT_EQ(count->expected(), 4u);
  EXPECT_EQ(count->actual(), 3u);
  EXPECT_STREQ(count->what(), "tensor shape [2, 2] needs 4 values, got 3");
}

TEST(TensorStorage, ValuesAreStoredAsGivenWhateverTheyAre) {
  const double infinity = std::numeric_limits<double>::infinity();
  const Tensor tensor({2, 2},
                      {-0.0, infinity, -infinity, std::numeric_limits<double>::quiet_NaN()});
  const std::span<const double> values = tensor.values();
  EXPECT_TRUE(std::signbit(values[0]));
  EXPECT_EQ(values[1], infinity);
  EXPECT_EQ(values[2], -infinity);
  EXPECT_TRUE(std::isnan(values[3]));
}

}  // namespace
}  // namespace llm
