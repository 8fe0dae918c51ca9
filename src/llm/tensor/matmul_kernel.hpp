// The blocked matrix-product kernel behind llm::matmul (internal to the
// tensor area; chapter 11 explains it). Not part of the public API: callers
// use matmul() in matmul.hpp.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

/// The blocked matrix-product kernel behind llm::matmul (internal to the tensor area).
namespace llm::matmul_detail {

// region: matmul-block-sizes
/// The blocking of multiply_matrices_with (chapter 11): K values per packed
/// slice of both operands, MR-row panels per packed block of A, and columns
/// per packed block of B. The packed B buffer holds min(N, kColumnBlock)
/// columns (rounded up to NR) of min(K, kDepthBlock) rows; the packed A
/// buffer at most kRowPanels * MR rows of min(K, kDepthBlock) values.
inline constexpr std::size_t kDepthBlock = 256;
inline constexpr std::size_t kRowPanels = 24;      ///< MR-row panels per packed block of A
inline constexpr std::size_t kColumnBlock = 2048;  ///< columns per packed block of B
// endregion: matmul-block-sizes

/// One matrix read through strides: element (i, j) is data[i * row_stride + j * column_stride].
struct MatrixOperand {
  const double* data = nullptr;   ///< element (0, 0)
  std::size_t row_stride = 0;     ///< elements from one row to the next
  std::size_t column_stride = 0;  ///< elements from one column to the next
};

/// A register-blocked inner loop: adds `depth` packed rank-1 updates into a
/// rows x columns tile of C (see matmul_microkernel.inc).
struct Microkernel {
  std::string_view name;  ///< `avx512`, `avx2` or `generic`
  std::size_t rows;       ///< MR, the tile's rows
  std::size_t columns;    ///< NR, the tile's columns
  /// Adds (or, without `accumulate`, writes) packed A times packed B into the C tile.
  void (*run)(unsigned long depth, const double* a, const double* b, double* c,
              unsigned long c_row_stride, bool accumulate);
};

/// Every microkernel this CPU can run, fastest first; the first is the one
/// multiply_matrices uses. All of them produce the same bits.
std::span<const Microkernel> available_microkernels();

/// c[i, j] = sum_p a[i, p] * b[p, j] for a [rows, depth] and b [depth,
/// columns], written into c (row-major rows with stride c_row_stride). Each
/// sum starts from 0.0 and adds its products in increasing p, each product
/// and each sum rounded separately: the bits of the textbook loop.
/// @throws std::bad_alloc only if the packing buffers (at most a few MiB)
///         cannot be allocated; c is then unspecified.
void multiply_matrices(std::size_t rows, std::size_t depth, std::size_t columns, MatrixOperand a,
                       MatrixOperand b, double* c, std::size_t c_row_stride);

/// multiply_matrices with a chosen microkernel (tests compare them all).
void multiply_matrices_with(const Microkernel& kernel, std::size_t rows, std::size_t depth,
                            std::size_t columns, MatrixOperand a, MatrixOperand b, double* c,
                            std::size_t c_row_stride);

}  // namespace llm::matmul_detail
