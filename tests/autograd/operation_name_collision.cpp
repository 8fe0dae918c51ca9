// Compiled (not run) by the CTest pair outside_operation_name_distinct and
// outside_operation_name_collision: the first builds it as it is and must
// succeed, the second with -DLLM_COLLIDE and must fail with
// outside_operation()'s message, so the failure is the name and nothing else.
#include "llm/autograd/operation_names.hpp"

#ifdef LLM_COLLIDE
inline constexpr llm::TensorOperation kMine = llm::outside_operation("sub");  // the library's
#else
inline constexpr llm::TensorOperation kMine = llm::outside_operation("probe.sub");
#endif

int main() {
  return kMine.name().empty() ? 1 : 0;
}
