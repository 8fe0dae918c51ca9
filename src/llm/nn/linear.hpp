// A linear layer: y = x W + b over the last axis of any input. Taught in
// chapter 19.
//
// The weight is [in, out] (rows read inputs, columns write outputs), so an
// input [..., in] times W gives [..., out] with every leading axis kept:
// chapter 16's matmul broadcasts W over the batch axes, and the bias [out]
// broadcasts over every row. The gradients come from those two operations:
// dx = dy W^T, dW = x^T dy summed over the leading axes, db = dy summed over
// every leading axis.
#pragma once

#include <cstddef>
#include <optional>

#include "llm/autograd/tensor_value.hpp"
#include "llm/nn/init.hpp"
#include "llm/nn/layer_error.hpp"
#include "llm/nn/parameter_set.hpp"

namespace llm {

/// Whether a linear layer adds a bias vector (an option, not a bool).
enum class Bias {
  Yes,  ///< y = x W + b
  No,   ///< y = x W
};

// region: linear-class
/// A projection from `in` to `out` features with an optional bias. Copies
/// share the weight and bias (the same tape parameters).
class Linear {
 public:
  /// Wraps an existing weight [in, out] and optional bias [out].
  /// @throws LayerError NotAParameter, WeightRank, ZeroInputWidth,
  ///         ZeroOutputWidth, then BiasRank, BiasWidthMismatch.
  Linear(TensorValue weight, std::optional<TensorValue> bias);

  /// A new layer: weight drawn by xavier_uniform(in, out) from `generator`,
  /// bias (if requested) all zeros. The generator advances by in * out draws
  /// only on success.
  /// @throws LayerError ZeroInputWidth, ZeroOutputWidth; ParameterError
  ///         FanSumOverflow, ShapeProductOverflow; TensorError AllocationFailed.
  static Linear initialized(std::size_t input_width, std::size_t output_width, Bias bias,
                            SplitMix64& generator);

  /// x W (+ b): input [..., in] gives [..., out]; a vector [in] gives [out];
  /// an empty leading axis [0, in] gives [0, out].
  /// @throws LayerError InputRank (rank zero), InputWidthMismatch.
  TensorValue forward(const TensorValue& input) const;

  /// The weight W [in, out]: row i reads input feature i, column j writes output feature j.
  const TensorValue& weight() const noexcept { return weight_; }
  /// The bias b [out], or nothing for a layer built with Bias::No.
  const std::optional<TensorValue>& bias() const noexcept { return bias_; }
  /// in: the last extent every input must have.
  std::size_t input_width() const noexcept { return input_width_; }
  /// out: the last extent of every output.
  std::size_t output_width() const noexcept { return output_width_; }
  /// in * out, plus out with a bias.
  std::size_t parameter_count() const noexcept;
  /// `weight`, then `bias` if present; a model adds them under its prefix.
  ParameterSet parameters() const;

 private:
  TensorValue weight_;
  std::optional<TensorValue> bias_;
  std::size_t input_width_ = 0;
  std::size_t output_width_ = 0;
};
// endregion: linear-class

}  // namespace llm
