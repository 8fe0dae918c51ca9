// Scaled dot-product attention (chapters 27-28): checks, then chapter 16's
// matmul, chapter 25's scale and chapter 27-28's softmax operations. The
// gradients are theirs: nothing here has a VJP of its own.
#include "llm/attention/scaled_dot_product.hpp"

#include <cmath>
#include <utility>

#include "llm/autograd/elementwise_ops.hpp"
#include "llm/autograd/softmax_ops.hpp"

namespace llm {
namespace {

// region: attention-operand-checks
// The facts of query, key and value, in the documented order.
void check_attention_operands(const Shape& query, const Shape& key, const Shape& value,
                              Masking masking) {
  const auto operands = [&] {
    return AttentionErrorEvidence{.query_shape = query, .key_shape = key, .value_shape = value};
  };
  const std::pair<const char*, const Shape*> inputs[] = {
      {"query", &query}, {"key", &key}, {"value", &value}};
  for (const auto& [role, shape] : inputs) {
    if (shape->size() < 3) {
      throw AttentionError(AttentionErrorKind::OperandRank, {.role = role, .shape = *shape});
    }
  }
  const std::size_t rank = query.size();
  const auto leading = [](const Shape& shape) { return Shape(shape.begin(), shape.end() - 2); };
  if (key.size() != rank || value.size() != rank || leading(key) != leading(query) ||
      leading(value) != leading(query)) {
    throw AttentionError(AttentionErrorKind::BatchMismatch, operands());
  }
  if (key[rank - 2] != value[rank - 2]) {
    throw AttentionError(AttentionErrorKind::KeyValueTokenMismatch, operands());
  }
  if (key[rank - 2] == 0) throw AttentionError(AttentionErrorKind::EmptyKeys, operands());
  if (query.back() == 0) {
    throw AttentionError(AttentionErrorKind::ZeroFeatureWidth, {.role = "query", .shape = query});
  }
  if (value.back() == 0) {
    throw AttentionError(AttentionErrorKind::ZeroFeatureWidth, {.role = "value", .shape = value});
  }
  if (key.back() != query.back()) {
    throw AttentionError(AttentionErrorKind::QueryKeyWidthMismatch, operands());
  }
  if (masking == Masking::Causal && query[rank - 2] > key[rank - 2]) {
    throw AttentionError(AttentionErrorKind::MoreQueriesThanKeys, operands());
  }
}
// endregion: attention-operand-checks

}  // namespace

// region: scaled-dot-product
AttentionPass scaled_dot_product_attention(const TensorValue& query, const TensorValue& key,
                                           const TensorValue& value, Masking masking) {
  check_attention_operands(query.shape(), key.shape(), value.shape(), masking);
  const std::size_t rank = query.rank();
  const std::size_t width = query.shape().back();
  // One dot product per (query, key): Q [..., Tq, Dk] x K^T [..., Dk, Tk]
  const TensorValue scores = query.matmul(key.transpose(rank - 2, rank - 1));
  const double factor = 1.0 / std::sqrt(static_cast<double>(width));
  const TensorValue scaled = scale(scores, factor);
  // Each query row becomes weights over the keys it may see
  const TensorValue weights =
      masking == Masking::Causal ? causal_softmax(scaled) : softmax(scaled, rank - 1);
  // Each output row is the weighted mixture of value rows: [..., Tq, Tk] x [..., Tk, Dv]
  return {scores, scaled, weights, weights.matmul(value), factor};
}
// endregion: scaled-dot-product

}  // namespace llm
