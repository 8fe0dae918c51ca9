// Chapter 17 fixtures: one seeded projection, the zero-initialization probe,
// a model's named parameters, and the requests an initializer must refuse.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "llm/autograd/tensor_value.hpp"
#include "llm/nn/init.hpp"
#include "llm/nn/parameter_set.hpp"
#include "llm/tensor/tensor.hpp"

namespace ch17 {

inline constexpr std::uint64_t kSeed = 17;
inline constexpr std::uint64_t kAlternateSeed = 18;
inline constexpr const char* kProjectionName = "decoder.block.0.attention.query.weight";

/// The [2, 2] query projection drawn from `seed`, in a set of its own.
struct SeededProjection {
  llm::ParameterSet parameters;
  llm::TensorValue weight;
  llm::SplitMix64 generator;  ///< the generator after the draw
};
SeededProjection seeded_projection(std::uint64_t seed);

/// A two-layer probe x [1, 2] -> x W1 [2, 2] -> SiLU -> times W2 [2, 1] = y.
struct SymmetryProbe {
  double output = 0.0;
  llm::Tensor first_layer_gradient;  ///< dy / dW1, [2, 2]
  bool columns_equal = false;        ///< both hidden units got the same gradient column
};
/// The probe with W1 given (zeros in the chapter; seeded weights for contrast).
SymmetryProbe symmetry_probe(const llm::Tensor& first_layer);

/// Every rejected request of the chapter, in order, with its error's kind.
struct Refusals {
  std::vector<std::string> kinds;     ///< kebab-case kind names
  std::vector<std::string> messages;  ///< what() of each
  bool generator_unchanged = false;
};
Refusals refused_requests(llm::ParameterSet& model, llm::SplitMix64& generator);

}  // namespace ch17
