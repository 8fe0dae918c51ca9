// The matrix-product microkernels for x86-64 CPUs with AVX-512: 64-byte
// vectors, 32 vector registers. CMakeLists.txt compiles this file alone with
// -mavx512f; matmul_kernel.cpp calls it only when the CPU reports AVX512F.
// The 8 x 16 tile keeps 16 sums in registers for the blocked product; the
// 1-, 2- and 4-row tiles, 32 columns wide, serve products of one to four rows
// (decoding a token) straight from B. See matmul_microkernel.inc.
#if defined(__x86_64__)
#define LLM_MICROKERNEL_PREFIX microkernel_avx512
#define LLM_VECTOR_BYTES 64
#include "llm/tensor/matmul_microkernel.inc"
LLM_DEFINE_MICROKERNEL(8, 16)
LLM_DEFINE_MICROKERNEL(4, 32)
LLM_DEFINE_MICROKERNEL(2, 32)
LLM_DEFINE_MICROKERNEL(1, 32)
#endif
