// Numerically stable probabilities: sigmoid, log-softmax and indexed mean NLL.
// Taught in chapter 12, used by chapter 13 (the NLL objective) and chapter 16
// (saved probabilities).
#pragma once

#include <cstddef>
#include <optional>
#include <span>

#include "llm/tensor/tensor.hpp"

namespace llm {

/// 1 / (1 + exp(-x)) evaluated without overflow for any finite x: for x < 0
/// it uses exp(x) / (1 + exp(x)), so exp only ever sees a nonpositive
/// argument. Returns a value in [0, 1] (0 and 1 only where the true value
/// rounds there, e.g. x = -1000 and x = 1000); NaN stays NaN.
/// Used by chapter 16's SiLU.
double stable_sigmoid(double x);

/// Whether a probability kernel also writes the probabilities exp(x - m) / Z
/// it computed along the way (a VJP saves them, chapter 16).
enum class EmitProbabilities {
  No,   ///< log-probabilities only
  Yes,  ///< the probabilities too, from the same statistics
};

/// Log-probabilities and, on request, the probabilities computed from the
/// same per-group statistics.
struct LogSoftmaxForward {
  Tensor value;                         ///< log-softmax, same shape as the input
  std::optional<Tensor> probabilities;  ///< exp of the same shifted logits, if requested
};

/// Stable log-softmax along `axis`: for each group (a line along `axis`),
/// value = (x - m) - log Z with m the group maximum and Z = sum exp(x - m),
/// natural log. With EmitProbabilities::Yes the same pass also writes
/// exp(x - m) / Z from the same m and Z (one statistics bundle per group, no
/// second normalization). Input and output shape [..., V, ...] with V the
/// extent of `axis`; finite for any finite input, e.g. logits of +-1000.
/// Every logit is checked before any output is allocated. `logits` may have
/// any strides (a non-contiguous view is read through one contiguous copy).
/// @throws TensorError InvalidAxis, EmptyAxis (V == 0), or NonFiniteValue
///         naming the first non-finite input in row-major order, in that order.
/// Taught in chapter 16 (the probabilities are saved for the VJP).
LogSoftmaxForward log_softmax_forward(const TensorView& logits, std::size_t axis,
                                      EmitProbabilities emit);

/// The value of log_softmax_forward without probabilities.
/// @throws TensorError as log_softmax_forward.
Tensor log_softmax(const TensorView& logits, std::size_t axis);

/// Stable softmax along `axis`: exp(x - m) / Z per group, the probabilities
/// of log_softmax_forward. Same shape; every group sums to 1 up to rounding.
/// Taught in chapter 12.
/// @throws TensorError as log_softmax_forward.
Tensor softmax(const TensorView& logits, std::size_t axis);

/// log sum_c exp(x_c) along `axis`, computed stably as m + log Z: the axis is
/// removed ([3, 2] along 1 gives [3]); finite for logits of +-1000 (chapter 12).
/// @throws TensorError as log_softmax_forward.
Tensor log_sum_exp(const TensorView& logits, std::size_t axis);

// region: class-axis-layout
/// The layout of a class axis: a [..., V, ...] tensor is `outer` blocks of V
/// classes times `inner` trailing positions. Group g = o * inner + i counts
/// the other axes in row-major order; class c of group g sits at flat offset
/// (o * V + c) * inner + i. Log-softmax, indexed NLL and their VJPs
/// (chapters 13 and 16) all walk groups this way.
struct ClassAxisGroups {
  std::size_t outer = 1;    ///< product of the extents before the class axis
  std::size_t classes = 0;  ///< V, the extent of the class axis
  std::size_t inner = 1;    ///< product of the extents after the class axis

  /// G, the number of groups.
  std::size_t count() const noexcept { return outer * inner; }
  /// Flat offset of class `class_index` of group `group`.
  std::size_t offset(std::size_t group, std::size_t class_index) const noexcept {
    return ((group / inner) * classes + class_index) * inner + group % inner;
  }
};

/// The class-axis layout of `shape` along `axis`.
/// @throws TensorError InvalidAxis if `axis >= shape.size()`, EmptyAxis if V == 0.
ClassAxisGroups class_axis_groups(const Shape& shape, std::size_t axis);
// endregion: class-axis-layout

/// The mean negative log-likelihood and, on request, the probabilities.
struct IndexedNllForward {
  double loss = 0.0;                    ///< mean over groups of -log p[target], natural log
  std::optional<Tensor> probabilities;  ///< softmax along the class axis, if requested
};

/// Indexed mean NLL: the class axis `axis` (extent V) splits the logits into
/// G groups (the product of the other extents); `targets` holds one class per
/// group in row-major group order. Returns (1/G) sum_g -log softmax(x_g)[t_g]
/// computed with the max-shifted log-sum-exp.
/// Validation order: axis, class extent, target count == G, G > 0, every
/// target < V (first failing group named), every logit finite; the optional
/// probabilities (exp(x - m) / Z from the same per-group statistics as the
/// loss) are allocated only after all checks pass.
/// @throws TensorError InvalidAxis, EmptyAxis, TargetCountMismatch,
///         EmptyTargets, TargetOutOfRange, NonFiniteValue in that order.
IndexedNllForward indexed_mean_nll_forward(const TensorView& logits, std::size_t axis,
                                           std::span<const std::size_t> targets,
                                           EmitProbabilities emit);

/// The loss of indexed_mean_nll_forward without probabilities (chapter 13's
/// objective: its gradient (softmax - one_hot(target)) / G is checked there).
double indexed_mean_nll(const TensorView& logits, std::size_t axis,
                        std::span<const std::size_t> targets);

}  // namespace llm
