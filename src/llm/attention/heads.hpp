// Splitting the feature axis into attention heads and merging the heads back
// (chapter 30). A split is a reshape and a permute: a new layout of the same
// storage, no copy. A merge permutes back, which leaves the values strided,
// so it makes the one visible copy (materialize) before the reshape.
#pragma once

#include <cstddef>

#include "llm/attention/attention_error.hpp"
#include "llm/autograd/tensor_value.hpp"

namespace llm {

// region: heads-declarations
/// [B, T, D] -> [B, H, T, D/H]: feature f of token t goes to head f / (D/H),
/// lane f % (D/H). Reshape to [B, T, H, Dh], then permute axes 1 and 2; both
/// share storage (a non-contiguous input is materialized first). The VJPs are
/// the inverse layout changes.
/// @throws AttentionError InputRank, ZeroHeads, WidthNotDivisible, in that order.
TensorValue split_heads(const TensorValue& input, std::size_t heads);

/// [B, H, T, Dh] -> [B, T, H * Dh], the inverse of split_heads: permute to
/// [B, T, H, Dh], materialize (the strided values become one row-major
/// block), reshape. merge_heads(split_heads(x, H)) has x's bits.
/// @throws AttentionError MergeRank.
TensorValue merge_heads(const TensorValue& heads);
// endregion: heads-declarations

}  // namespace llm
