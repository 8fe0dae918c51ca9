// The worked example of chapter 10, computed with the library's kernels.
#include "fixtures.hpp"

#include "llm/tensor/elementwise.hpp"
#include "llm/tensor/reduction.hpp"

namespace ch10 {

// region: worked-example
WorkedExample worked_example() {
  llm::Tensor tokens({2, 3}, {1.0, 2.0, 3.0, 4.0, 5.0, 6.0});
  llm::Tensor bias({3}, {10.0, 20.0, 30.0});
  llm::Tensor biased =
      llm::broadcast_map(tokens, bias, [](double value, double offset) { return value + offset; });
  llm::Tensor squared = llm::map_values(tokens, [](double value) { return value * value; });
  llm::Tensor sum_over_tokens = llm::sum_axis(biased, 0, llm::KeepDim::No);
  llm::Tensor mean_per_token = llm::mean_axis(biased, 1, llm::KeepDim::Yes);
  llm::Tensor max_per_token = llm::max_axis(biased, 1, llm::KeepDim::No);
  return {std::move(tokens),          std::move(bias),
          std::move(biased),          std::move(squared),
          std::move(sum_over_tokens), std::move(mean_per_token),
          std::move(max_per_token)};
}
// endregion: worked-example

llm::Tensor empty_fixture() {
  return llm::Tensor({2, 0, 3}, {});
}

}  // namespace ch10
