// NumPy broadcasting, broadcast views (stride 0) and their adjoint sum_to_shape.
#include "llm/tensor/broadcast.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;
using testing::values_of;

// Deterministic, non-repeating values so that a wrong index changes the result.
Tensor wavy(const Shape& shape, double phase) {
  std::vector<double> values(element_count(shape));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::sin(phase + 0.7 * i);
  return Tensor(shape, std::move(values));
}

double inner_product(const Tensor& a, const Tensor& b) {
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += a.values()[i] * b.values()[i];
  return sum;
}

TEST(BroadcastShapes, AlignsShapesFromTheRight) {
  EXPECT_EQ(broadcast_shapes({2, 1, 3}, {4, 3}), (Shape{2, 4, 3}));
  EXPECT_EQ(broadcast_shapes({4, 3}, {2, 1, 3}), (Shape{2, 4, 3}));
  EXPECT_EQ(broadcast_shapes({}, {3}), (Shape{3}));
  EXPECT_EQ(broadcast_shapes({}, {}), (Shape{}));
  EXPECT_EQ(broadcast_shapes({5, 1}, {1, 6}), (Shape{5, 6}));
}

TEST(BroadcastShapes, ExpandsExtentOneToZero) {
  EXPECT_EQ(broadcast_shapes({0}, {1}), (Shape{0}));
  EXPECT_EQ(broadcast_shapes({1, 3}, {0, 1}), (Shape{0, 3}));
}

