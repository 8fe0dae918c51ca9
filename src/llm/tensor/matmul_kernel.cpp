// The blocked matrix product: pack blocks of A and B into the order the
// microkernel reads them, then cover C with register tiles. The blocking
// reorders which output elements are computed when, never the order in
// which one element adds its products, so the bits equal the textbook loop.
//
// Loop nest (the BLIS order; K is split into blocks of blocking.depth_block):
//   for each column block of B (blocking.column_block columns):
//     for each K block:             pack B[K block, column block] into NR-wide panels
//       for each row block of A:    pack A[row block, K block] into MR-tall panels
//         for each NR panel, for each MR panel: microkernel on one C tile
// The first K block starts every tile from 0.0; later K blocks continue from
// the partial sums stored in C, in increasing K.
#include "llm/tensor/matmul_kernel.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <vector>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "llm/tensor/configuration_error.hpp"
#include "llm/tensor/parallel.hpp"

namespace llm::matmul_detail {

#define LLM_DECLARE_MICROKERNEL(name)                                                          \
  void name(unsigned long depth, const double* a, const double* b, unsigned long b_row_stride, \
            double* c, unsigned long c_row_stride, bool accumulate);
LLM_DECLARE_MICROKERNEL(microkernel_generic_4x4)
LLM_DECLARE_MICROKERNEL(microkernel_generic_2x8)
LLM_DECLARE_MICROKERNEL(microkernel_generic_1x8)
#if defined(__x86_64__)
LLM_DECLARE_MICROKERNEL(microkernel_avx2_4x8)
LLM_DECLARE_MICROKERNEL(microkernel_avx2_2x16)
LLM_DECLARE_MICROKERNEL(microkernel_avx2_1x16)
LLM_DECLARE_MICROKERNEL(microkernel_avx512_8x16)
LLM_DECLARE_MICROKERNEL(microkernel_avx512_4x32)
LLM_DECLARE_MICROKERNEL(microkernel_avx512_2x32)
LLM_DECLARE_MICROKERNEL(microkernel_avx512_1x32)
#endif
#undef LLM_DECLARE_MICROKERNEL

namespace {

constexpr std::array<Microkernel, 2> kGenericFewRows{
    {{2, 8, microkernel_generic_2x8}, {1, 8, microkernel_generic_1x8}}};
#if defined(__x86_64__)
constexpr std::array<Microkernel, 2> kAvx2FewRows{
    {{2, 16, microkernel_avx2_2x16}, {1, 16, microkernel_avx2_1x16}}};
constexpr std::array<Microkernel, 3> kAvx512FewRows{{{4, 32, microkernel_avx512_4x32},
                                                     {2, 32, microkernel_avx512_2x32},
                                                     {1, 32, microkernel_avx512_1x32}}};
#endif

// The largest tile of any kernel (8 x 16 and 4 x 32 are 128 values).
constexpr std::size_t kLargestTile = 128;

// Products of at most this many rows take the few-row path: below it,
// reading B in place for every group of rows costs less than packing it.
constexpr std::size_t kFewRowsLimit = 16;

struct CpuFeatures {
  bool avx2 = false;
  bool avx512f = false;
  bool amd = false;
  unsigned family = 0;  // base family plus extended family, as /proc/cpuinfo prints it
};

CpuFeatures cpu_features() {
  CpuFeatures cpu;
#if defined(__x86_64__)
  __builtin_cpu_init();
  cpu.avx2 = __builtin_cpu_supports("avx2");
  cpu.avx512f = __builtin_cpu_supports("avx512f");
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0, &eax, &ebx, &ecx, &edx)) {
    cpu.amd = ebx == 0x68747541 && edx == 0x69746e65 && ecx == 0x444d4163;  // "AuthenticAMD"
  }
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx)) {
    const unsigned base = (eax >> 8) & 0xF;
    cpu.family = base == 0xF ? base + ((eax >> 20) & 0xFF) : base;
  }
#endif
  return cpu;
}

bool can_run(const MatmulKernel& kernel, const CpuFeatures& cpu) {
  if (kernel.name.starts_with("avx512")) return cpu.avx512f;
  if (kernel.name == "avx2") return cpu.avx2;
  return true;
}

