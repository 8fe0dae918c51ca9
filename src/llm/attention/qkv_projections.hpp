// Query, key and value: three independent bias-free projections of the same
// hidden states. Taught in chapter 26.
//
//     Q = X W_Q      K = X W_K      V = X W_V      ([B, T, D] x [D, Dh] -> [B, T, Dh])
//
// Each position's query asks, its key advertises, and its value carries what
// attention (chapter 27) mixes. Three separate weights, not one shared one:
// the same token can ask for one thing and offer another.
#pragma once

#include <cstddef>

#include "llm/attention/attention_error.hpp"
#include "llm/autograd/tensor_value.hpp"
#include "llm/nn/init.hpp"
#include "llm/nn/linear.hpp"
#include "llm/nn/parameter_set.hpp"

namespace llm {

/// The three projections of one input (all [B, T, Dh]).
struct QkvPass {
  TensorValue query;  ///< Q = X W_Q
  TensorValue key;    ///< K = X W_K
  TensorValue value;  ///< V = X W_V
};

// region: qkv-projections-class
/// Three bias-free [D, Dh] projections. Copies share the weights.
class QkvProjections {
 public:
  /// Assembles three existing bias-free projections of one shape [D, Dh],
  /// each with its own weight parameter.
  /// @throws AttentionError ProjectionBias, ProjectionShapeMismatch,
  ///         SharedProjectionWeight, in that order.
  QkvProjections(Linear query, Linear key, Linear value);

  /// New projections with Xavier-uniform weights drawn in the order query,
  /// key, value (model_width * head_width draws each). On any throw the
  /// generator is unchanged.
  /// @throws LayerError ZeroInputWidth, ZeroOutputWidth; ParameterError
  ///         FanSumOverflow, ShapeProductOverflow; TensorError AllocationFailed.
  static QkvProjections initialized(std::size_t model_width, std::size_t head_width,
                                    SplitMix64& generator);

  /// Q, K and V of an input [B, T, D], each [B, T, Dh]; B or T may be 0.
  /// @throws AttentionError InputRank, InputWidthMismatch.
  QkvPass forward(const TensorValue& input) const;

  /// The query projection W_Q [D, Dh].
  const Linear& query() const noexcept { return query_; }
  /// The key projection W_K [D, Dh].
  const Linear& key() const noexcept { return key_; }
  /// The value projection W_V [D, Dh].
  const Linear& value() const noexcept { return value_; }
  /// D, the width every input must have.
  std::size_t model_width() const noexcept { return query_.input_width(); }
  /// Dh, the width of each projection.
  std::size_t head_width() const noexcept { return query_.output_width(); }
  /// 3 * D * Dh.
  std::size_t parameter_count() const noexcept;
  /// `query.weight`, `key.weight`, `value.weight`; a model adds them under
  /// its prefix (`decoder.block.0.attention`).
  ParameterSet parameters() const;

 private:
  Linear query_;
  Linear key_;
  Linear value_;
};
// endregion: qkv-projections-class

}  // namespace llm
