// The blocked matrix product: pack blocks of A and B into the order the
// microkernel reads them, then cover C with register tiles. The blocking
// reorders which output elements are computed when, never the order in
// which one element adds its products, so the bits equal the textbook loop.
//
// Loop nest (the BLIS order; K is split into blocks of kDepthBlock):
//   for each column block of B (kColumnBlock columns):
//     for each K block:             pack B[K block, column block] into NR-wide panels
//       for each row block of A:    pack A[row block, K block] into MR-tall panels
//         for each NR panel, for each MR panel: microkernel on one C tile
// The first K block starts every tile from 0.0; later K blocks continue from
// the partial sums stored in C, in increasing K.
#include "llm/tensor/matmul_kernel.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace llm::matmul_detail {

void microkernel_generic(unsigned long, const double*, const double*, double*, unsigned long, bool);
#if defined(__x86_64__)
void microkernel_avx2(unsigned long, const double*, const double*, double*, unsigned long, bool);
void microkernel_avx512(unsigned long, const double*, const double*, double*, unsigned long, bool);
#endif

namespace {

// region: microkernel-dispatch
// The widest microkernel the CPU supports; every one gives the same bits, so
// the choice changes only the speed, never a printed digit.
std::vector<Microkernel> detect_microkernels() {
  std::vector<Microkernel> kernels;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) kernels.push_back({"avx512", 8, 16, microkernel_avx512});
  if (__builtin_cpu_supports("avx2")) kernels.push_back({"avx2", 4, 8, microkernel_avx2});
#endif
  kernels.push_back({"generic", 4, 4, microkernel_generic});
  return kernels;
}
// endregion: microkernel-dispatch

// region: matmul-packing
// B[depth block, column block] as panels of kernel.columns columns: panel q
// holds, for each p, columns q*NR .. q*NR+NR-1 side by side; columns past
// the edge are 0.0 (their results are never stored).
void pack_b(const Microkernel& kernel, std::size_t depth, std::size_t columns, MatrixOperand b,
            double* packed) {
  const std::size_t nr = kernel.columns;
  for (std::size_t first = 0; first < columns; first += nr) {
    const std::size_t width = std::min(nr, columns - first);
    for (std::size_t p = 0; p < depth; ++p) {
      const double* row = b.data + p * b.row_stride + first * b.column_stride;
      for (std::size_t j = 0; j < width; ++j) packed[j] = row[j * b.column_stride];
      for (std::size_t j = width; j < nr; ++j) packed[j] = 0.0;
      packed += nr;
    }
  }
}

// A[row block, depth block] as panels of kernel.rows rows: panel q holds, for
// each p, rows q*MR .. q*MR+MR-1 side by side; rows past the edge are 0.0.
void pack_a(const Microkernel& kernel, std::size_t rows, std::size_t depth, MatrixOperand a,
            double* packed) {
  const std::size_t mr = kernel.rows;
  for (std::size_t first = 0; first < rows; first += mr) {
    const std::size_t height = std::min(mr, rows - first);
    for (std::size_t p = 0; p < depth; ++p) {
      const double* column = a.data + first * a.row_stride + p * a.column_stride;
      for (std::size_t i = 0; i < height; ++i) packed[i] = column[i * a.row_stride];
      for (std::size_t i = height; i < mr; ++i) packed[i] = 0.0;
      packed += mr;
    }
  }
}
// endregion: matmul-packing

// One C tile: full tiles are updated in place; an edge tile goes through a
// full-size scratch tile so the microkernel never writes past C.
void update_tile(const Microkernel& kernel, std::size_t depth, const double* a_panel,
                 const double* b_panel, double* c, std::size_t c_row_stride, std::size_t rows,
                 std::size_t columns, bool accumulate) {
  if (rows == kernel.rows && columns == kernel.columns) {
    kernel.run(depth, a_panel, b_panel, c, c_row_stride, accumulate);
    return;
  }
  std::array<double, 16 * 16> scratch{};
  for (std::size_t i = 0; i < rows && accumulate; ++i) {
    std::copy_n(c + i * c_row_stride, columns, scratch.data() + i * kernel.columns);
  }
  kernel.run(depth, a_panel, b_panel, scratch.data(), kernel.columns, accumulate);
  for (std::size_t i = 0; i < rows; ++i) {
    std::copy_n(scratch.data() + i * kernel.columns, columns, c + i * c_row_stride);
  }
}

}  // namespace

std::span<const Microkernel> available_microkernels() {
  static const std::vector<Microkernel> kernels = detect_microkernels();
  return kernels;
}

void multiply_matrices(std::size_t rows, std::size_t depth, std::size_t columns, MatrixOperand a,
                       MatrixOperand b, double* c, std::size_t c_row_stride) {
  multiply_matrices_with(available_microkernels().front(), rows, depth, columns, a, b, c,
                         c_row_stride);
}

// region: matmul-blocking
void multiply_matrices_with(const Microkernel& kernel, std::size_t rows, std::size_t depth,
                            std::size_t columns, MatrixOperand a, MatrixOperand b, double* c,
                            std::size_t c_row_stride) {
  if (rows == 0 || columns == 0) return;
  if (depth == 0) {  // an empty sum is 0.0
    for (std::size_t i = 0; i < rows; ++i) std::fill_n(c + i * c_row_stride, columns, 0.0);
    return;
  }
  const std::size_t mr = kernel.rows;
  const std::size_t nr = kernel.columns;
  const std::size_t row_block = kRowPanels * mr;
  const std::size_t depth_block = std::min(depth, kDepthBlock);
  const std::size_t column_block = std::min(columns, kColumnBlock);
  std::vector<double> packed_a(((std::min(rows, row_block) + mr - 1) / mr) * mr * depth_block);
  std::vector<double> packed_b(((column_block + nr - 1) / nr) * nr * depth_block);

  for (std::size_t jc = 0; jc < columns; jc += kColumnBlock) {
    const std::size_t nc = std::min(kColumnBlock, columns - jc);
    for (std::size_t pc = 0; pc < depth; pc += kDepthBlock) {
      const std::size_t kc = std::min(kDepthBlock, depth - pc);
      const bool accumulate = pc > 0;  // the first K block starts every sum from 0.0
      pack_b(kernel, kc, nc,
             {b.data + pc * b.row_stride + jc * b.column_stride, b.row_stride, b.column_stride},
             packed_b.data());
      for (std::size_t ic = 0; ic < rows; ic += row_block) {
        const std::size_t mc = std::min(row_block, rows - ic);
        pack_a(kernel, mc, kc,
               {a.data + ic * a.row_stride + pc * a.column_stride, a.row_stride, a.column_stride},
               packed_a.data());
        for (std::size_t jr = 0; jr < nc; jr += nr) {
          for (std::size_t ir = 0; ir < mc; ir += mr) {
            update_tile(kernel, kc, packed_a.data() + ir * kc, packed_b.data() + jr * kc,
                        c + (ic + ir) * c_row_stride + jc + jr, c_row_stride, std::min(mr, mc - ir),
                        std::min(nr, nc - jr), accumulate);
          }
        }
      }
    }
  }
}
// endregion: matmul-blocking

}  // namespace llm::matmul_detail
