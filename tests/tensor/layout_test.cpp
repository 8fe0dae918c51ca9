// Layouts and strided views: transpose, permute, slice, reshape, broadcast,
// materialize, the bounds check at construction, and writing through a view.
#include "llm/tensor/layout.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <numeric>
#include <vector>

#include "llm/tensor/tensor.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;
using testing::values_of;

// Chapter 09's worked matrix: [[10, 11, 12], [20, 21, 22]].
const Tensor matrix({2, 3}, {10, 11, 12, 20, 21, 22});

// The storage offsets of every element of `view`, in its row-major order.
std::vector<std::size_t> offsets_of(const TensorView& view) {
  std::vector<std::size_t> offsets;
  for (std::size_t index = 0; index < view.size(); ++index) {
    offsets.push_back(view.offset_of(coordinate_from_offset(view.shape(), index)));
  }
  return offsets;
}

TEST(TensorViewTranspose, SharesStorageAndSwapsStrides) {
  const TensorView transposed = matrix.view().transpose(0, 1);
  EXPECT_TRUE(transposed.shares_storage_with(matrix.view()));
  EXPECT_EQ(transposed.shape(), (Shape{3, 2}));
  EXPECT_EQ(transposed.strides(), (Strides{1, 3}));
  EXPECT_EQ(transposed.offset(), 0u);
  EXPECT_FALSE(transposed.is_contiguous());
  EXPECT_EQ(offsets_of(transposed), (std::vector<std::size_t>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(values_of(transposed.materialize()), (std::vector<double>{10, 20, 11, 21, 12, 22}));
  // Transposing back restores the row-major layout exactly.
  EXPECT_EQ(transposed.transpose(1, 0).layout(), matrix.view().layout());
}

TEST(TensorViewSlice, MovesTheBaseOffsetAndKeepsTheStrides) {
  const TensorView columns = matrix.view().slice(1, 1, 3);
  EXPECT_EQ(columns.shape(), (Shape{2, 2}));
  EXPECT_EQ(columns.strides(), (Strides{3, 1}));
  EXPECT_EQ(columns.offset(), 1u);
  EXPECT_FALSE(columns.is_contiguous());
  EXPECT_EQ(offsets_of(columns), (std::vector<std::size_t>{1, 2, 4, 5}));
  const Tensor copy = columns.materialize();
  EXPECT_EQ(copy.strides(), (Strides{2, 1}));
  EXPECT_EQ(values_of(copy), (std::vector<double>{11, 12, 21, 22}));
  EXPECT_NE(copy.values().data(), matrix.values().data() + 1);
  // A transposed, sliced view reads the right values: rows 1..3 of the transpose.
  const TensorView tail = matrix.view().transpose(0, 1).slice(0, 1, 3);
  EXPECT_EQ(tail.offset(), 1u);
  EXPECT_EQ(values_of(tail.materialize()), (std::vector<double>{11, 21, 12, 22}));
  const std::vector<std::size_t> corner = {1, 1};
  EXPECT_EQ(tail.at(corner), 22.0);
}

TEST(TensorViewSlice, RejectsARangeOutsideTheAxis) {
  const auto past_end = capture_error<TensorError>([] { matrix.view().slice(1, 1, 4); });
  ASSERT_TRUE(past_end);
  EXPECT_EQ(past_end->kind(), TensorErrorKind::InvalidSlice);
  EXPECT_EQ(past_end->axis(), 1u);
  EXPECT_EQ(past_end->actual(), 4u);
  EXPECT_EQ(past_end->expected(), 3u);
  const auto reversed = capture_error<TensorError>([] { matrix.view().slice(0, 2, 1); });
  ASSERT_TRUE(reversed);
  EXPECT_EQ(reversed->kind(), TensorErrorKind::InvalidSlice);
  EXPECT_EQ(reversed->index(), 2u);
  EXPECT_EQ(matrix.view().slice(0, 1, 1).size(), 0u);  // an empty range is a valid empty view
}

TEST(TensorViewReshape, SharesAContiguousViewAndRefusesAStridedOne) {
  const TensorView reshaped = matrix.view().reshape({3, 2});
  EXPECT_TRUE(reshaped.shares_storage_with(matrix.view()));
  EXPECT_EQ(reshaped.strides(), (Strides{2, 1}));
  EXPECT_EQ(values_of(reshaped.materialize()), (std::vector<double>{10, 11, 12, 20, 21, 22}));

  const auto count = capture_error<TensorError>([] { matrix.view().reshape({2, 4}); });
  ASSERT_TRUE(count);
  EXPECT_EQ(count->kind(), TensorErrorKind::ReshapeCountMismatch);
  EXPECT_EQ(count->shape(), (Shape{2, 3}));
  EXPECT_EQ(count->other_shape(), (Shape{2, 4}));

  const TensorView transposed = matrix.view().transpose(0, 1);
  const auto strided = capture_error<TensorError>([&] { transposed.reshape({6}); });
  ASSERT_TRUE(strided);
  EXPECT_EQ(strided->kind(), TensorErrorKind::NonContiguousReshape);
  EXPECT_EQ(strided->kind_name(), "non-contiguous-reshape");
  EXPECT_EQ(strided->shape(), (Shape{3, 2}));
  EXPECT_EQ(strided->strides(), (Strides{1, 3}));
  EXPECT_EQ(strided->other_shape(), (Shape{6}));
  // Materializing first is the explicit way through.
  EXPECT_EQ(values_of(transposed.materialize().view().reshape({6}).materialize()),
            (std::vector<double>{10, 20, 11, 21, 12, 22}));
  // A slice of whole rows stays contiguous, so it reshapes in place.
  EXPECT_TRUE(matrix.view().slice(0, 1, 2).reshape({3}).shares_storage_with(matrix.view()));
}

TEST(TensorViewContiguousValues, NamesTheStridesOfAViewThatHasNone) {
  const TensorView row = matrix.view().slice(0, 1, 2);
  EXPECT_EQ(row.contiguous_values().data(), matrix.values().data() + 3);
  const TensorView transposed = matrix.view().transpose(0, 1);
  const auto error = capture_error<TensorError>([&] { transposed.contiguous_values(); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::NonContiguousView);
  EXPECT_EQ(error->strides(), (Strides{1, 3}));
}

TEST(TensorViewPermute, ReordersAxesAndRejectsANonPermutation) {
  std::vector<double> values(24);
  std::iota(values.begin(), values.end(), 0.0);  // [2, 3, 4]: v[i, j, k] = 12 i + 4 j + k
  const Tensor cube({2, 3, 4}, std::move(values));
  const TensorView permuted = cube.view().permute({2, 0, 1});
  EXPECT_EQ(permuted.shape(), (Shape{4, 2, 3}));
  EXPECT_EQ(permuted.strides(), (Strides{1, 12, 4}));
  const std::vector<std::size_t> at = {3, 1, 2};  // k = 3, i = 1, j = 2
  EXPECT_EQ(permuted.at(at), 12.0 + 8.0 + 3.0);
  for (const Axes& axes : {Axes{0, 1}, Axes{0, 1, 1}, Axes{0, 1, 3}}) {
    const auto error = capture_error<TensorError>([&] { cube.view().permute(axes); });
    ASSERT_TRUE(error);
    EXPECT_EQ(error->kind(), TensorErrorKind::InvalidPermutation);
    EXPECT_EQ(error->coordinate(), std::vector<std::size_t>(axes.begin(), axes.end()));
  }
}

TEST(TensorViewConstruction, ChecksEveryReachableOffsetAgainstTheStorage) {
  const std::vector<double> storage(6, 1.0);
  // [2, 2] with strides [3, 1] from offset 1 reaches offsets 1, 2, 4, 5: inside.
  const TensorView inside(storage, Layout({2, 2}, {3, 1}, 1));
  EXPECT_EQ(inside.size(), 4u);
  // From offset 2 it reaches offset 6, one past the end.
  const auto outside = capture_error<TensorError>([&] {
    TensorView(storage, Layout({2, 2}, {3, 1}, 2));
  });
  ASSERT_TRUE(outside);
  EXPECT_EQ(outside->kind(), TensorErrorKind::ViewOutOfBounds);
  EXPECT_EQ(outside->index(), 6u);
  EXPECT_EQ(outside->expected(), 6u);
  // Strides so large the furthest offset overflows size_t are out of bounds too.
  const std::size_t huge = std::numeric_limits<std::size_t>::max() / 2;
  const auto overflow =
      capture_error<TensorError>([&] { TensorView(storage, Layout({3}, {huge}, 0)); });
  ASSERT_TRUE(overflow);
  EXPECT_EQ(overflow->kind(), TensorErrorKind::ViewOutOfBounds);
  // Strides of another rank than the shape are a rank error.
  const auto rank = capture_error<TensorError>([] { Layout({2, 2}, {1}, 0); });
  ASSERT_TRUE(rank);
  EXPECT_EQ(rank->kind(), TensorErrorKind::RankMismatch);
  // An empty layout reaches nothing, so it fits any storage.
  EXPECT_EQ(TensorView(storage, Layout({2, 0, 3}, {0, 3, 1}, 0)).size(), 0u);
}

TEST(TensorViewEdgeCases, ScalarAndEmptyViews) {
  const Tensor scalar = Tensor::scalar(7.0);
  const TensorView view = scalar.view();
  EXPECT_EQ(view.shape(), Shape{});
  EXPECT_EQ(view.strides(), Strides{});
  EXPECT_EQ(view.offset(), 0u);
  EXPECT_EQ(view.at(std::vector<std::size_t>{}), 7.0);
  const Tensor empty = Tensor::zeros({2, 0, 3});
  EXPECT_EQ(empty.view().strides(), (Strides{0, 3, 1}));
  EXPECT_TRUE(empty.view().is_contiguous());
  EXPECT_EQ(empty.view().materialize().size(), 0u);
}

TEST(LayoutContiguity, IgnoresTheStridesOfExtentOneAxes) {
  EXPECT_TRUE(Layout({2, 1, 3}, {3, 99, 1}, 0).is_contiguous());
  EXPECT_FALSE(Layout({2, 3}, {1, 2}, 0).is_contiguous());
  EXPECT_TRUE(Layout({0, 3}, {7, 7}, 0).is_contiguous());  // nothing to lay out
}

TEST(MutableTensorView, WritesIntoASliceOfCallerStorage) {
  Tensor cache = Tensor::zeros({3, 2});
  const Tensor row({1, 2}, {5, 6});
  cache.mutable_view().slice(0, 1, 2).copy_from(row.view());
  EXPECT_EQ(values_of(cache), (std::vector<double>{0, 0, 5, 6, 0, 0}));
  // Writing a transposed source into a transposed window.
  const Tensor source({2, 3}, {1, 2, 3, 4, 5, 6});
  cache.mutable_view().transpose(0, 1).copy_from(source.view());
  EXPECT_EQ(values_of(cache), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  cache.mutable_view().slice(1, 0, 1).fill(-1.0);
  EXPECT_EQ(values_of(cache), (std::vector<double>{-1, 4, -1, 5, -1, 6}));
  const std::vector<std::size_t> at = {2, 1};
  cache.mutable_view().set(at, 9.0);
  EXPECT_EQ(cache.at(at), 9.0);
}

TEST(MutableTensorView, CopiesAnOverlappingSourceAsIfReadFirst) {
  Tensor values({4}, {1, 2, 3, 4});
  // Shift left by one within the same storage: [2, 3, 4, 4].
  const TensorView tail = values.view().slice(0, 1, 4);
  values.mutable_view().slice(0, 0, 3).copy_from(tail);
  EXPECT_EQ(values_of(values), (std::vector<double>{2, 3, 4, 4}));
  // Reverse-direction overlap: shift right by one: [2, 2, 3, 4].
  const TensorView head = values.view().slice(0, 0, 3);
  values.mutable_view().slice(0, 1, 4).copy_from(head);
  EXPECT_EQ(values_of(values), (std::vector<double>{2, 2, 3, 4}));
}

TEST(MutableTensorView, RejectsASourceOfAnotherShapeWritingNothing) {
  Tensor cache = Tensor::zeros({2, 2});
  const Tensor source({3}, {1, 2, 3});
  const auto error =
      capture_error<TensorError>([&] { cache.mutable_view().copy_from(source.view()); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::ShapeMismatch);
  EXPECT_EQ(error->shape(), (Shape{2, 2}));
  EXPECT_EQ(error->other_shape(), (Shape{3}));
  EXPECT_EQ(values_of(cache), (std::vector<double>(4, 0.0)));
}

// --- Chapter 09's printed values and refusals, request by request ---------------

TEST(ChapterNineViews, ReshapeKeepsStorageOrderWhileTransposeReordersIt) {
  const TensorView reshaped = matrix.view().reshape({3, 2});
  EXPECT_EQ(reshaped.offset(), 0u);
  EXPECT_TRUE(reshaped.is_contiguous());
  EXPECT_EQ(offsets_of(reshaped), (std::vector<std::size_t>{0, 1, 2, 3, 4, 5}));
  const TensorView transposed = matrix.view().transpose(0, 1);
  // Same shape, different element at the same coordinate.
  ASSERT_EQ(reshaped.shape(), transposed.shape());
  const std::vector<std::size_t> at = {2, 0};
  EXPECT_EQ(reshaped.at(at), 21.0);
  EXPECT_EQ(transposed.at(at), 12.0);
  // Transposed [2, 1] and the owner's [1, 2] are one stored value.
  const std::vector<std::size_t> transposed_at = {2, 1};
  const std::vector<std::size_t> owner_at = {1, 2};
  EXPECT_EQ(transposed.offset_of(transposed_at), 5u);
  EXPECT_EQ(matrix.view().offset_of(owner_at), 5u);
}

TEST(ChapterNineViews, TheThreePrintedRefusalsCarryTheirEvidence) {
  const TensorView view = matrix.view();
  const auto count = capture_error<TensorError>([&] { view.reshape({4, 2}); });
  ASSERT_TRUE(count);
  EXPECT_EQ(count->kind_name(), "reshape-count-mismatch");
  EXPECT_EQ(element_count(count->shape()), 6u);
  EXPECT_EQ(element_count(count->other_shape()), 8u);

  const TensorView transposed = view.transpose(0, 1);
  const auto strided = capture_error<TensorError>([&] { transposed.reshape({2, 3}); });
  ASSERT_TRUE(strided);
  EXPECT_EQ(strided->kind(), TensorErrorKind::NonContiguousReshape);
  EXPECT_EQ(strided->other_shape(), (Shape{2, 3}));
  EXPECT_EQ(strided->strides(), (Strides{1, 3}));

  const auto slice = capture_error<TensorError>([&] { view.slice(1, 1, 4); });
  ASSERT_TRUE(slice);
  EXPECT_EQ(slice->kind_name(), "invalid-slice");
  EXPECT_EQ(slice->index(), 1u);   // the start
  EXPECT_EQ(slice->actual(), 4u);  // the end
  // The owner's values are as they were after all three refusals.
  EXPECT_EQ(values_of(matrix), (std::vector<double>{10, 11, 12, 20, 21, 22}));
}

TEST(ChapterNineViews, AWholeRowSliceStaysContiguous) {
  const TensorView row = matrix.view().slice(0, 1, 2);
  EXPECT_EQ(row.shape(), (Shape{1, 3}));
  EXPECT_EQ(row.strides(), (Strides{3, 1}));
  EXPECT_EQ(row.offset(), 3u);
  EXPECT_TRUE(row.is_contiguous());
  EXPECT_EQ(offsets_of(row.reshape({3})), (std::vector<std::size_t>{3, 4, 5}));
}

TEST(ChapterNineViews, AViewFollowsWritesToItsOwnerAndACopyDoesNot) {
  Tensor owner({2, 3}, {10, 11, 12, 20, 21, 22});
  const TensorView transposed = owner.view().transpose(0, 1);
  const Tensor copy = transposed.materialize();
  owner.set(std::vector<std::size_t>{1, 2}, 99.0);
  const std::vector<std::size_t> at = {2, 1};
  EXPECT_EQ(transposed.at(at), 99.0);
  EXPECT_EQ(copy.at(at), 22.0);
}

TEST(ChapterNineViews, ACoordinateOutsideTheShapeIsRefusedEvenIfItsOffsetFits) {
  const TensorView transposed = matrix.view().transpose(0, 1);
  // [3, 0] would read offset 3, inside the storage, but axis 0 has extent 3.
  const auto error = capture_error<TensorError>([&] {
    transposed.at(std::vector<std::size_t>{3, 0});
  });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::CoordinateOutOfBounds);
  EXPECT_EQ(error->axis(), 0u);
}

TEST(ChapterNineViews, ATransposeWithUnswappedStridesLeavesTheStorage) {
  // The layout a transpose that forgot its strides would make: [3, 2] with [3, 1].
  const auto error = capture_error<TensorError>([] {
    TensorView(matrix.values(), Layout({3, 2}, {3, 1}, 0));
  });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind(), TensorErrorKind::ViewOutOfBounds);
  EXPECT_EQ(error->index(), 7u);
  EXPECT_EQ(error->expected(), 6u);
}

TEST(ChapterNineViews, HeadsSplitAndMergeByViewsButAFreshResultNeedsACopy) {
  // x[0, t, c] = 10 t + c with B = 1, T = 3, C = 4; H = 2 heads of width D = 2.
  const Tensor x({1, 3, 4}, {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});
  const TensorView heads = x.view().reshape({1, 3, 2, 2}).permute({0, 2, 1, 3});
  EXPECT_EQ(heads.shape(), (Shape{1, 2, 3, 2}));
  EXPECT_EQ(heads.strides(), (Strides{12, 2, 4, 1}));
  EXPECT_FALSE(heads.is_contiguous());
  EXPECT_EQ(values_of(heads.materialize()),
            (std::vector<double>{0, 1, 10, 11, 20, 21, 2, 3, 12, 13, 22, 23}));
  // Permuting the view back restores x's layout, so merging is free.
  const TensorView merged = heads.permute({0, 2, 1, 3}).reshape({1, 3, 4});
  EXPECT_TRUE(merged.shares_storage_with(x.view()));
  EXPECT_EQ(merged.layout(), x.view().layout());
  // A fresh [B, H, T, D] result permuted to [B, T, H, D] is strided.
  const Tensor fresh = heads.materialize();
  const TensorView back = fresh.view().permute({0, 2, 1, 3});
  EXPECT_EQ(back.strides(), (Strides{12, 2, 6, 1}));
  const auto refused = capture_error<TensorError>([&] { back.reshape({1, 3, 4}); });
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->kind(), TensorErrorKind::NonContiguousReshape);
  EXPECT_EQ(values_of(back.materialize().view().reshape({1, 3, 4}).materialize()), values_of(x));
}

}  // namespace
}  // namespace llm