// region: microkernel-dispatch
// Every kernel compiled into this library. They differ in speed, never in a
// bit: each adds every cell's products in increasing k with a separate
// multiply and add. The AVX-512 tile is the same on every AVX-512 CPU; the
// blocking around it is not. Zen 4 runs each 512-bit operation as two
// 256-bit halves and has a 32 KiB L1 data cache where Zen 5 has 48 KiB
// (docs/performance.md gives the sources). With a K slice of 256 the packed
// B panel that stays in L1 (256 x 16 doubles, 32 KiB) would fill Zen 4's
// whole L1; a slice of 192 makes it 24 KiB, the three quarters AMD's own BLIS
// gives its resident panel on Zen 4, and 42 panels of 8 rows keep the packed
// A block at 504 KiB, about half the 1 MiB L2 cache, as AMD's blocks do.
const std::vector<MatmulKernel>& all_kernels() {
  static const std::vector<MatmulKernel> kernels = {
#if defined(__x86_64__)
    {"avx512",
     {8, 16, microkernel_avx512_8x16},
     kDefaultBlocking,
     kAvx512FewRows,
     "AVX-512F: 8 x 16 tile in 16 of 32 vector registers; blocking measured on Zen 5"},
    {"avx512-zen4",
     {8, 16, microkernel_avx512_8x16},
     {192, 42, kColumnBlock},
     kAvx512FewRows,
     "AVX-512F on AMD family 25 (Zen 4): K slice 192, so the packed B panel is 24 KiB of "
     "its 32 KiB L1 data cache (derived from documentation, not measured on a Zen 4)"},
    {"avx2",
     {4, 8, microkernel_avx2_4x8},
     kDefaultBlocking,
     kAvx2FewRows,
     "AVX2 without AVX-512F: 4 x 8 tile in 8 of 16 vector registers"},
#endif
    {"generic",
     {4, 4, microkernel_generic_4x4},
     kDefaultBlocking,
     kGenericFewRows,
     "16-byte vectors (SSE2 or NEON): 4 x 4 tile"},
  };
  return kernels;
}

// The kernel for this CPU: the widest instruction set it has, with the
// blocking of its microarchitecture where one is known.
const MatmulKernel& detect_kernel(const CpuFeatures& cpu) {
  const auto named = [](std::string_view name) -> const MatmulKernel& {
    for (const MatmulKernel& kernel : all_kernels()) {
      if (kernel.name == name) return kernel;
    }
    return all_kernels().back();
  };
  if (cpu.avx512f) return named(cpu.amd && cpu.family == 25 ? "avx512-zen4" : "avx512");
  if (cpu.avx2) return named("avx2");
  return named("generic");
}
// endregion: microkernel-dispatch

std::string kernel_names(bool runnable_only) {
  std::string names;
  const CpuFeatures cpu = cpu_features();
  for (const MatmulKernel& kernel : all_kernels()) {
    if (runnable_only && !can_run(kernel, cpu)) continue;
    if (!names.empty()) names += ", ";
    names += kernel.name;
  }
  return names;
}

// LLM_MATMUL_KERNEL, if set, names the kernel (to compare them on one machine).
const MatmulKernel& kernel_from_environment() {
  const char* text = std::getenv("LLM_MATMUL_KERNEL");
  if (text == nullptr || *text == '\0') return detect_kernel(cpu_features());
  return kernel_named(text, "LLM_MATMUL_KERNEL");
}

// A run of N values (a panel's width or height, known at compile time), in
// moves the compiler emits inline rather than one memcpy call per run.
template <std::size_t N>
inline __attribute__((always_inline)) void copy_run(const double* from, double* to) {
  typedef double Pair __attribute__((vector_size(16)));
#pragma GCC unroll 16
  for (std::size_t k = 0; k < N; k += 2) {
    Pair pair;
    __builtin_memcpy(&pair, from + k, sizeof pair);
    __builtin_memcpy(to + k, &pair, sizeof pair);
  }
}

