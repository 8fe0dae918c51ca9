// Chapter 19 fixtures: the known token projection (W [2, 3], b [3]), its
// input X [1, 2, 2] and upstream [1, 2, 3], and one scalar weighted unit.
#pragma once

#include <span>

#include "llm/nn/linear.hpp"
#include "llm/tensor/tensor.hpp"

namespace ch19 {

inline constexpr const char* kPrefix = "token_projection";

llm::Tensor known_input();     ///< [[[1, 2], [-1, 3]]], shape [1, 2, 2]
llm::Tensor known_weight();    ///< [[1, 0, -1], [2, 0.5, 1]], shape [2, 3]
llm::Tensor known_bias();      ///< [0.5, -0.5, 1], shape [3]
llm::Tensor known_upstream();  ///< [[[1, 0, -1], [0.5, 2, 1]]], shape [1, 2, 3]

/// The known layer, with or without its bias.
llm::Linear known_linear(llm::Bias bias);

/// One output of a single unit: sum_i inputs[i] * weights[i] + bias.
double weighted_unit(std::span<const double> inputs, std::span<const double> weights, double bias);

}  // namespace ch19
