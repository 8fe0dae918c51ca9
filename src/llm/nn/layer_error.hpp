// The typed error of the layers of Part IV (area `layer`): a table, weight or
// bias of the wrong shape, or an input a layer cannot read. Taught in
// chapters 18 and 19.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "llm/error.hpp"
#include "llm/tensor/shape.hpp"

namespace llm {

// region: layer-error-kinds
/// What a layer rejected while being built or before computing a forward pass.
enum class LayerErrorKind {
  NotAParameter,       ///< a table, weight or bias handle is not a tape parameter
  TableRank,           ///< an embedding table is not rank two [V, D]
  EmptyVocabulary,     ///< an embedding table has no rows (V = 0)
  ZeroEmbeddingWidth,  ///< an embedding table has no columns (D = 0)
  WeightRank,          ///< a linear weight is not rank two [in, out]
  ZeroInputWidth,      ///< a linear weight has in = 0
  ZeroOutputWidth,     ///< a linear weight has out = 0
  BiasRank,            ///< a linear bias is not rank one [out]
  BiasWidthMismatch,   ///< a linear bias has another width than the weight's out
  InputRank,           ///< a linear input has rank zero: no feature axis
  InputWidthMismatch,  ///< a linear input's last extent differs from in
};
// endregion: layer-error-kinds

/// Stable kebab-case name of a kind, e.g. `input-width-mismatch`.
std::string_view layer_error_kind_name(LayerErrorKind kind);

/// An error of a layer (area `layer`), thrown before anything is recorded or
/// drawn: the generator, every parameter and the tape are as before the call.
/// Fields a kind does not use are empty or zero.
class LayerError : public Error {
 public:
  LayerErrorKind kind() const noexcept { return kind_; }
  /// The offending shape (table, weight, bias or input).
  const Shape& shape() const noexcept { return shape_; }
  /// The required extent (BiasWidthMismatch: out; InputWidthMismatch: in).
  std::size_t expected() const noexcept { return expected_; }
  /// The extent found.
  std::size_t actual() const noexcept { return actual_; }

  static LayerError not_a_parameter(std::string_view role);
  static LayerError table_rank(Shape shape);
  static LayerError empty_vocabulary(Shape shape);
  static LayerError zero_embedding_width(Shape shape);
  static LayerError weight_rank(Shape shape);
  static LayerError zero_input_width(Shape shape);
  static LayerError zero_output_width(Shape shape);
  static LayerError bias_rank(Shape shape);
  static LayerError bias_width_mismatch(Shape shape, std::size_t expected);
  static LayerError input_rank(Shape shape);
  static LayerError input_width_mismatch(Shape shape, std::size_t expected);

 private:
  LayerError(LayerErrorKind kind, const std::string& message, Shape shape);

  LayerErrorKind kind_;
  Shape shape_;
  std::size_t expected_ = 0;
  std::size_t actual_ = 0;
};

}  // namespace llm
