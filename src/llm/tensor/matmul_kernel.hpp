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
/// How multiply_matrices_with blocks a product (chapter 11): K values per
/// packed slice of both operands, MR-row panels per packed block of A, and
/// columns per packed block of B. The packed B buffer holds
/// min(N, column_block) columns (rounded up to NR) of min(K, depth_block)
/// rows; the packed A buffer at most row_panels * MR rows of
/// min(K, depth_block) values. Each kind of CPU gets the sizes that fit its
/// caches (MatmulKernel::blocking); these are the defaults.
struct Blocking {
  std::size_t depth_block;   ///< KC, K values per packed slice
  std::size_t row_panels;    ///< MC / MR, row panels per packed block of A
  std::size_t column_block;  ///< NC, columns per packed block of B
};
inline constexpr std::size_t kDepthBlock = 256;    ///< K values per packed slice
inline constexpr std::size_t kRowPanels = 24;      ///< MR-row panels per packed block of A
inline constexpr std::size_t kColumnBlock = 2048;  ///< columns per packed block of B
inline constexpr Blocking kDefaultBlocking{kDepthBlock, kRowPanels,
                                           kColumnBlock};  ///< KC, MC / MR, NC
// endregion: matmul-block-sizes

/// One matrix read through strides: element (i, j) is data[i * row_stride + j * column_stride].
struct MatrixOperand {
  const double* data = nullptr;   ///< element (0, 0)
  std::size_t row_stride = 0;     ///< elements from one row to the next
  std::size_t column_stride = 0;  ///< elements from one column to the next
};

/// A register-blocked inner loop: adds `depth` rank-1 updates into a rows x
/// columns tile of C (see matmul_microkernel.inc). `a` is packed (depth x
/// rows values); row p of B's columns starts at b + p * b_row_stride.
using MicrokernelFunction = void (*)(unsigned long depth, const double* a, const double* b,
                                     unsigned long b_row_stride, double* c,
                                     unsigned long c_row_stride, bool accumulate);

/// One tile shape compiled for one instruction set.
struct Microkernel {
  std::size_t rows;         ///< MR, the tile's rows
  std::size_t columns;      ///< NR, the tile's columns
  MicrokernelFunction run;  ///< the compiled loop
};

/// A complete way to multiply on one kind of CPU: the instruction set's main
/// tile, the blocking tuned to the CPU's caches, and the narrow tiles that
/// serve products of a few rows (decoding one token) straight from B.
struct MatmulKernel {
  std::string_view name;  ///< `avx512`, `avx512-zen4`, `avx2` or `generic` (LLM_MATMUL_KERNEL)
  Microkernel tile;       ///< MR x NR, the tile of the blocked product
  Blocking blocking;      ///< the block sizes around it
  std::span<const Microkernel> few_rows;  ///< narrow tiles, most rows first
  std::string_view reason;                ///< why this CPU kind gets this choice
};

/// Every kernel this CPU can run, the one detect_kernel() picks first, then
/// the others; all of them produce the same bits.
std::span<const MatmulKernel> available_kernels();

/// The kernel multiply_matrices uses: the one LLM_MATMUL_KERNEL names, if
/// set, else the one chosen for this CPU (chapter 11, docs/performance.md).
/// Decided at the first call.
/// @throws ConfigurationError UnknownMatmulKernel or UnsupportedMatmulKernel
///         if LLM_MATMUL_KERNEL names no kernel or one this CPU cannot run.
const MatmulKernel& chosen_kernel();

/// The kernel called `name`, for the setting `source` (LLM_MATMUL_KERNEL).
/// @throws ConfigurationError UnknownMatmulKernel if no kernel has that name,
///         UnsupportedMatmulKernel if this CPU cannot run it; both list the
///         names that would work.
const MatmulKernel& kernel_named(std::string_view name, std::string_view source);

/// c[i, j] = sum_p a[i, p] * b[p, j] for a [rows, depth] and b [depth,
/// columns], written into c (row-major rows with stride c_row_stride). Each
/// sum starts from 0.0 and adds its products in increasing p, each product
/// and each sum rounded separately: the bits of the textbook loop, for every
/// kernel and every thread count. Large products are split among
/// thread_count() threads (parallel.hpp); a call from inside a parallel task
/// runs on its own thread.
/// @throws std::bad_alloc only if the packing buffers (at most a few MiB
///         per thread) cannot be allocated; c is then unspecified.
/// @throws ConfigurationError as chosen_kernel() and thread_count().
void multiply_matrices(std::size_t rows, std::size_t depth, std::size_t columns, MatrixOperand a,
                       MatrixOperand b, double* c, std::size_t c_row_stride);

/// multiply_matrices with a chosen kernel (tests compare them all).
void multiply_matrices_with(const MatmulKernel& kernel, std::size_t rows, std::size_t depth,
                            std::size_t columns, MatrixOperand a, MatrixOperand b, double* c,
                            std::size_t c_row_stride);

/// Products below this many multiply-adds (M * K * N) stay on one thread:
/// waking the pool costs more than it saves.
inline constexpr std::size_t kParallelMinimumWork = std::size_t{1} << 20;

}  // namespace llm::matmul_detail
