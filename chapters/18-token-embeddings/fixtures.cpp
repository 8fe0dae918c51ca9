// Chapter 18 fixtures (see fixtures.hpp).
#include "fixtures.hpp"

#include "llm/tensor/matmul.hpp"

namespace ch18 {

using llm::Tensor;

Tensor known_table() {
  return Tensor({4, 2}, {10, 11, 20, 21, 30, 31, 40, 41});
}

Tensor known_upstream() {
  return Tensor({1, 3, 2}, {1, 0, 0, 2, 3, 4});
}

// region: known-embedding
KnownEmbedding known_embedding() {
  llm::Embedding embedding(llm::TensorValue::parameter(known_table()));
  llm::ParameterSet model;
  model.add_all("token_embedding", embedding.parameters());  // token_embedding.weight
  return {embedding, model};
}
// endregion: known-embedding

// region: one-hot-baseline
OneHotProduct one_hot_product(const Tensor& table, const std::vector<std::size_t>& ids) {
  const std::size_t vocabulary_size = table.shape()[0];
  Tensor one_hot = Tensor::zeros(llm::Shape{ids.size(), vocabulary_size});
  for (std::size_t position = 0; position < ids.size(); ++position) {
    one_hot.mutable_values()[position * vocabulary_size + ids[position]] = 1.0;
  }
  // Row p of the product adds V products, of which exactly one is not zero.
  Tensor product = llm::matmul(one_hot, table);
  return {std::move(one_hot), std::move(product)};
}
// endregion: one-hot-baseline

}  // namespace ch18
