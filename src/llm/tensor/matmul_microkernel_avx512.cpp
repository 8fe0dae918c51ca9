// The matrix-product microkernel for x86-64 CPUs with AVX-512: 64-byte
// vectors. CMakeLists.txt compiles this file alone with -mavx512f;
// matmul_kernel.cpp calls it only when the CPU reports AVX512F. See
// matmul_microkernel.inc.
#if defined(__x86_64__)
#define LLM_MICROKERNEL_NAME microkernel_avx512
#define LLM_VECTOR_BYTES 64
#define LLM_MICROKERNEL_ROWS 8
#define LLM_MICROKERNEL_COLUMNS 16
#include "llm/tensor/matmul_microkernel.inc"
#endif
