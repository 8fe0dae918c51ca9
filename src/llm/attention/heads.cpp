// Head split and merge (chapter 30): layout changes on the tape.
#include "llm/attention/heads.hpp"

namespace llm {

// region: split-heads
TensorValue split_heads(const TensorValue& input, std::size_t heads) {
  const Shape shape = input.shape();
  if (shape.size() != 3) {
    throw AttentionError(AttentionErrorKind::InputRank,
                         {.role = "split_heads input", .shape = shape});
  }
  if (heads == 0) throw AttentionError(AttentionErrorKind::ZeroHeads, {});
  if (shape[2] % heads != 0) {
    throw AttentionError(AttentionErrorKind::WidthNotDivisible,
                         {.actual = shape[2], .heads = heads});
  }
  // reshape needs one row-major block; a projection's output already is one
  const TensorValue rows = input.value().is_contiguous() ? input : input.materialize();
  const TensorValue lanes = rows.reshape({shape[0], shape[1], heads, shape[2] / heads});
  return lanes.permute({0, 2, 1, 3});  // [B, T, H, Dh] -> [B, H, T, Dh]
}
// endregion: split-heads

// region: merge-heads
TensorValue merge_heads(const TensorValue& heads) {
  const Shape shape = heads.shape();
  if (shape.size() != 4) throw AttentionError(AttentionErrorKind::MergeRank, {.shape = shape});
  const TensorValue tokens_first = heads.permute({0, 2, 1, 3});  // [B, T, H, Dh], strided
  return tokens_first.materialize().reshape({shape[0], shape[2], shape[1] * shape[3]});
}
// endregion: merge-heads

}  // namespace llm
