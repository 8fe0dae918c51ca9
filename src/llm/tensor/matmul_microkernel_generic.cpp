// The portable matrix-product microkernels: 16-byte vectors, which are SSE2
// on every x86-64 CPU and NEON on ARM. The 4 x 4 tile serves the blocked
// product, the 1- and 2-row tiles (8 columns) products of one or two rows read
// straight from B. See matmul_microkernel.inc.
#define LLM_MICROKERNEL_PREFIX microkernel_generic
#define LLM_VECTOR_BYTES 16
#include "llm/tensor/matmul_microkernel.inc"
LLM_DEFINE_MICROKERNEL(4, 4)
LLM_DEFINE_MICROKERNEL(2, 8)
LLM_DEFINE_MICROKERNEL(1, 8)
