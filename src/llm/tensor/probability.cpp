// Stable sigmoid, log-softmax and indexed mean NLL from one checked group driver.
//
// Every probability operation walks the same groups: the lines along the
// class axis. The driver validates everything first, then computes one
// statistics bundle per group (a scan for the maximum, a separate scan for
// the max-shifted exponential sum) and hands it to the operation, which
// emits its outputs from those shared statistics.
#include "llm/tensor/probability.hpp"

#include <cmath>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "llm/tensor/kernel_output.hpp"
#include "llm/tensor/reduction.hpp"

namespace llm {

// region: stable-sigmoid
double stable_sigmoid(double x) {
  // exp is only ever taken of a nonpositive number, so it cannot overflow.
  if (x >= 0.0) return 1.0 / (1.0 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1.0 + e);
}
// endregion: stable-sigmoid

ClassAxisGroups class_axis_groups(const Shape& shape, std::size_t axis) {
  if (axis >= shape.size())
    throw TensorError(TensorErrorKind::InvalidAxis, {.shape = shape, .axis = axis});
  if (shape[axis] == 0)
    throw TensorError(TensorErrorKind::EmptyAxis, {.shape = shape, .axis = axis});
  ClassAxisGroups groups;
  groups.classes = shape[axis];
  for (std::size_t a = 0; a < axis; ++a) groups.outer *= shape[a];
  for (std::size_t a = axis + 1; a < shape.size(); ++a) groups.inner *= shape[a];
  return groups;
}

namespace {

// region: class-axis-groups
// Validates in the documented order: axis, class extent, targets (count,
// nonempty, each in range) when given, then every logit finite. Nothing is
// allocated for outputs before all of these checks pass.
ClassAxisGroups check_class_groups(const Shape& shape, std::span<const double> values,
                                   std::size_t axis, const std::span<const std::size_t>* targets) {
  const ClassAxisGroups groups = class_axis_groups(shape, axis);

  if (targets != nullptr) {
    if (targets->size() != groups.count()) {
      throw TensorError(TensorErrorKind::TargetCountMismatch,
                        {.expected = groups.count(), .actual = targets->size()});
    }
    if (targets->empty()) throw TensorError(TensorErrorKind::EmptyTargets);
    for (std::size_t group = 0; group < targets->size(); ++group) {
      if ((*targets)[group] >= groups.classes) {
        throw TensorError(
            TensorErrorKind::TargetOutOfRange,
            {.index = group, .expected = groups.classes, .actual = (*targets)[group]});
      }
    }
  }
  for (std::size_t offset = 0; offset < values.size(); ++offset) {
    if (!std::isfinite(values[offset])) {
      throw TensorError(TensorErrorKind::NonFiniteValue,
                        {.shape = shape,
                         .coordinate = coordinate_from_offset(shape, offset),
                         .value = values[offset]});
    }
  }
  return groups;
}
// endregion: class-axis-groups

// region: group-statistics
// The statistics every output of one group is emitted from.
struct GroupStatistics {
  double maximum = 0.0;         ///< m = max_c x_c
  double normalizer = 0.0;      ///< Z = sum_c exp(x_c - m), in [1, V]
  double log_normalizer = 0.0;  ///< log Z
};

// Two scans: the maximum first, so every exponent x_c - m is <= 0 and no
// exp overflows; then the shifted sum, which is at least exp(0) = 1.
GroupStatistics group_statistics(std::span<const double> values, const ClassAxisGroups& groups,
                                 std::size_t first) {
  double maximum = -std::numeric_limits<double>::infinity();
  for (std::size_t c = 0; c < groups.classes; ++c) {
    maximum = std::fmax(maximum, values[first + c * groups.inner]);
  }
  double normalizer = 0.0;
  for (std::size_t c = 0; c < groups.classes; ++c) {
    normalizer += std::exp(values[first + c * groups.inner] - maximum);
  }
  return {maximum, normalizer, std::log(normalizer)};
}
// endregion: group-statistics

// region: checked-group-driver
// What the driver writes besides the per-group callback.
struct GroupOutputs {
  std::optional<Tensor> log_probabilities;  ///< (x - m) - log Z, if requested
  std::optional<Tensor> probabilities;      ///< exp(x - m) / Z, if requested
};

// The checked group driver: validates everything, only then allocates the
// requested outputs, and for each group computes one statistics bundle,
// emits the requested outputs from it and passes it to
// `on_group(group, first_offset, class_stride, statistics)`.
template <typename OnGroup>
GroupOutputs drive_class_groups(const Shape& shape, std::span<const double> values,
                                std::size_t axis, const std::span<const std::size_t>* targets,
                                bool emit_log_probabilities, EmitProbabilities emit,
                                OnGroup&& on_group) {
  const ClassAxisGroups groups = check_class_groups(shape, values, axis, targets);
  GroupOutputs outputs;
  if (emit_log_probabilities) outputs.log_probabilities = kernel_output(shape);
  if (emit == EmitProbabilities::Yes) outputs.probabilities = kernel_output(shape);

  for (std::size_t group = 0; group < groups.count(); ++group) {
    const std::size_t first = groups.offset(group, 0);
    const GroupStatistics statistics = group_statistics(values, groups, first);
    for (std::size_t c = 0; c < groups.classes; ++c) {
      const std::size_t offset = first + c * groups.inner;
      const double shifted = values[offset] - statistics.maximum;
      if (outputs.log_probabilities) {
        outputs.log_probabilities->mutable_values()[offset] = shifted - statistics.log_normalizer;
      }
      if (outputs.probabilities) {
        outputs.probabilities->mutable_values()[offset] = std::exp(shifted) / statistics.normalizer;
      }
    }
    on_group(group, first, groups.inner, statistics);
  }
  return outputs;
}
// endregion: checked-group-driver

// The logits as one row-major block: borrowed when the view is contiguous,
// otherwise copied once into `copy`.
std::span<const double> row_major_values(const TensorView& logits, Tensor& copy) {
  if (logits.is_contiguous()) return logits.contiguous_values();
  copy = logits.materialize();
  return copy.values();
}

}  // namespace

// region: log-softmax-forward
LogSoftmaxForward log_softmax_forward(const TensorView& logits, std::size_t axis,
                                      EmitProbabilities emit) {
  Tensor copy;
  const std::span<const double> values = row_major_values(logits, copy);
  // log softmax(x)_c = (x_c - m) - log Z, emitted by the driver with exp(x_c - m) / Z.
  GroupOutputs outputs =
      drive_class_groups(logits.shape(), values, axis, nullptr, true, emit,
                         [](std::size_t, std::size_t, std::size_t, const GroupStatistics&) {});
  return {std::move(*outputs.log_probabilities), std::move(outputs.probabilities)};
}

Tensor log_softmax(const TensorView& logits, std::size_t axis) {
  return log_softmax_forward(logits, axis, EmitProbabilities::No).value;
}

Tensor softmax(const TensorView& logits, std::size_t axis) {
  return std::move(*log_softmax_forward(logits, axis, EmitProbabilities::Yes).probabilities);
}
// endregion: log-softmax-forward

// region: log-sum-exp
Tensor log_sum_exp(const TensorView& logits, std::size_t axis) {
  Tensor copy;
  const std::span<const double> values = row_major_values(logits, copy);
  const ClassAxisGroups groups = check_class_groups(logits.shape(), values, axis, nullptr);
  Tensor result = kernel_output(reduced_shape(logits.shape(), axis, KeepDim::No));
  // Group g = o * inner + i is also the row-major index of the result.
  std::span<double> totals = result.mutable_values();
  for (std::size_t group = 0; group < groups.count(); ++group) {
    const GroupStatistics statistics = group_statistics(values, groups, groups.offset(group, 0));
    totals[group] = statistics.maximum + statistics.log_normalizer;
  }
  return result;
}
// endregion: log-sum-exp

// region: indexed-mean-nll-forward
IndexedNllForward indexed_mean_nll_forward(const TensorView& logits, std::size_t axis,
                                           std::span<const std::size_t> targets,
                                           EmitProbabilities emit) {
  Tensor copy;
  const std::span<const double> values = row_major_values(logits, copy);
  double total = 0.0;
  GroupOutputs outputs =
      drive_class_groups(logits.shape(), values, axis, &targets, false, emit,
                         [&](std::size_t group, std::size_t first, std::size_t stride,
                             const GroupStatistics& statistics) {
                           // -log softmax(x)_t = log Z - (x_t - m)
                           const double target_logit = values[first + targets[group] * stride];
                           total += statistics.log_normalizer - (target_logit - statistics.maximum);
                         });
  return {total / static_cast<double>(targets.size()), std::move(outputs.probabilities)};
}

double indexed_mean_nll(const TensorView& logits, std::size_t axis,
                        std::span<const std::size_t> targets) {
  return indexed_mean_nll_forward(logits, axis, targets, EmitProbabilities::No).loss;
}
// endregion: indexed-mean-nll-forward

}  // namespace llm
