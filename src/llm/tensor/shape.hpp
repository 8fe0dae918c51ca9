// Shapes and strides: the small integer lists that describe a tensor's layout.
//
// Shape legend used in every docstring of src/llm/tensor and src/llm/autograd:
//   B  batch             T  sequence position (token)
//   C  channels/features V  vocabulary (classes of a probability axis)
//   R  table rows        D  table width (features per row)
//   H  hidden width      M, K, N  the rows, inner extent and columns of a matrix product
// A shape is written `[B, T, V]`; `[]` is a rank-zero (scalar) tensor with one
// element. Taught in chapter 08.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "llm/tensor/small_vector.hpp"

namespace llm {

/// Ranks up to this many axes are stored inline in Shape and Strides (no heap
/// allocation); higher ranks work and allocate.
inline constexpr std::size_t kInlineRank = 6;

/// Extents of a tensor, outermost axis first. `{}` is rank zero. Taught in chapter 08.
using Shape = SmallVector<std::size_t, kInlineRank>;

/// Element steps of a layout, one per axis: moving one position along axis i
/// moves `strides[i]` elements through storage. 0 repeats an element
/// (broadcasting). Taught in chapters 08 and 09.
using Strides = SmallVector<std::size_t, kInlineRank>;

/// A list of axes, e.g. the order of a permutation ([0, 2, 1, 3]).
using Axes = SmallVector<std::size_t, kInlineRank>;

/// Text of a shape, strides or coordinate as `[2, 3]`; `[]` for rank zero.
std::string shape_text(std::span<const std::size_t> extents);

}  // namespace llm
