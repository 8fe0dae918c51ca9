// SmallVector: the inline-capacity list behind Shape, Strides and Axes.
#include "llm/tensor/small_vector.hpp"

#include <gtest/gtest.h>

#include <span>
#include <utility>
#include <vector>

#include "llm/tensor/shape.hpp"

namespace llm {
namespace {

TEST(SmallVector, KeepsSmallRanksInlineAndLargeOnesOnTheHeap) {
  Shape shape{2, 3};
  EXPECT_TRUE(shape.is_inline());
  EXPECT_EQ(shape.size(), 2u);
  for (std::size_t extent = 4; shape.size() < kInlineRank; ++extent) shape.push_back(extent);
  EXPECT_TRUE(shape.is_inline());
  shape.push_back(99);  // one past the inline capacity
  EXPECT_FALSE(shape.is_inline());
  EXPECT_EQ(shape.size(), kInlineRank + 1);
  EXPECT_EQ(shape.front(), 2u);
  EXPECT_EQ(shape.back(), 99u);
  EXPECT_EQ(std::vector<std::size_t>(shape.begin(), shape.end()),
            (std::vector<std::size_t>{2, 3, 4, 5, 6, 7, 99}));
}

TEST(SmallVector, CopiesAndMovesInlineAndHeapContents) {
  const Shape small{1, 2, 3};
  const Shape large{1, 2, 3, 4, 5, 6, 7, 8};
  for (const Shape& original : {small, large}) {
    Shape copy = original;
    EXPECT_EQ(copy, original);
    Shape moved = std::move(copy);
    EXPECT_EQ(moved, original);
    EXPECT_TRUE(copy.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty
    Shape assigned{9};
    assigned = original;
    EXPECT_EQ(assigned, original);
    assigned = Shape{4};
    EXPECT_EQ(assigned, Shape{4});
  }
}

TEST(SmallVector, EditsLikeAVector) {
  Shape shape(3, 7);
  EXPECT_EQ(shape, (Shape{7, 7, 7}));
  shape.erase(shape.begin() + 1);
  EXPECT_EQ(shape, (Shape{7, 7}));
  shape.insert(shape.begin(), 1);
  EXPECT_EQ(shape, (Shape{1, 7, 7}));
  shape.push_back(shape[0]);  // an element of the vector itself
  EXPECT_EQ(shape, (Shape{1, 7, 7, 1}));
  shape.pop_back();
  shape.resize(5, 2);
  EXPECT_EQ(shape, (Shape{1, 7, 7, 2, 2}));
  const std::span<const std::size_t> span = shape;
  EXPECT_EQ(span.size(), 5u);
  EXPECT_EQ(Shape(span.begin() + 1, span.end() - 2), (Shape{7, 7}));
  EXPECT_NE(Shape{1}, (Shape{1, 1}));
}

}  // namespace
}  // namespace llm
