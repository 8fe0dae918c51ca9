// The typed error of the decoder block and the decoder model (area
// `decoder`): a configuration that cannot build a model, parts that disagree
// with it, token IDs the model cannot read, targets the loss cannot score.
// Taught in chapters 31 and 32. Written in the one pattern of
// src/llm/error.hpp: the kinds, one table of names and messages, the evidence.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "llm/error.hpp"
#include "llm/tensor/shape.hpp"

namespace llm {

// region: decoder-error-kinds
/// What a decoder configuration, assembly, input or loss request got wrong.
enum class DecoderErrorKind {
  EmptyVocabulary,       ///< a vocabulary of 0 tokens
  ZeroModelWidth,        ///< a model width of 0
  ZeroHeads,             ///< a head count of 0
  WidthNotDivisible,     ///< the model width is not a multiple of the head count
  OddHeadWidth,          ///< the head width is odd: RoPE rotates pairs
  ZeroFeedForwardWidth,  ///< a SwiGLU hidden width of 0
  ZeroContext,           ///< a context of 0 positions
  InvalidRopeBase,       ///< a RoPE base that is not finite and positive
  InvalidEpsilon,        ///< an RMSNorm epsilon that is negative or not finite
  ComponentMismatch,     ///< a part's width, count or size differs from the configuration
  ConstantMismatch,      ///< a part's RoPE base or epsilon differs from the configuration
  LayerCountMismatch,    ///< the number of blocks differs from the configuration
  HeadTyingMismatch,     ///< a separate head for a tied model, or none for an untied one
  HeadShapeMismatch,     ///< an untied head that is not a bias-free [D, V] projection
  InputRank,             ///< a block input that is not [B, T, D]
  InputWidthMismatch,    ///< a block input whose last extent is not D
  TokenRank,             ///< token IDs not laid out as [B, T]
  EmptyBatch,            ///< B = 0
  EmptyTokens,           ///< T = 0
  TokenCountMismatch,    ///< the ID count differs from B * T
  ContextExceeded,       ///< T exceeds the context
  TargetCountMismatch,   ///< the target count differs from B * T
  TargetOutOfRange,      ///< a target is not below the vocabulary size
};
// endregion: decoder-error-kinds

/// The offending values of a DecoderError; a kind leaves the fields it does
/// not use empty or zero.
struct DecoderErrorEvidence {
  std::string role{};           ///< which part, e.g. `token embedding` or `block 1 attention`
  std::string quantity{};       ///< which of its numbers, e.g. `vocabulary size`
  Shape shape{};                ///< the offending shape (input, token IDs, head)
  Shape expected_shape{};       ///< HeadShapeMismatch: [D, V]
  std::size_t expected = 0;     ///< the number required
  std::size_t actual = 0;       ///< the number found
  std::size_t heads = 0;        ///< WidthNotDivisible: the head count
  std::size_t position = 0;     ///< TargetOutOfRange: the flat position
  double value = 0.0;           ///< InvalidRopeBase, InvalidEpsilon: the number given
  double expected_value = 0.0;  ///< ConstantMismatch: the configuration's
  double actual_value = 0.0;    ///< ConstantMismatch: the part's
  std::string tying{};          ///< HeadTyingMismatch: `tied` or `untied`
};

// region: decoder-error-table
/// The `decoder` area: each kind's stable name and message, in enum order.
struct DecoderErrorTraits {
  using Kind = DecoderErrorKind;                       ///< the area's kinds
  using Evidence = DecoderErrorEvidence;               ///< the offending values
  static constexpr std::string_view area = "decoder";  ///< Error::area()
  /// Each kind's stable name and message, in enum order.
  static constexpr std::array<ErrorKindSpec<Kind>, 23> kinds{{
      {Kind::EmptyVocabulary, "empty-vocabulary",
       "a decoder needs a vocabulary of at least one token, got 0"},
      {Kind::ZeroModelWidth, "zero-model-width",
       "a decoder needs a model width of at least 1, got 0"},
      {Kind::ZeroHeads, "zero-heads", "a decoder needs at least one attention head, got 0"},
      {Kind::WidthNotDivisible, "width-not-divisible",
       "model width {actual} cannot be split into {heads} heads of equal width"},
      {Kind::OddHeadWidth, "odd-head-width",
       "RoPE rotates pairs of features, so the head width must be even, got {actual}"},
      {Kind::ZeroFeedForwardWidth, "zero-feed-forward-width",
       "a decoder needs a feed-forward width of at least 1, got 0"},
      {Kind::ZeroContext, "zero-context",
       "a decoder needs a context of at least one position, got 0"},
      {Kind::InvalidRopeBase, "invalid-rope-base",
       "the RoPE base must be finite and above 0, got {value}"},
      {Kind::InvalidEpsilon, "invalid-epsilon",
       "the RMSNorm epsilon must be finite and at least 0, got {value}"},
      {Kind::ComponentMismatch, "component-mismatch",
       "the {role}'s {quantity} must be {expected}, got {actual}"},
      {Kind::ConstantMismatch, "constant-mismatch",
       "the {role}'s {quantity} must be {expected_value}, got {actual_value}"},
      {Kind::LayerCountMismatch, "layer-count-mismatch",
       "the configuration asks for {expected} blocks, got {actual}"},
      {Kind::HeadTyingMismatch, "head-tying-mismatch", "a {tying} decoder {role}"},
      {Kind::HeadShapeMismatch, "head-shape-mismatch",
       "an untied head must be a bias-free projection {expected_shape}, got {shape}"},
      {Kind::InputRank, "input-rank",
       "a decoder block input must be [B, T, D] (rank 3), got shape {shape}"},
      {Kind::InputWidthMismatch, "input-width-mismatch",
       "a decoder block input's last extent must be the model width {expected}, got shape {shape}"},
      {Kind::TokenRank, "token-rank",
       "token IDs must be laid out as [B, T] (rank 2), got shape {shape}"},
      {Kind::EmptyBatch, "empty-batch",
       "a decoder batch needs at least one sequence, got token shape {shape}"},
      {Kind::EmptyTokens, "empty-tokens",
       "a decoder sequence needs at least one token, got token shape {shape}"},
      {Kind::TokenCountMismatch, "token-count-mismatch",
       "token shape {shape} holds {expected} IDs, but {actual} were given"},
      {Kind::ContextExceeded, "context-exceeded",
       "{actual} tokens exceed the decoder's context of {expected} positions"},
      {Kind::TargetCountMismatch, "target-count-mismatch",
       "the loss needs one target per token ({expected}), got {actual}"},
      {Kind::TargetOutOfRange, "target-out-of-range",
       "target {actual} at flat position {position} is not below the vocabulary size {expected}"},
  }};
  /// Each evidence field as the message prints it.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};
// endregion: decoder-error-table

/// An error of the decoder block or model (area `decoder`), thrown before
/// anything is recorded or drawn: the generator, every parameter and the tape
/// are as before the call.
class DecoderError : public KindedError<DecoderErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw DecoderError(DecoderErrorKind::..., {.field = value});`
  explicit DecoderError(DecoderErrorKind kind, DecoderErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}
};

}  // namespace llm
