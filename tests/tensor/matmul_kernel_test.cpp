// The blocked matrix product against the textbook loop, bit for bit: random
// shapes across every block boundary, every kernel this CPU runs (each with
// its own blocking and its few-row tiles), transposed and sliced operands,
// broadcast batches, the folded batch path, and 1, 2 and 3 threads.
#include "llm/tensor/matmul_kernel.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "llm/tensor/configuration_error.hpp"
#include "llm/tensor/matmul.hpp"
#include "llm/tensor/parallel.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using matmul_detail::available_kernels;
using matmul_detail::MatmulKernel;
using matmul_detail::MatrixOperand;
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
  // block (24 or 42 panels), the depth block (192 or 256), the column block
  // (2048), and the few-row path (1 to 4 rows, 32-wide tiles and their tail).
  struct Case {
    std::size_t rows, depth, columns;
  };
  std::vector<Case> cases = {{1, 1, 1},     {3, 5, 7},     {8, 16, 16},  {9, 17, 17},
                             {33, 300, 21}, {200, 40, 35}, {5, 600, 3},  {2, 3, 2100},
                             {64, 64, 64},  {1, 257, 1},   {17, 0, 5},   {1, 128, 128},
                             {4, 130, 70},  {3, 64, 33},   {2, 513, 96}, {400, 130, 20}};
  std::mt19937_64 generator(2024);
  std::uniform_int_distribution<std::size_t> extent(1, 90);
  for (int k = 0; k < 12; ++k)
    cases.push_back({extent(generator), extent(generator) * 4, extent(generator)});

  std::uint64_t seed = 1;
  for (const Case& c : cases) {
    const std::vector<double> a = order_sensitive_values(c.rows * c.depth, seed++);
    const std::vector<double> b = order_sensitive_values(c.depth * c.columns, seed++);
    const std::vector<std::uint64_t> expected = bits(textbook(c.rows, c.depth, c.columns, a, b));
    for (const MatmulKernel& kernel : available_kernels()) {
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
  for (const MatmulKernel& kernel : available_kernels()) {
    std::vector<double> out(rows * columns);
    matmul_detail::multiply_matrices_with(
        kernel, rows, depth, columns, MatrixOperand{a_stored.data(), 1, rows},
        MatrixOperand{b_stored.data(), 1, depth}, out.data(), columns);
    EXPECT_EQ(bits(out), expected) << kernel.name;
  }
}

TEST(MatmulKernel, ServesAFewRowsFromBInPlaceOrPackedWithTheSameBits) {
  // Up to 16 rows (the few-row path, in groups of 4, 2 and 1 rows) and 17
  // (the blocked path) against B read in place (column stride 1, a row
  // stride wider than the columns, as in a slice) and B read through a
  // transpose (column stride depth), which the few-row path packs first.
  const std::size_t depth = 75, columns = 70, b_row_stride = 81;
  const std::vector<double> b = order_sensitive_values(depth * columns, 31);
  std::vector<double> b_wide(depth * b_row_stride, 7.0), b_transposed(depth * columns);
  for (std::size_t p = 0; p < depth; ++p) {
    for (std::size_t j = 0; j < columns; ++j) {
      b_wide[p * b_row_stride + j] = b[p * columns + j];
      b_transposed[j * depth + p] = b[p * columns + j];
    }
  }
  for (std::size_t rows : {1, 2, 3, 4, 5, 7, 11, 16, 17}) {
    const std::vector<double> a = order_sensitive_values(rows * depth, 40 + rows);
    const std::vector<std::uint64_t> expected = bits(textbook(rows, depth, columns, a, b));
    for (const MatmulKernel& kernel : available_kernels()) {
      for (const MatrixOperand& operand : {MatrixOperand{b_wide.data(), b_row_stride, 1},
                                           MatrixOperand{b_transposed.data(), 1, depth}}) {
        std::vector<double> out(rows * columns, 99.0);
        matmul_detail::multiply_matrices_with(kernel, rows, depth, columns, {a.data(), depth, 1},
                                              operand, out.data(), columns);
        EXPECT_EQ(bits(out), expected)
            << kernel.name << " rows " << rows << " column stride " << operand.column_stride;
      }
    }
  }
}

TEST(MatmulKernel, GivesTheSameBitsOnOneTwoAndThreeThreads) {
  // Products large enough to go parallel: split by rows, by columns, by
  // columns of a one-row product, and a batch of separate products.
  struct Case {
    Shape left, right;
  };
  const std::size_t previous = set_thread_count(1);
  // Each has more than kParallelMinimumWork multiply-adds (the smallest 1,083,600).
  static_assert(matmul_detail::kParallelMinimumWork <= 1'083'600);
  for (const Case& c :
       {Case{{203, 130}, {130, 45}}, Case{{40, 90}, {90, 301}}, Case{{1, 1100}, {1100, 1000}},
        Case{{12, 50, 33}, {12, 33, 70}}, Case{{3, 33, 310}, {310, 40}}}) {
    const Tensor left = random_tensor(c.left, 51);
    const Tensor right = random_tensor(c.right, 52);
    const std::vector<std::uint64_t> expected = bits_of(matmul_textbook(left.view(), right.view()));
    for (std::size_t threads : {1, 2, 3}) {
      set_thread_count(threads);
      EXPECT_EQ(bits_of(matmul(left.view(), right.view())), expected)
          << threads << " threads, " << shape_text(c.left) << " @ " << shape_text(c.right);
      for (const MatmulKernel& kernel : available_kernels()) {
        const std::size_t rows = c.left[c.left.size() - 2], depth = c.left.back();
        if (c.left.size() != 2) break;
        std::vector<double> out(rows * c.right.back(), 99.0);
        matmul_detail::multiply_matrices_with(
            kernel, rows, depth, c.right.back(), {left.values().data(), depth, 1},
            {right.values().data(), c.right.back(), 1}, out.data(), c.right.back());
        EXPECT_EQ(bits(out), expected) << kernel.name << " on " << threads << " threads";
      }
    }
  }
  set_thread_count(previous);
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
  for (const MatmulKernel& kernel : available_kernels()) {
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

TEST(MatmulKernel, OffersThePortableKernelEverywhereAndTheChosenOneFirst) {
  const auto kernels = available_kernels();
  ASSERT_FALSE(kernels.empty());
  EXPECT_TRUE(std::any_of(kernels.begin(), kernels.end(),
                          [](const MatmulKernel& kernel) { return kernel.name == "generic"; }));
  if (std::getenv("LLM_MATMUL_KERNEL") == nullptr) {
    EXPECT_EQ(matmul_detail::chosen_kernel().name, kernels.front().name);
  }
  for (const MatmulKernel& kernel : kernels) {
    ASSERT_FALSE(kernel.few_rows.empty()) << kernel.name;
    for (const auto& tile : kernel.few_rows) {
      EXPECT_EQ(tile.columns, kernel.few_rows.front().columns) << kernel.name;
    }
    EXPECT_EQ(&matmul_detail::kernel_named(kernel.name, "test"),
              &matmul_detail::kernel_named(kernel.name, "test"));
  }
}

TEST(MatmulKernel, RefusesAKernelNameItDoesNotKnowNamingTheSetting) {
  const auto error = testing::capture_error<ConfigurationError>(
      [] { matmul_detail::kernel_named("avx1024", "LLM_MATMUL_KERNEL"); });
  EXPECT_EQ(error->kind(), ConfigurationErrorKind::UnknownMatmulKernel);
  EXPECT_EQ(error->kind_name(), "unknown-matmul-kernel");
  EXPECT_NE(std::string(error->what()).find("LLM_MATMUL_KERNEL"), std::string::npos);
  EXPECT_NE(std::string(error->what()).find("'avx1024'"), std::string::npos);
  EXPECT_NE(std::string(error->what()).find("generic"), std::string::npos);
}

}  // namespace
}  // namespace llm
