// Chapter 18 fixtures: the known [4, 2] table and IDs [[2, 1, 2]], the
// one-hot baseline, and the reverse pass with a hand-chosen upstream.
#pragma once

#include <cstddef>
#include <vector>

#include "llm/nn/embedding.hpp"
#include "llm/nn/parameter_set.hpp"
#include "llm/tensor/tensor.hpp"

namespace ch18 {

/// The table [[10, 11], [20, 21], [30, 31], [40, 41]]: row i holds 10(i+1) and 10(i+1)+1.
llm::Tensor known_table();
/// IDs [[2, 1, 2]] of shape [1, 3]: ID 2 twice, ID 1 once, IDs 0 and 3 never.
inline const std::vector<std::size_t> kIds = {2, 1, 2};
inline const llm::Shape kIdShape = {1, 3};
/// The upstream adjoint [1, 3, 2] the reverse pass is seeded with.
llm::Tensor known_upstream();

/// The embedding layer over known_table() and the model set naming it.
struct KnownEmbedding {
  llm::Embedding embedding;
  llm::ParameterSet model;
};
KnownEmbedding known_embedding();

/// One-hot rows [N, V] for `ids`, then their product with `table`: [N, D].
struct OneHotProduct {
  llm::Tensor one_hot;
  llm::Tensor product;
};
OneHotProduct one_hot_product(const llm::Tensor& table, const std::vector<std::size_t>& ids);

}  // namespace ch18
