// The worked examples of chapter 11: one [2, 3] x [3, 2] product, the same
// product with the weights stored transposed, a batch of two inputs sharing
// one weight matrix, an empty inner axis, three rejected products, and the
// evidence that the library's fast kernel gives the textbook loop's bits.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "llm/tensor/matmul.hpp"
#include "llm/tensor/tensor.hpp"
#include "llm/tensor/tensor_error.hpp"

namespace ch11 {

/// The printed products of the chapter, inputs beside results.
struct WorkedExample {
  llm::Tensor token_rows;          ///< A, [2, 3]: two positions with three features
  llm::Tensor weights;             ///< W, [3, 2]: a projection to two features
  llm::Tensor product;             ///< A W, [2, 2]
  llm::Tensor stored_transpose;    ///< W^T stored row-major, [2, 3]
  llm::Tensor transpose_product;   ///< A times the transposed view of stored_transpose
  llm::Tensor batched_token_rows;  ///< [2, 2, 3]: batch 0 is A, batch 1 a second input
  llm::Tensor batched_weights;     ///< [1, 3, 2]: W once, shared by both batches
  llm::Tensor batched_product;     ///< [2, 2, 2]
  llm::Tensor zero_inner;          ///< [2, 0] x [0, 2]: four empty sums
};

/// Builds and multiplies every worked example.
WorkedExample worked_example();

/// One step of the row-by-column loop for a single output cell.
struct CellTerm {
  std::size_t k;             ///< the inner index
  double left;               ///< A[i, k]
  double right;              ///< B[k, j]
  double product;            ///< A[i, k] * B[k, j], rounded
  double partial_sum;        ///< the running sum after adding the product, rounded
  std::size_t left_offset;   ///< where A[i, k] sits in left's storage
  std::size_t right_offset;  ///< where B[k, j] sits in right's storage
};

/// The K steps that make C[row, column] of left [M, K] times right [K, N].
/// Preconditions: both views have rank two, equal inner extents, and
/// row < M, column < N (the demo calls it on validated fixtures).
std::vector<CellTerm> cell_terms(const llm::TensorView& left, const llm::TensorView& right,
                                 std::size_t row, std::size_t column);

/// A product the library refused, with the operands it was given.
struct RejectedProduct {
  std::string label;  ///< `inner`, `batch` or `rank`
  llm::TensorError error;
};

/// The three refused products: inner extents 3 and 4, batch extents 2 and 3,
/// a rank-one left operand.
std::vector<RejectedProduct> rejected_products(const WorkedExample& example);

/// The refusal in the printed wording of the course's first edition, built
/// from the error's fields (its kind, shapes and axis), never from what().
std::string printed_reason(const llm::TensorError& error);

/// How one way of multiplying compares with the textbook loop, element by element.
struct BitComparison {
  std::string method;             ///< e.g. `matmul (avx512 microkernel)`
  std::size_t equal_bits = 0;     ///< elements whose 64 bits equal the textbook's
  std::size_t elements = 0;       ///< elements compared
  double largest_difference = 0;  ///< max |value - textbook value|
};

/// The shape of the product used for the bit comparisons.
struct ComparisonShape {
  std::size_t rows, depth, columns;
};
inline constexpr ComparisonShape kComparisonShape{37, 300, 29};

/// Multiplies two deterministic pseudo-random matrices of kComparisonShape
/// (values in [-1, 1) with full mantissas) in several ways and compares each
/// result with matmul_textbook: llm::matmul, every microkernel this CPU runs,
/// the same loop adding k downwards, and the same loop with fused multiply-add.
std::vector<BitComparison> compare_with_textbook();

/// One product and sum, rounded twice and fused once.
struct FusedContrast {
  double left, right, addend;  ///< a, b, c
  double separate;             ///< (a * b rounded) + c rounded: what the book computes
  double fused;                ///< fma(a, b, c): rounded once
};

/// a = 1 + 2^-30, b = 1 - 2^-30, c = -1: a * b = 1 - 2^-60 rounds to 1.
FusedContrast fused_contrast();

}  // namespace ch11
