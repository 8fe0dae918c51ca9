// The blocked matrix product against the textbook loop, bit for bit: random
// shapes across every block boundary, every microkernel this CPU runs,
// transposed and sliced operands, broadcast batches and the folded batch path.
#include "llm/tensor/matmul_kernel.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "llm/tensor/matmul.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using matmul_detail::available_microkernels;
using matmul_detail::MatrixOperand;
using matmul_detail::Microkernel;
using testing::bits_of;

// Values whose sums depend on the order of addition: mixed signs, magnitudes
// from 1e-8 to 1e8, exact zeros of both signs and a few subnormals.
std::vector<double> order_sensitive_values(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 generator(seed);
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-8, 8);
  std::uniform_int_distribution<int> special(0, 40);
  std::vector<double> values(count);
  for (double& value : values) {
    const int kind = special(generator);
    if (kind == 0) {
      value = -0.0;
    } else if (kind == 1) {
      value = 0.0;
    } else if (kind == 2) {
      value = std::numeric_limits<double>::denorm_min() * 12345.0;
    } else {
      value = mantissa(generator) * std::pow(10.0, exponent(generator));
    }
  }
  return values;
}

Tensor random_tensor(const Shape& shape, std::uint64_t seed) {
  return Tensor(shape, order_sensitive_values(element_count(shape), seed));
}

// The textbook loop, written out here independently of the library.
std::vector<double> textbook(std::size_t rows, std::size_t depth, std::size_t columns,
                             const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> c(rows * columns);
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < columns; ++j) {
      double sum = 0.0;
      for (std::size_t p = 0; p < depth; ++p) sum += a[i * depth + p] * b[p * columns + j];
      c[i * columns + j] = sum;
    }
  }
  return c;
}

std::vector<std::uint64_t> bits(const std::vector<double>& values) {
  std::vector<std::uint64_t> result;
  for (double value : values) result.push_back(std::bit_cast<std::uint64_t>(value));
  return result;
}

TEST(MatmulKernel, EveryMicrokernelMatchesTheTextbookLoopBitForBit) {
  // Shapes that cross the tile edges (MR up to 8, NR up to 16), the row
  // block (24 panels), the depth block (256) and the column block (2048).
  struct Case {
    std::size_t rows, depth, columns;
  };
  std::vector<Case> cases = {{1, 1, 1},     {3, 5, 7},     {8, 16, 16}, {9, 17, 17},
                             {33, 300, 21}, {200, 40, 35}, {5, 600, 3}, {2, 3, 2100},
                             {64, 64, 64},  {1, 257, 1},   {17, 0, 5}};
  std::mt19937_64 generator(2024);
  std::uniform_int_distribution<std::size_t> extent(1, 90);
  for (int k = 0; k < 12; ++k)
    cases.push_back({extent(generator), extent(generator) * 4, extent(generator)});

  std::uint64_t seed = 1;
  for (const Case& c : cases) {
    const std::vector<double> a = order_sensitive_values(c.rows * c.depth, seed++);
    const std::vector<double> b = order_sensitive_values(c.depth * c.columns, seed++);
    const std::vector<std::uint64_t> expected = bits(textbook(c.rows, c.depth, c.columns, a, b));
    for (const Microkernel& kernel : available_microkernels()) {
      std::vector<double> out(c.rows * c.columns, 99.0);
      matmul_detail::multiply_matrices_with(kernel, c.rows, c.depth, c.columns,
                                            {a.data(), c.depth, 1}, {b.data(), c.columns, 1},
                                            out.data(), c.columns);
      EXPECT_EQ(bits(out), expected)
          << kernel.name << " " << c.rows << "x" << c.depth << "x" << c.columns;
    }
  }
}

TEST(MatmulKernel, ReadsTransposedOperandsThroughTheirStrides) {
  // a is stored as its transpose [depth, rows], b as its transpose [columns, depth].
  const std::size_t rows = 37, depth = 290, columns = 19;
  const std::vector<double> a = order_sensitive_values(rows * depth, 7);
  const std::vector<double> b = order_sensitive_values(depth * columns, 8);
  std::vector<double> a_stored(rows * depth), b_stored(depth * columns);
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t p = 0; p < depth; ++p) a_stored[p * rows + i] = a[i * depth + p];
  }
  for (std::size_t p = 0; p < depth; ++p) {
    for (std::size_t j = 0; j < columns; ++j) b_stored[j * depth + p] = b[p * columns + j];
  }
  const std::vector<std::uint64_t> expected = bits(textbook(rows, depth, columns, a, b));
  for (const Microkernel& kernel : available_microkernels()) {
    std::vector<double> out(rows * columns);
    matmul_detail::multiply_matrices_with(
        kernel, rows, depth, columns, MatrixOperand{a_stored.data(), 1, rows},
        MatrixOperand{b_stored.data(), 1, depth}, out.data(), columns);
    EXPECT_EQ(bits(out), expected) << kernel.name;
  }
}

