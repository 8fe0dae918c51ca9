// The matrix-product microkernels for x86-64 CPUs with AVX2: 32-byte vectors,
// 16 vector registers. CMakeLists.txt compiles this file alone with -mavx2;
// matmul_kernel.cpp calls it only when the CPU reports AVX2. The 4 x 8 tile
// serves the blocked product, the 1- and 2-row tiles (16 columns) products of
// one or two rows read straight from B. See matmul_microkernel.inc.
#if defined(__x86_64__)
#define LLM_MICROKERNEL_PREFIX microkernel_avx2
#define LLM_VECTOR_BYTES 32
#include "llm/tensor/matmul_microkernel.inc"
LLM_DEFINE_MICROKERNEL(4, 8)
LLM_DEFINE_MICROKERNEL(2, 16)
LLM_DEFINE_MICROKERNEL(1, 16)
#endif