// `count` adjacent values; the usual panel sizes go through copy_run.
inline __attribute__((always_inline)) void copy_values(const double* from, std::size_t count,
                                                       double* to) {
  switch (count) {
    case 32:
      return copy_run<32>(from, to);
    case 16:
      return copy_run<16>(from, to);
    case 8:
      return copy_run<8>(from, to);
    case 4:
      return copy_run<4>(from, to);
    default:
      for (std::size_t k = 0; k < count; ++k) to[k] = from[k];
  }
}

// Two adjacent lanes, each `depth` adjacent values (`first` and
// first + lane_stride), into a panel `width` wide whose column `to` is the
// first lane's: each 2 x 2 block takes two 16-byte loads, two shuffles and
// two 16-byte stores instead of four scalar copies.
inline void copy_lane_pair(const double* first, std::size_t lane_stride, std::size_t depth,
                           double* to, std::size_t width) {
  typedef double Pair __attribute__((vector_size(16)));
  const double* second = first + lane_stride;
  std::size_t p = 0;
  for (; p + 2 <= depth; p += 2) {
    Pair a, b;
    __builtin_memcpy(&a, first + p, sizeof a);
    __builtin_memcpy(&b, second + p, sizeof b);
    const Pair step = __builtin_shufflevector(a, b, 0, 2);  // both lanes at step p
    const Pair next = __builtin_shufflevector(a, b, 1, 3);  // both lanes at step p + 1
    __builtin_memcpy(to + p * width, &step, sizeof step);
    __builtin_memcpy(to + (p + 1) * width, &next, sizeof next);
  }
  if (p < depth) {
    to[p * width] = first[p];
    to[p * width + 1] = second[p];
  }
}

// region: matmul-packing
// An operand block as panels of `width` lanes: panel q holds, for each step
// p of the depth, lanes q*width .. q*width+width-1 side by side; lanes past
// `extent` are 0.0 (their results are never stored). Lane l, step p is
// data[l * lane_stride + p * depth_stride]. Packing only copies values, so
// the loop order is free, and it follows the source's memory: when adjacent
// lanes are adjacent values, step after step (each step's runs of `width`
// values go to the panels side by side), else lane after lane, two lanes at
// a time when each lane's steps are adjacent (copy_lane_pair). The reads are
// then one or two sequential streams the hardware prefetches; the writes land
// in the packed block, which stays in cache for the kernels.
void pack_panels(std::size_t width, std::size_t depth, std::size_t extent, const double* data,
                 std::size_t lane_stride, std::size_t depth_stride, double* packed) {
  const std::size_t panels = (extent + width - 1) / width;
  if (lane_stride == 1) {
    for (std::size_t p = 0; p < depth; ++p) {
      const double* step = data + p * depth_stride;
      for (std::size_t q = 0; q < panels; ++q) {
        const std::size_t filled = std::min(width, extent - q * width);
        double* to = packed + (q * depth + p) * width;
        copy_values(step + q * width, filled, to);
        std::fill_n(to + filled, width - filled, 0.0);
      }
    }
    return;
  }
  for (std::size_t q = 0; q < panels; ++q) {
    const std::size_t filled = std::min(width, extent - q * width);
    double* panel = packed + q * depth * width;
    std::size_t l = 0;
    if (depth_stride == 1) {  // each lane is a run: transpose two lanes at a time
      for (; l + 2 <= filled; l += 2) {
        copy_lane_pair(data + (q * width + l) * lane_stride, lane_stride, depth, panel + l, width);
      }
    }
    for (; l < filled; ++l) {
      const double* lane = data + (q * width + l) * lane_stride;
      for (std::size_t p = 0; p < depth; ++p) panel[p * width + l] = lane[p * depth_stride];
    }
    for (std::size_t p = 0; p < depth; ++p) {
      std::fill_n(panel + p * width + filled, width - filled, 0.0);
    }
  }
}

// B[depth block, column block] as panels of NR columns (the lanes are B's
// columns, the depth runs down its rows): row after row when its columns are
// adjacent, column after column for a transposed view (B = W^T).
void pack_b(const Microkernel& tile, std::size_t depth, std::size_t columns, MatrixOperand b,
            double* packed) {
  pack_panels(tile.columns, depth, columns, b.data, b.column_stride, b.row_stride, packed);
}

