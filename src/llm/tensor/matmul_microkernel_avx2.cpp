// The matrix-product microkernel for x86-64 CPUs with AVX2: 32-byte vectors.
// CMakeLists.txt compiles this file alone with -mavx2; matmul_kernel.cpp
// calls it only when the CPU reports AVX2. See matmul_microkernel.inc.
#if defined(__x86_64__)
#define LLM_MICROKERNEL_NAME microkernel_avx2
#define LLM_VECTOR_BYTES 32
#define LLM_MICROKERNEL_ROWS 4
#define LLM_MICROKERNEL_COLUMNS 8
#include "llm/tensor/matmul_microkernel.inc"
#endif
