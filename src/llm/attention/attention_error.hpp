// The typed error of the attention layers (area `attention`): Q/K/V
// projections (chapter 26), scaled dot-product attention (chapters 27-28),
// head split and merge and multi-head attention (chapter 30). Written in the
// one pattern of src/llm/error.hpp: the kinds, one table of names and
// messages, the evidence.
//
// Each kind is a fact a layer checks before it records anything, so a refusal
// leaves every value, gradient and graph state as it was. Errors of the
// operations underneath (a Linear's LayerError, a rotary table's
// DecoderOpError) propagate unchanged.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "llm/error.hpp"
#include "llm/tensor/shape.hpp"

namespace llm {

// region: attention-error-kinds
/// What an attention layer rejected while being assembled or before a forward pass.
enum class AttentionErrorKind {
  ProjectionBias,           ///< a Q/K/V or output projection has a bias; these are bias-free
  ProjectionShapeMismatch,  ///< the Q/K/V projections do not share one shape [D, Dh]
  SharedProjectionWeight,   ///< two projections share one weight parameter
  InputRank,                ///< a layer input is not [B, T, D] (rank 3)
  InputWidthMismatch,       ///< a layer input's last extent differs from the model width
  OperandRank,              ///< an attention query, key or value of rank below 3
  BatchMismatch,            ///< query, key and value differ in rank or batch axes
  KeyValueTokenMismatch,    ///< key and value hold different numbers of tokens
  EmptyKeys,                ///< no key to attend to (Tk = 0)
  QueryKeyWidthMismatch,    ///< query and key widths differ: no dot product
  ZeroFeatureWidth,         ///< a query, key or value of width 0
  MoreQueriesThanKeys,      ///< causal attention with Tq > Tk: a query would see no key
  ZeroModelWidth,           ///< a multi-head layer of model width 0
  ZeroHeads,                ///< a head count of 0
  WidthNotDivisible,        ///< the model width is not a multiple of the head count
  OddHeadWidth,             ///< the head width is odd: RoPE rotates pairs of features
  MergeRank,                ///< merge_heads input is not [B, H, T, Dh] (rank 4)
  ProjectionNotSquare,      ///< multi-head Q/K/V projections are not [D, D]
  OutputProjectionShape,    ///< the output projection is not [D, D]
  RotaryWidthMismatch,      ///< the rotary table's width differs from the head width
  PositionRange,            ///< offset + T exceeds the context the rotary table holds
};
// endregion: attention-error-kinds

/// The offending values of an AttentionError; a kind leaves the fields it
/// does not use empty or zero.
struct AttentionErrorEvidence {
  std::string role{};        ///< which input or projection, e.g. `key` or `value projection`
  Shape shape{};             ///< the offending shape
  Shape query_shape{};       ///< the query's shape (attention operand kinds)
  Shape key_shape{};         ///< the key's shape
  Shape value_shape{};       ///< the value's shape
  std::size_t expected = 0;  ///< the width required
  std::size_t actual = 0;    ///< the width found
  std::size_t heads = 0;     ///< the head count
  std::size_t offset = 0;    ///< PositionRange: the first position
  std::size_t tokens = 0;    ///< PositionRange: T
  std::size_t capacity = 0;  ///< PositionRange: the positions the rotary table holds
};

// region: attention-error-table
/// The `attention` area: each kind's stable name and message, in enum order.
struct AttentionErrorTraits {
  using Kind = AttentionErrorKind;                       ///< the area's kinds
  using Evidence = AttentionErrorEvidence;               ///< the offending values
  static constexpr std::string_view area = "attention";  ///< Error::area()
  /// Each kind's stable name and message, in enum order.
  static constexpr std::array<ErrorKindSpec<Kind>, 21> kinds{{
      {Kind::ProjectionBias, "projection-bias",
       "the {role} has a bias; attention projections here are bias-free"},
      {Kind::ProjectionShapeMismatch, "projection-shape-mismatch",
       "the query, key and value projections must share one shape [D, Dh]; the query's is "
       "{query_shape}, the key's {key_shape}, the value's {value_shape}"},
      {Kind::SharedProjectionWeight, "shared-projection-weight",
       "the {role} uses the same weight parameter as another projection; each needs its own"},
      {Kind::InputRank, "input-rank", "the {role} must be [B, T, D] (rank 3), got shape {shape}"},
      {Kind::InputWidthMismatch, "input-width-mismatch",
       "the {role}'s last extent must be the model width {expected}, got shape {shape}"},
      {Kind::OperandRank, "operand-rank",
       "attention needs a {role} [..., T, D] of rank at least 3, got shape {shape}"},
      {Kind::BatchMismatch, "batch-mismatch",
       "query, key and value must share their rank and batch axes, got {query_shape}, "
       "{key_shape} and {value_shape}"},
      {Kind::KeyValueTokenMismatch, "key-value-token-mismatch",
       "key and value must hold the same tokens, got {key_shape} and {value_shape}"},
      {Kind::EmptyKeys, "empty-keys",
       "attention needs at least one key to attend to, got key shape {key_shape}"},
      {Kind::QueryKeyWidthMismatch, "query-key-width-mismatch",
       "query and key must have the same width for their dot product, got {query_shape} and "
       "{key_shape}"},
      {Kind::ZeroFeatureWidth, "zero-feature-width",
       "the {role} needs a feature width of at least 1, got shape {shape}"},
      {Kind::MoreQueriesThanKeys, "more-queries-than-keys",
       "causal attention needs at most as many queries as keys (query i sees keys up to "
       "Tk - Tq + i), got {query_shape} and {key_shape}"},
      {Kind::ZeroModelWidth, "zero-model-width",
       "multi-head attention needs a model width of at least 1, got 0"},
      {Kind::ZeroHeads, "zero-heads", "attention needs at least one head, got 0"},
      {Kind::WidthNotDivisible, "width-not-divisible",
       "model width {actual} cannot be split into {heads} heads of equal width"},
      {Kind::OddHeadWidth, "odd-head-width",
       "RoPE rotates pairs of features, so the head width must be even, got {actual}"},
      {Kind::MergeRank, "merge-rank",
       "merge_heads needs heads [B, H, T, Dh] of rank 4, got shape {shape}"},
      {Kind::ProjectionNotSquare, "projection-not-square",
       "multi-head attention projects the whole width, so Q/K/V must be [D, D], got {shape}"},
      {Kind::OutputProjectionShape, "output-projection-shape",
       "the output projection must be [{expected}, {expected}] without a bias, got shape {shape}"},
      {Kind::RotaryWidthMismatch, "rotary-width-mismatch",
       "the rotary table must rotate the head width {expected}, got a table of width {actual}"},
      {Kind::PositionRange, "position-range",
       "positions from {offset} for {tokens} tokens exceed the {capacity} positions the rotary "
       "table holds"},
  }};
  /// Each evidence field as the message prints it.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};
// endregion: attention-error-table

/// An error of an attention layer (area `attention`), thrown before anything
/// is recorded or drawn: the generator, every parameter and the tape are as
/// before the call.
class AttentionError : public KindedError<AttentionErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw AttentionError(AttentionErrorKind::..., {.field = value});`
  explicit AttentionError(AttentionErrorKind kind, AttentionErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}
};

}  // namespace llm
