// The typed error of the layers of Part IV (area `layer`): a table, weight or
// bias of the wrong shape, or an input a layer cannot read. Taught in
// chapters 18 and 19; chapter 25 adds the RMSNorm gain and epsilon. Written in the one pattern of
// src/llm/error.hpp: the kinds, one table of names and messages, the evidence.
#pragma once

#include <array>
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
  GainRank,            ///< an RMSNorm gain is not rank one [D] (chapter 25)
  ZeroGainWidth,       ///< an RMSNorm gain has no features (D = 0)
  InvalidEpsilon,      ///< an RMSNorm epsilon is negative, NaN or infinite
};
// endregion: layer-error-kinds

/// The offending values of a LayerError; a kind leaves the fields it does
/// not use empty or zero.
struct LayerErrorEvidence {
  std::string role{};        ///< NotAParameter: which handle, e.g. `linear weight`
  Shape shape{};             ///< the offending table, weight, bias or input shape
  std::size_t expected = 0;  ///< BiasWidthMismatch: out; InputWidthMismatch: in
  std::size_t actual = 0;    ///< the extent found
  double value = 0.0;        ///< InvalidEpsilon: the epsilon given
};

// region: layer-error-table
/// The `layer` area: each kind's stable name and message, in enum order.
struct LayerErrorTraits {
  using Kind = LayerErrorKind;                       ///< the area's kinds
  using Evidence = LayerErrorEvidence;               ///< the offending values
  static constexpr std::string_view area = "layer";  ///< Error::area()
  /// Each kind's stable name and message, in enum order.
  static constexpr std::array<ErrorKindSpec<Kind>, 14> kinds{{
      {Kind::NotAParameter, "not-a-parameter",
       "the {role} must be a tape parameter (a tracked leaf)"},
      {Kind::TableRank, "table-rank",
       "an embedding table must be rank two [V, D], got shape {shape}"},
      {Kind::EmptyVocabulary, "empty-vocabulary",
       "an embedding table needs at least one row, got shape {shape}"},
      {Kind::ZeroEmbeddingWidth, "zero-embedding-width",
       "an embedding table needs at least one column, got shape {shape}"},
      {Kind::WeightRank, "weight-rank",
       "a linear weight must be rank two [in, out], got shape {shape}"},
      {Kind::ZeroInputWidth, "zero-input-width",
       "a linear weight needs input width in >= 1, got shape {shape}"},
      {Kind::ZeroOutputWidth, "zero-output-width",
       "a linear weight needs output width out >= 1, got shape {shape}"},
      {Kind::BiasRank, "bias-rank", "a linear bias must be rank one [out], got shape {shape}"},
      {Kind::BiasWidthMismatch, "bias-width-mismatch",
       "a linear bias needs the weight's output width {expected}, got {actual}"},
      {Kind::InputRank, "input-rank", "a linear input needs a feature axis, got a rank-zero value"},
      {Kind::InputWidthMismatch, "input-width-mismatch",
       "a linear input's last extent must be {expected}, got shape {shape}"},
      {Kind::GainRank, "gain-rank", "an RMSNorm gain must be rank one [D], got shape {shape}"},
      {Kind::ZeroGainWidth, "zero-gain-width",
       "an RMSNorm gain needs at least one feature, got shape {shape}"},
      {Kind::InvalidEpsilon, "invalid-epsilon",
       "an RMSNorm epsilon must be finite and at least 0, got {value}"},
  }};
  /// `role`, `shape`, `expected`, `actual` or `value` as the message prints it.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};
// endregion: layer-error-table

/// An error of a layer (area `layer`), thrown before anything is recorded or
/// drawn: the generator, every parameter and the tape are as before the call.
class LayerError : public KindedError<LayerErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw LayerError(LayerErrorKind::..., {.field = value});`
  explicit LayerError(LayerErrorKind kind, LayerErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}

  /// The offending shape (table, weight, bias or input).
  const Shape& shape() const noexcept { return evidence().shape; }
  /// The required extent (BiasWidthMismatch: out; InputWidthMismatch: in).
  std::size_t expected() const noexcept { return evidence().expected; }
  /// The extent found.
  std::size_t actual() const noexcept { return evidence().actual; }

  /// BiasWidthMismatch for a bias of shape `shape` ([actual]) against the
  /// weight's output width `expected`.
  static LayerError bias_width_mismatch(Shape shape, std::size_t expected);
  /// InputWidthMismatch for an input [..., actual] against the weight's `expected` in.
  static LayerError input_width_mismatch(Shape shape, std::size_t expected);
};

}  // namespace llm
