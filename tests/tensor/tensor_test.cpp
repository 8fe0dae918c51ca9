// Row-major storage: checked construction, coordinate/offset conversion and views.
#include "llm/tensor/tensor.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;
using testing::values_of;

constexpr std::size_t max_size = std::numeric_limits<std::size_t>::max();

TEST(TensorConstruction, KeepsShapeAndRowMajorValues) {
  const Tensor tensor({2, 3}, {0.0, 1.0, -1.0, 2.0, 0.0, -2.0});
  EXPECT_EQ(tensor.shape(), (Shape{2, 3}));
  EXPECT_EQ(tensor.rank(), 2u);
  EXPECT_EQ(tensor.size(), 6u);
  const std::vector<std::size_t> last = {1, 2};
  EXPECT_EQ(tensor.at(last), -2.0);
  const std::vector<std::size_t> middle = {1, 0};
  EXPECT_EQ(tensor.at(middle), 2.0);
}

TEST(TensorConstruction, RankZeroHoldsOneValue) {
  EXPECT_EQ(values_of(Tensor()), (std::vector<double>{0.0}));
  const Tensor scalar = Tensor::scalar(2.5);
  EXPECT_EQ(scalar.shape(), Shape{});
  EXPECT_EQ(scalar.at(std::vector<std::size_t>{}), 2.5);
  EXPECT_EQ(values_of(Tensor::zeros({2, 2})), (std::vector<double>{0.0, 0.0, 0.0, 0.0}));
}

TEST(TensorConstruction, RejectsAValueCountThatDiffersFromTheShape) {
  const auto error = capture_error<TensorError>([] { Tensor({2, 3}, {1.0, 2.0}); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::ValueCountMismatch);
  EXPECT_EQ(error->shape(), (Shape{2, 3}));
  EXPECT_EQ(error->expected(), 6u);
  EXPECT_EQ(error->actual(), 2u);
  EXPECT_STREQ(error->what(), "tensor shape [2, 3] needs 6 values, got 2");
}

TEST(TensorConstruction, RejectsAShapeWhoseElementCountOverflows) {
  const auto error = capture_error<TensorError>([] { Tensor::zeros({max_size, 2}); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::ShapeOverflow);
  EXPECT_EQ(error->shape(), (Shape{max_size, 2}));
  const auto count = capture_error<TensorError>([] { element_count({max_size / 2 + 1, 2}); });
  ASSERT_TRUE(count);
  EXPECT_EQ(count->kind(), TensorErrorKind::ShapeOverflow);
  // A zero extent makes the count zero however large the others are.
  EXPECT_EQ(element_count({max_size, 0, max_size}), 0u);
}

TEST(RowMajorLayout, StridesAreSuffixProducts) {
  EXPECT_EQ(row_major_strides({2, 3, 4}), (std::vector<std::size_t>{12, 4, 1}));
  EXPECT_EQ(row_major_strides({}), (std::vector<std::size_t>{}));
  EXPECT_EQ(row_major_strides({5}), (std::vector<std::size_t>{1}));
}

TEST(RowMajorLayout, CoordinatesAndOffsetsConvertBothWays) {
  const Shape shape = {2, 3, 4};
  const std::vector<std::size_t> strides = row_major_strides(shape);
  for (std::size_t offset = 0; offset < element_count(shape); ++offset) {
    const std::vector<std::size_t> coordinate = coordinate_from_offset(shape, offset);
    std::size_t dot = 0;
    for (std::size_t axis = 0; axis < shape.size(); ++axis) dot += coordinate[axis] * strides[axis];
    EXPECT_EQ(dot, offset);
    EXPECT_EQ(offset_from_coordinate(shape, coordinate), offset);
  }
  EXPECT_EQ(coordinate_from_offset({2, 3}, 5), (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(coordinate_from_offset({}, 0), (std::vector<std::size_t>{}));
}

TEST(RowMajorLayout, RejectsACoordinateOfTheWrongRank) {
  const std::vector<std::size_t> coordinate = {1};
  const auto error = capture_error<TensorError>([&] { offset_from_coordinate({2, 3}, coordinate); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::RankMismatch);
  EXPECT_EQ(error->coordinate(), coordinate);
}

TEST(RowMajorLayout, NamesTheAxisOfAnOutOfBoundsCoordinate) {
  const std::vector<std::size_t> coordinate = {1, 3};
  const auto error = capture_error<TensorError>([&] { offset_from_coordinate({2, 3}, coordinate); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::CoordinateOutOfBounds);
  EXPECT_EQ(error->axis(), 1u);
  EXPECT_STREQ(error->what(),
               "coordinate [1, 3] is out of bounds for shape [2, 3] at axis 1 (3 >= 3)");
}

TEST(RowMajorLayout, RejectsAnOffsetPastTheLastElement) {
  const auto error = capture_error<TensorError>([] { coordinate_from_offset({2, 3}, 6); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::OffsetOutOfBounds);
  EXPECT_EQ(error->index(), 6u);
  EXPECT_EQ(error->expected(), 6u);
}

TEST(TensorViewAccess, ReadsTheSameValuesAsItsTensor) {
  const Tensor tensor({2, 3}, {0.0, 1.0, -1.0, 2.0, 0.0, -2.0});
  const TensorView view = tensor.view();
  EXPECT_EQ(view.shape(), tensor.shape());
  EXPECT_EQ(view.values().data(), tensor.values().data());
  const std::vector<std::size_t> coordinate = {0, 2};
  EXPECT_EQ(view.at(coordinate), -1.0);
  EXPECT_EQ(view.offset_of(coordinate), 2u);
  EXPECT_EQ(view.coordinate_of(4), (std::vector<std::size_t>{1, 1}));
  EXPECT_EQ(values_of(view.to_tensor()), values_of(tensor));
}

TEST(TensorViewAccess, RejectsBadCoordinatesOffsetsAndValueCounts) {
  const Tensor tensor({2, 3}, {0.0, 1.0, -1.0, 2.0, 0.0, -2.0});
  const TensorView view = tensor.view();
  const std::vector<std::size_t> short_coordinate = {0};
  const auto rank = capture_error<TensorError>([&] { view.at(short_coordinate); });
  ASSERT_TRUE(rank);
  EXPECT_EQ(rank->kind(), TensorErrorKind::RankMismatch);

  const std::vector<std::size_t> outside = {2, 0};
  const auto bounds = capture_error<TensorError>([&] { view.at(outside); });
  ASSERT_TRUE(bounds);
  EXPECT_EQ(bounds->kind(), TensorErrorKind::CoordinateOutOfBounds);
  EXPECT_EQ(bounds->axis(), 0u);

  const auto offset = capture_error<TensorError>([&] { view.coordinate_of(6); });
  ASSERT_TRUE(offset);
  EXPECT_EQ(offset->kind(), TensorErrorKind::OffsetOutOfBounds);

  const auto count = capture_error<TensorError>([&] { TensorView(tensor.values(), Shape{4, 2}); });
  ASSERT_TRUE(count);
  EXPECT_EQ(count->kind(), TensorErrorKind::ValueCountMismatch);
  EXPECT_EQ(count->expected(), 8u);
  EXPECT_EQ(count->actual(), 6u);
}

}  // namespace
}  // namespace llm