// A[row block, depth block] as panels of MR rows: packed as B is, with A's
// rows as the lanes and its columns as the depth (A is packed as A^T's columns).
void pack_a(const Microkernel& tile, std::size_t rows, std::size_t depth, MatrixOperand a,
            double* packed) {
  pack_panels(tile.rows, depth, rows, a.data, a.row_stride, a.column_stride, packed);
}
// endregion: matmul-packing

// region: matmul-packing-buffers
// The packed blocks live in buffers each thread keeps and reuses, sized up
// as needed and never zeroed (packing writes every value the kernels read,
// padding included). A fresh zeroed buffer per call cost page faults and a
// memset on every product.
class PackingBuffer {
 public:
  double* at_least(std::size_t count) {
    if (count > capacity_) {
      storage_.reset(static_cast<double*>(
          ::operator new[](count * sizeof(double), std::align_val_t{kAlignment})));
      capacity_ = count;
    }
    return storage_.get();
  }

 private:
  static constexpr std::size_t kAlignment = 64;  // one cache line, one AVX-512 vector
  struct Release {
    void operator()(double* values) const noexcept {
      ::operator delete[](values, std::align_val_t{kAlignment});
    }
  };
  std::unique_ptr<double[], Release> storage_;
  std::size_t capacity_ = 0;
};

thread_local PackingBuffer packed_a_buffer;
thread_local PackingBuffer packed_b_buffer;
// endregion: matmul-packing-buffers

// One C tile: full tiles are updated in place; an edge tile goes through a
// full-size scratch tile so the microkernel never writes past C.
void update_tile(const Microkernel& tile, std::size_t depth, const double* a_panel,
                 const double* b_panel, std::size_t b_row_stride, double* c,
                 std::size_t c_row_stride, std::size_t rows, std::size_t columns, bool accumulate) {
  if (rows == tile.rows && columns == tile.columns) {
    tile.run(depth, a_panel, b_panel, b_row_stride, c, c_row_stride, accumulate);
    return;
  }
  alignas(64) std::array<double, kLargestTile> scratch;
  if (accumulate) {  // the sums so far; cells past the edge start at 0.0 and are never stored
    std::fill_n(scratch.begin(), tile.rows * tile.columns, 0.0);
    for (std::size_t i = 0; i < rows; ++i) {
      std::copy_n(c + i * c_row_stride, columns, scratch.data() + i * tile.columns);
    }
  }
  tile.run(depth, a_panel, b_panel, b_row_stride, scratch.data(), tile.columns, accumulate);
  for (std::size_t i = 0; i < rows; ++i) {
    std::copy_n(scratch.data() + i * tile.columns, columns, c + i * c_row_stride);
  }
}

// region: matmul-blocking
void multiply_blocked(const MatmulKernel& kernel, std::size_t rows, std::size_t depth,
                      std::size_t columns, MatrixOperand a, MatrixOperand b, double* c,
                      std::size_t c_row_stride) {
  const Microkernel& tile = kernel.tile;
  const Blocking& block = kernel.blocking;
  const std::size_t mr = tile.rows;
  const std::size_t nr = tile.columns;
  const std::size_t row_block = block.row_panels * mr;
  const std::size_t depth_block = std::min(depth, block.depth_block);
  const std::size_t column_block = std::min(columns, block.column_block);
  double* packed_a =
      packed_a_buffer.at_least(((std::min(rows, row_block) + mr - 1) / mr) * mr * depth_block);
  double* packed_b = packed_b_buffer.at_least(((column_block + nr - 1) / nr) * nr * depth_block);

  for (std::size_t jc = 0; jc < columns; jc += block.column_block) {
    const std::size_t nc = std::min(block.column_block, columns - jc);
    for (std::size_t pc = 0; pc < depth; pc += block.depth_block) {
      const std::size_t kc = std::min(block.depth_block, depth - pc);
      const bool accumulate = pc > 0;  // the first K block starts every sum from 0.0
      pack_b(tile, kc, nc,
             {b.data + pc * b.row_stride + jc * b.column_stride, b.row_stride, b.column_stride},
             packed_b);
      for (std::size_t ic = 0; ic < rows; ic += row_block) {
        const std::size_t mc = std::min(row_block, rows - ic);
        pack_a(tile, mc, kc,
               {a.data + ic * a.row_stride + pc * a.column_stride, a.row_stride, a.column_stride},
               packed_a);
        for (std::size_t jr = 0; jr < nc; jr += nr) {
          for (std::size_t ir = 0; ir < mc; ir += mr) {
            update_tile(tile, kc, packed_a + ir * kc, packed_b + jr * kc, nr,
                        c + (ic + ir) * c_row_stride + jc + jr, c_row_stride, std::min(mr, mc - ir),
                        std::min(nr, nc - jr), accumulate);
          }
        }
      }
    }
  }
}
// endregion: matmul-blocking