TEST(BroadcastShapes, RejectsUnequalExtentsNamingBothShapesAndTheAxis) {
  const auto error = capture_error<TensorError>([] { broadcast_shapes({2, 3}, {4, 3}); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::IncompatibleBroadcast);
  EXPECT_EQ(error->kind_name(), "incompatible-broadcast");
  EXPECT_EQ(error->shape(), (Shape{2, 3}));
  EXPECT_EQ(error->other_shape(), (Shape{4, 3}));
  EXPECT_EQ(error->axis(), 1u);  // counted from the right
  const std::string message = error->what();
  EXPECT_NE(message.find("[2, 3]"), std::string::npos) << message;
  EXPECT_NE(message.find("[4, 3]"), std::string::npos) << message;
}

TEST(BroadcastShapes, RejectsAResultWhoseElementCountOverflows) {
  const std::size_t huge = std::numeric_limits<std::size_t>::max() / 2;
  const auto error = capture_error<TensorError>([&] { broadcast_shapes({huge, 1}, {1, 3}); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::ShapeOverflow);
  EXPECT_EQ(error->shape(), (Shape{huge, 3}));
}

TEST(BroadcastTo, RepeatsThroughStrideZeroWithoutCopying) {
  // Each target element reads the source element at offset = sum c[i] * strides[i].
  const Tensor row = Tensor({3}, {1, 2, 3});
  const Tensor column = Tensor({2, 1}, {1, 2});
  const Tensor scalar = Tensor::scalar(7);
  const TensorView rows = row.view().broadcast_to({2, 3});
  const TensorView columns = column.view().broadcast_to({2, 3});
  const TensorView scalars = scalar.view().broadcast_to({2, 3});
  EXPECT_EQ(rows.strides(), (Strides{0, 1}));
  EXPECT_EQ(columns.strides(), (Strides{1, 0}));
  EXPECT_EQ(scalars.strides(), (Strides{0, 0}));
  EXPECT_TRUE(rows.shares_storage_with(row.view()));
  EXPECT_FALSE(rows.is_contiguous());
  std::vector<std::size_t> row_offsets, column_offsets;
  for (std::size_t i = 0; i < 2; ++i) {
    for (std::size_t j = 0; j < 3; ++j) {
      const std::vector<std::size_t> at = {i, j};
      row_offsets.push_back(rows.offset_of(at));
      column_offsets.push_back(columns.offset_of(at));
    }
  }
  EXPECT_EQ(row_offsets, (std::vector<std::size_t>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(column_offsets, (std::vector<std::size_t>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(values_of(scalars.materialize()), (std::vector<double>(6, 7.0)));
}

TEST(BroadcastTo, RepeatsAlongAddedAndExpandedAxes) {
  const Tensor source({2, 1}, {1.0, 2.0});
  const Tensor result = source.view().broadcast_to({3, 2, 2}).materialize();
  EXPECT_EQ(result.shape(), (Shape{3, 2, 2}));
  EXPECT_EQ(values_of(result), (std::vector<double>{1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 2, 2}));
}

TEST(BroadcastTo, FillsATargetFromARankZeroTensor) {
  const Tensor result = Tensor::scalar(-1.5).view().broadcast_to({2, 2}).materialize();
  EXPECT_EQ(result.shape(), (Shape{2, 2}));
  EXPECT_EQ(values_of(result), (std::vector<double>{-1.5, -1.5, -1.5, -1.5}));
}

TEST(BroadcastTo, RejectsTargetsTheSourceCannotExpandTo) {
  struct Case {
    Shape source, target;
    std::size_t axis;
  };
  for (const Case& c :
       {Case{{2, 3}, {4, 3}, 1}, Case{{3}, {1}, 0}, Case{{1, 3}, {3}, 1}, Case{{3}, {}, 0}}) {
    const Tensor source = Tensor::zeros(c.source);
    const auto error = capture_error<TensorError>([&] { source.view().broadcast_to(c.target); });
    ASSERT_TRUE(error) << shape_text(c.source) << " -> " << shape_text(c.target);
    EXPECT_EQ(error->kind(), TensorErrorKind::IncompatibleBroadcast);
    EXPECT_EQ(error->shape(), c.source);
    EXPECT_EQ(error->other_shape(), c.target);
    EXPECT_EQ(error->axis(), c.axis) << shape_text(c.source) << " -> " << shape_text(c.target);
  }
}

TEST(SumToShape, AddsBroadcastContributionsBackToEachTargetShape) {
  const Tensor source({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor rows = sum_to_shape(source.view(), {3});
  EXPECT_EQ(rows.shape(), (Shape{3}));
  EXPECT_EQ(values_of(rows), (std::vector<double>{5, 7, 9}));

  const Tensor kept_rows = sum_to_shape(source.view(), {1, 3});
  EXPECT_EQ(kept_rows.shape(), (Shape{1, 3}));
  EXPECT_EQ(values_of(kept_rows), (std::vector<double>{5, 7, 9}));

  const Tensor columns = sum_to_shape(source.view(), {2, 1});
  EXPECT_EQ(columns.shape(), (Shape{2, 1}));
  EXPECT_EQ(values_of(columns), (std::vector<double>{6, 15}));

  const Tensor total = sum_to_shape(source.view(), {});
  EXPECT_EQ(total.shape(), (Shape{}));
  EXPECT_EQ(values_of(total), (std::vector<double>{21}));
}

TEST(SumToShape, ReadsAStridedSourceInItsOwnRowMajorOrder) {
  // The source is the transpose [3, 2] of [[1, 2, 3], [4, 5, 6]]: rows (1, 4), (2, 5), (3, 6).
  const Tensor stored({2, 3}, {1, 2, 3, 4, 5, 6});
  const TensorView transposed = stored.view().transpose(0, 1);
  EXPECT_EQ(values_of(sum_to_shape(transposed, {2})), (std::vector<double>{6, 15}));
  EXPECT_EQ(values_of(sum_to_shape(transposed, {3, 1})), (std::vector<double>{5, 7, 9}));
  EXPECT_EQ(values_of(sum_to_shape(transposed, {3, 2})), (std::vector<double>{1, 4, 2, 5, 3, 6}));
}

TEST(SumToShape, CopiesBitsUnchangedWhenNothingWasBroadcast) {
  const Tensor source({2}, {-0.0, 0.1});
  const Tensor result = sum_to_shape(source.view(), {2});
  EXPECT_EQ(std::bit_cast<std::uint64_t>(result.values()[0]), std::bit_cast<std::uint64_t>(-0.0));
  EXPECT_EQ(std::bit_cast<std::uint64_t>(result.values()[1]), std::bit_cast<std::uint64_t>(0.1));
}

TEST(SumToShape, IsTheAdjointOfBroadcastTo) {
  // <broadcast_to(x), y> == <x, sum_to_shape(y)> for every x and y: the two
  // operations are transposes of one linear map.
  struct Case {
    Shape source, target;
  };
  for (const Case& c : {Case{{3}, {2, 3}}, Case{{2, 1}, {2, 3}}, Case{{}, {2, 3}},
                        Case{{1, 3}, {4, 2, 3}}, Case{{2, 1, 3}, {2, 4, 3}},
                        Case{{4, 1, 1}, {4, 3, 2}}, Case{{1}, {1}}, Case{{2, 3}, {2, 3}}}) {
    const Tensor x = wavy(c.source, 0.3);
    const Tensor y = wavy(c.target, 1.1);
    const Tensor expanded = x.view().broadcast_to(c.target).materialize();
    const Tensor reduced = sum_to_shape(y.view(), c.source);
    EXPECT_EQ(reduced.shape(), c.source);  // a size-1 axis stays where it was
    const double forward = inner_product(expanded, y);
    const double adjoint = inner_product(x, reduced);
    EXPECT_NEAR(forward, adjoint, 1e-12 * (1.0 + std::abs(forward)))
        << shape_text(c.source) << " -> " << shape_text(c.target);
  }
}

TEST(SumToShape, RejectsTargetsThatDoNotBroadcastToTheSource) {
  const Tensor source = Tensor::zeros({2, 3});
  const auto error = capture_error<TensorError>([&] { sum_to_shape(source.view(), {2}); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::IncompatibleBroadcast);
  EXPECT_EQ(error->shape(), (Shape{2, 3}));
  EXPECT_EQ(error->other_shape(), (Shape{2}));
  EXPECT_EQ(error->axis(), 0u);

  const auto longer = capture_error<TensorError>([&] { sum_to_shape(source.view(), {1, 2, 3}); });
  ASSERT_TRUE(longer);
  EXPECT_EQ(longer->kind(), TensorErrorKind::IncompatibleBroadcast);
  EXPECT_EQ(longer->axis(), 2u);
}

}  // namespace
}  // namespace llm
