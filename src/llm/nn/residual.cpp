// The residual merge (chapter 24): an exact shape check, then the tape's add.
#include "llm/nn/residual.hpp"

#include <utility>

namespace llm {

std::string ResidualErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "identity") return shape_text(evidence.identity);
  if (field == "branch") return shape_text(evidence.branch);
  error_detail::unknown_field(area, field);
}

// region: residual-add
TensorValue residual_add(const TensorValue& identity, const TensorValue& branch_output) {
  Shape identity_shape = identity.shape();
  Shape branch_shape = branch_output.shape();
  // The plain add would broadcast [2] against [2, 2]; a branch that returns
  // a smaller shape is a bug in the branch, not a row to repeat.
  if (identity_shape != branch_shape) {
    throw ResidualError(ResidualErrorKind::ShapeMismatch,
                        {.identity = std::move(identity_shape), .branch = std::move(branch_shape)});
  }
  return identity.add(branch_output);  // VJP: the upstream, unchanged, to both operands
}
// endregion: residual-add

}  // namespace llm
