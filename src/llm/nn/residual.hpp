// The residual connection y = x + F(x): a learned branch's output added to
// the unchanged input, the identity path. Taught in chapter 24; every block
// of the decoder (chapters 31 and 32) adds its attention and feed-forward
// branches to the residual stream this way.
//
// The merge is the tape's add (chapter 15), so its reverse pass hands the
// same upstream adjoint to both operands: the input receives it once along
// the identity path and once more through the branch's own VJP. Unlike the
// plain add, the merge refuses to broadcast: a branch must return exactly
// the shape of the stream it is added to.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "llm/autograd/tensor_value.hpp"
#include "llm/error.hpp"
#include "llm/tensor/shape.hpp"

namespace llm {

// region: residual-error
/// What a residual merge rejected.
enum class ResidualErrorKind {
  ShapeMismatch,  ///< the branch output's shape is not exactly the identity's
};

/// The two shapes of a rejected merge.
struct ResidualErrorEvidence {
  Shape identity{};  ///< the shape of x, the stream
  Shape branch{};    ///< the shape of F(x), the branch output
};

/// The `residual` area: each kind's stable name and message, in enum order.
struct ResidualErrorTraits {
  using Kind = ResidualErrorKind;                       ///< the area's kinds
  using Evidence = ResidualErrorEvidence;               ///< the offending values
  static constexpr std::string_view area = "residual";  ///< Error::area()
  /// Each kind's stable name and message, in enum order.
  static constexpr std::array<ErrorKindSpec<Kind>, 1> kinds{{
      {Kind::ShapeMismatch, "shape-mismatch",
       "a residual branch must return the identity's exact shape {identity}, got {branch} "
       "(a residual merge never broadcasts)"},
  }};
  /// `identity` or `branch` as the message prints it.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};

/// An error of a residual merge (area `residual`), thrown before anything is
/// recorded: no node is created and no operand changes.
class ResidualError : public KindedError<ResidualErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw ResidualError(ResidualErrorKind::..., {.field = value});`
  explicit ResidualError(ResidualErrorKind kind, ResidualErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}
};
// endregion: residual-error

// region: residual-add-declaration
/// y = identity + branch_output, elementwise, for operands of exactly equal
/// shape (any rank, [] and empty extents included); the result has that
/// shape. Tracked when either operand is. VJP: the upstream adjoint goes
/// unchanged to both operands, so a node reached along both paths (the input
/// x of y = x + F(x)) receives ȳ plus the branch's J_F(x)^T ȳ. Owns no
/// parameter. Taught in chapter 24.
/// @throws ResidualError ShapeMismatch when the shapes differ in any way,
///         including shapes the plain add would broadcast ([2, 2] and [2]).
/// @throws TensorAutodiffError as TensorValue::add (NonFiniteResult if a sum overflows).
TensorValue residual_add(const TensorValue& identity, const TensorValue& branch_output);
// endregion: residual-add-declaration

}  // namespace llm