// region: matmul-few-rows
// A product of a few rows (decoding one token is [1, C] @ [C, N]): each
// value of B is used by only those few rows, so packing B costs about as
// much as the product itself. The narrow tiles read B where it lies when its
// columns are adjacent (column stride 1); only a last partial panel of
// columns, or every panel of a B with strided columns, is packed, once, for
// all the rows. The rows go in groups of the tallest narrow tile that fits,
// each group's K values packed once (a few times K values). K is not split:
// each tile adds all of a cell's products in increasing p, so the bits are
// the textbook loop's here too.
void multiply_few_rows(const MatmulKernel& kernel, std::size_t rows, std::size_t depth,
                       std::size_t columns, MatrixOperand a, MatrixOperand b, double* c,
                       std::size_t c_row_stride) {
  struct Group {
    const Microkernel* tile;
    std::size_t first_row;
  };
  std::array<Group, kFewRowsLimit> groups{};
  std::size_t group_count = 0;
  double* packed_a = packed_a_buffer.at_least(rows * depth);
  for (std::size_t first_row = 0; first_row < rows; ++group_count) {
    const Microkernel* tile = &kernel.few_rows.back();  // the tallest tile the rows fill
    for (const Microkernel& candidate : kernel.few_rows) {
      if (candidate.rows <= rows - first_row) {
        tile = &candidate;
        break;
      }
    }
    groups[group_count] = {tile, first_row};
    pack_a(*tile, tile->rows, depth,
           {a.data + first_row * a.row_stride, a.row_stride, a.column_stride},
           packed_a + first_row * depth);
    first_row += tile->rows;
  }
  const std::size_t width = kernel.few_rows.front().columns;  // every narrow tile has this width
  for (std::size_t first = 0; first < columns; first += width) {
    const std::size_t panel_width = std::min(width, columns - first);
    const double* panel = b.data + first * b.column_stride;
    std::size_t panel_row_stride = b.row_stride;
    if (panel_width < width || b.column_stride != 1) {
      double* packed = packed_b_buffer.at_least(depth * width);
      pack_b(kernel.few_rows.front(), depth, panel_width, {panel, b.row_stride, b.column_stride},
             packed);
      panel = packed;
      panel_row_stride = width;
    }
    for (std::size_t g = 0; g < group_count; ++g) {
      const Group& group = groups[g];
      update_tile(*group.tile, depth, packed_a + group.first_row * depth, panel, panel_row_stride,
                  c + group.first_row * c_row_stride + first, c_row_stride, group.tile->rows,
                  panel_width, false);
    }
  }
}
// endregion: matmul-few-rows

void multiply_serial(const MatmulKernel& kernel, std::size_t rows, std::size_t depth,
                     std::size_t columns, MatrixOperand a, MatrixOperand b, double* c,
                     std::size_t c_row_stride) {
  if (rows <= kFewRowsLimit) {
    multiply_few_rows(kernel, rows, depth, columns, a, b, c, c_row_stride);
  } else {
    multiply_blocked(kernel, rows, depth, columns, a, b, c, c_row_stride);
  }
}