TEST(Matmul, EqualsTheTextbookOnTransposedAndSlicedViews) {
  const Tensor left_stored = random_tensor({40, 70}, 11);   // viewed transposed: [70, 40]
  const Tensor right_stored = random_tensor({50, 30}, 12);  // rows 5..45: [40, 30]
  const TensorView left = left_stored.view().matrix_transpose();
  const TensorView right = right_stored.view().slice(0, 5, 45);
  const Tensor fast = matmul(left, right);
  EXPECT_EQ(fast.shape(), (Shape{70, 30}));
  EXPECT_EQ(bits_of(fast), bits_of(matmul_textbook(left, right)));
  // The same product from contiguous copies: the layout never changes the bits.
  EXPECT_EQ(bits_of(fast), bits_of(matmul(left.materialize(), right.materialize())));
}

TEST(Matmul, EqualsTheTextbookOnBroadcastBatches) {
  struct Case {
    Shape left, right;
  };
  for (const Case& c :
       {Case{{3, 1, 9, 33}, {1, 4, 33, 10}}, Case{{8, 64, 64}, {64, 64}},
        Case{{2, 3, 5, 7}, {7, 6}}, Case{{5, 6}, {4, 6, 3}}, Case{{1, 17, 300}, {3, 300, 2}}}) {
    const Tensor left = random_tensor(c.left, 21);
    const Tensor right = random_tensor(c.right, 22);
    const Tensor fast = matmul(left.view(), right.view());
    const Tensor reference = matmul_textbook(left.view(), right.view());
    EXPECT_EQ(fast.shape(), reference.shape());
    EXPECT_EQ(bits_of(fast), bits_of(reference))
        << shape_text(c.left) << " @ " << shape_text(c.right);
  }
  // A broadcast batch of a transposed operand: [4, 1, 10, 6]^T-ish through permute.
  const Tensor stored = random_tensor({4, 6, 10}, 23);
  const TensorView left = stored.view().matrix_transpose();  // [4, 10, 6], strided
  const Tensor right = random_tensor({6, 5}, 24);
  EXPECT_EQ(bits_of(matmul(left, right.view())), bits_of(matmul_textbook(left, right.view())));
}

TEST(Matmul, KeepsTheSignOfAnEmptyOrNegativeZeroSumAsTheTextbookDoes) {
  // 0.0 + (-0.0) is +0.0: every sum starts from +0.0, so -0 products give +0.
  const Tensor left({1, 2}, {-0.0, 1.0});
  const Tensor right({2, 1}, {1.0, -0.0});
  EXPECT_EQ(bits_of(matmul(left.view(), right.view())), bits_of(Tensor({1, 1}, {0.0})));
  // K = 0: every element is the empty sum 0.0.
  const Tensor empty_left = Tensor::zeros({2, 0});
  const Tensor empty_right = Tensor::zeros({0, 3});
  EXPECT_EQ(testing::values_of(matmul(empty_left.view(), empty_right.view())),
            std::vector<double>(6, 0.0));
}

TEST(MatmulKernel, NeverFusesAMultiplyIntoTheRunningSum) {
  // s = -1, then s + a*b with a*b = 1 - 2^-60: rounding the product first
  // gives 1 and the sum 0; a fused multiply-add would give -2^-60. The
  // build's -ffp-contract=off is what keeps this +0.0 (AVX-512F has FMA itself).
  const std::vector<double> a = {-1.0, 1.0 + 0x1p-30};
  const std::vector<double> b = {1.0, 1.0 - 0x1p-30};
  for (const Microkernel& kernel : available_microkernels()) {
    double out = 1.0;
    matmul_detail::multiply_matrices_with(kernel, 1, 2, 1, MatrixOperand{a.data(), 2, 1},
                                          MatrixOperand{b.data(), 1, 1}, &out, 1);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(out), std::bit_cast<std::uint64_t>(0.0)) << kernel.name;
  }
  const Tensor left({1, 2}, {a[0], a[1]});
  const Tensor right({2, 1}, {b[0], b[1]});
  EXPECT_EQ(bits_of(matmul_textbook(left.view(), right.view())), bits_of(Tensor({1, 1}, {0.0})));
  EXPECT_EQ(bits_of(matmul(left.view(), right.view())), bits_of(Tensor({1, 1}, {0.0})));
  EXPECT_NE(std::fma(a[1], b[1], a[0] * b[0]), 0.0);  // the fused value really differs
}

TEST(MatmulKernel, ListsThePortableKernelLast) {
  const auto kernels = available_microkernels();
  ASSERT_FALSE(kernels.empty());
  EXPECT_EQ(kernels.back().name, "generic");
}

}  // namespace
}  // namespace llm
