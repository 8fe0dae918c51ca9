// The portable matrix-product microkernel: 16-byte vectors, which are SSE2
// on every x86-64 CPU and NEON on ARM. See matmul_microkernel.inc.
#define LLM_MICROKERNEL_NAME microkernel_generic
#define LLM_VECTOR_BYTES 16
#define LLM_MICROKERNEL_ROWS 4
#define LLM_MICROKERNEL_COLUMNS 4
#include "llm/tensor/matmul_microkernel.inc"