// region: matmul-parallel
// Parallel products: C is cut into `parts` bands of whole tiles, rows if it
// is at least as tall as wide, else columns, and each band is an independent
// product on one thread (with that thread's packing buffers). A band is the
// same arithmetic the serial loop does for those cells: each cell still adds
// its own K products in increasing k, so the bits do not depend on `parts`.
void multiply_in_bands(const MatmulKernel& kernel, std::size_t parts, std::size_t rows,
                       std::size_t depth, std::size_t columns, MatrixOperand a, MatrixOperand b,
                       double* c, std::size_t c_row_stride) {
  const bool by_rows = rows >= columns && rows > kFewRowsLimit;
  const std::size_t extent = by_rows ? rows : columns;
  const std::size_t unit = by_rows                 ? kernel.tile.rows
                           : rows <= kFewRowsLimit ? kernel.few_rows.front().columns
                                                   : kernel.tile.columns;
  const std::size_t units = (extent + unit - 1) / unit;
  parts = std::min(parts, units);
  parallel_for(parts, [&](std::size_t part) {
    const std::size_t first = std::min(extent, (units * part / parts) * unit);
    const std::size_t last = std::min(extent, (units * (part + 1) / parts) * unit);
    if (first == last) return;
    if (by_rows) {
      multiply_serial(kernel, last - first, depth, columns,
                      {a.data + first * a.row_stride, a.row_stride, a.column_stride}, b,
                      c + first * c_row_stride, c_row_stride);
    } else {
      multiply_serial(kernel, rows, depth, last - first, a,
                      {b.data + first * b.column_stride, b.row_stride, b.column_stride}, c + first,
                      c_row_stride);
    }
  });
}
// endregion: matmul-parallel

}  // namespace

std::span<const MatmulKernel> available_kernels() {
  static const std::vector<MatmulKernel> kernels = [] {
    const CpuFeatures cpu = cpu_features();
    const MatmulKernel& detected = detect_kernel(cpu);
    std::vector<MatmulKernel> runnable{detected};
    for (const MatmulKernel& kernel : all_kernels()) {
      if (kernel.name != detected.name && can_run(kernel, cpu)) runnable.push_back(kernel);
    }
    return runnable;
  }();
  return kernels;
}

const MatmulKernel& kernel_named(std::string_view name, std::string_view source) {
  const CpuFeatures cpu = cpu_features();
  for (const MatmulKernel& kernel : all_kernels()) {
    if (kernel.name != name) continue;
    if (!can_run(kernel, cpu)) {
      throw ConfigurationError(ConfigurationErrorKind::UnsupportedMatmulKernel,
                               {.source = std::string(source),
                                .value = std::string(name),
                                .allowed = kernel_names(true)});
    }
    return kernel;
  }
  throw ConfigurationError(
      ConfigurationErrorKind::UnknownMatmulKernel,
      {.source = std::string(source), .value = std::string(name), .allowed = kernel_names(false)});
}

const MatmulKernel& chosen_kernel() {
  static const MatmulKernel& kernel = kernel_from_environment();
  return kernel;
}

void multiply_matrices(std::size_t rows, std::size_t depth, std::size_t columns, MatrixOperand a,
                       MatrixOperand b, double* c, std::size_t c_row_stride) {
  multiply_matrices_with(chosen_kernel(), rows, depth, columns, a, b, c, c_row_stride);
}

void multiply_matrices_with(const MatmulKernel& kernel, std::size_t rows, std::size_t depth,
                            std::size_t columns, MatrixOperand a, MatrixOperand b, double* c,
                            std::size_t c_row_stride) {
  if (rows == 0 || columns == 0) return;
  if (depth == 0) {  // an empty sum is 0.0
    for (std::size_t i = 0; i < rows; ++i) std::fill_n(c + i * c_row_stride, columns, 0.0);
    return;
  }
  const std::size_t threads = thread_count();
  const double work =
      static_cast<double>(rows) * static_cast<double>(depth) * static_cast<double>(columns);
  if (threads > 1 && work >= static_cast<double>(kParallelMinimumWork)) {
    multiply_in_bands(kernel, threads, rows, depth, columns, a, b, c, c_row_stride);
  } else {
    multiply_serial(kernel, rows, depth, columns, a, b, c, c_row_stride);
  }
}

}  // namespace llm::matmul_detail
