// Softmax on the tape, each beside its VJP: along any axis (chapter 27) and
// causal, over each query's visible keys (chapter 28); and the causal masks as
// plain tensors for the composed form and for printing.
//
// Both operations save their probabilities P, so the VJP reads the forward
// bits and never normalizes again: for p = softmax(s) along a line,
// dp_j/ds_k = p_j ([j = k] - p_k), so the contribution is
// ds_k = p_k (g_k - sum_j g_j p_j).
#include "llm/autograd/softmax_ops.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <utility>

#include "llm/autograd/recorder.hpp"
#include "llm/tensor/kernel_output.hpp"
#include "llm/tensor/parallel.hpp"
#include "llm/tensor/probability.hpp"

namespace llm {
namespace {

// A zero written as +0.0, so a zero contribution never prints as -0.
double canonical_zero(double value) {
  return value == 0.0 ? 0.0 : value;
}

// region: causal-grid
// The facts of causal scores [..., Tq, Tk]: `rows` query rows of Tk keys
// each, row r being query r % Tq of its grid. Query i sees the first
// (Tk - Tq) + i + 1 keys.
struct CausalGrid {
  std::size_t queries = 0;
  std::size_t keys = 0;
  std::size_t rows = 0;
  std::size_t visible(std::size_t row) const noexcept { return keys - queries + row % queries + 1; }
};

CausalGrid checked_causal_grid(const Shape& shape) {
  if (shape.size() < 2) {
    throw DecoderOpError(DecoderOpErrorKind::CausalSoftmaxRank, {.shape = shape});
  }
  const std::size_t queries = shape[shape.size() - 2];
  const std::size_t keys = shape.back();
  if (queries > keys) {
    throw DecoderOpError(DecoderOpErrorKind::CausalMoreQueriesThanKeys,
                         {.shape = shape, .queries = queries, .keys = keys});
  }
  const std::size_t count = element_count(shape);
  return {queries, keys, keys == 0 ? 0 : count / keys};
}
// endregion: causal-grid

}  // namespace

// region: softmax-operation
TensorValue softmax(const TensorValue& x, std::size_t axis) {
  // The kernel checks the axis, computes P, and P is all the VJP needs.
  const SharedTensor input = x.value();
  const SharedTensor probabilities = llm::softmax(input, axis);  // saved context
  // ds_k = p_k (g_k - sum_j g_j p_j) along the axis
  auto vjp = [probabilities, axis](const SharedTensor& upstream) {
    const ClassAxisGroups groups = class_axis_groups(probabilities.shape(), axis);
    const SharedTensor rows = upstream.contiguous();
    const std::span<const double> g = rows.contiguous_values();
    const std::span<const double> p = probabilities.contiguous_values();
    Tensor result = Tensor::zeros(probabilities.shape());
    std::span<double> out = result.mutable_values();
    for (std::size_t group = 0; group < groups.count(); ++group) {
      double weighted = 0.0;  // sum_j g_j p_j, increasing j from 0.0
      for (std::size_t c = 0; c < groups.classes; ++c) {
        const std::size_t at = groups.offset(group, c);
        weighted += g[at] * p[at];
      }
      for (std::size_t c = 0; c < groups.classes; ++c) {
        const std::size_t at = groups.offset(group, c);
        out[at] = canonical_zero(p[at] * (g[at] - weighted));
      }
    }
    return SharedTensor(std::move(result));
  };
  return record_operation(kSoftmax, probabilities,
                          {x, {"saved P times (upstream minus its P-weighted sum)", vjp}});
}
// endregion: softmax-operation

// region: causal-softmax-forward
TensorValue causal_softmax(const TensorValue& scores) {
  const SharedTensor input = scores.value().contiguous();
  const CausalGrid grid = checked_causal_grid(input.shape());
  const std::span<const double> s = input.contiguous_values();
  Tensor probabilities = kernel_output(input.shape());  // every entry is written below
  std::span<double> p = probabilities.mutable_values();
  parallel_rows(grid.rows, grid.keys, [&](std::size_t first_row, std::size_t end_row) {
    for (std::size_t row = first_row; row < end_row; ++row) {
      const std::size_t first = row * grid.keys;
      const std::size_t seen = grid.visible(row);
      // The softmax of the visible keys only: a masked key is never read.
      double maximum = -std::numeric_limits<double>::infinity();
      for (std::size_t k = 0; k < seen; ++k) maximum = std::fmax(maximum, s[first + k]);
      // Each exp once: kept in the row, summed in increasing k, then divided.
      double normalizer = 0.0;
      for (std::size_t k = 0; k < seen; ++k) {
        p[first + k] = std::exp(s[first + k] - maximum);
        normalizer += p[first + k];
      }
      for (std::size_t k = 0; k < seen; ++k) p[first + k] = p[first + k] / normalizer;
      std::fill_n(p.data() + first + seen, grid.keys - seen, 0.0);  // masked keys: +0.0
    }
  });  // rows are independent: long inputs are split among threads (parallel.hpp)
  const SharedTensor saved = std::move(probabilities);  // saved context: P
  // endregion: causal-softmax-forward
  // region: causal-softmax-vjp
  // ds_k = p_k (g_k - sum_visible g_j p_j) for a visible key; exactly +0.0 for a masked one
  auto vjp = [saved, grid](const SharedTensor& upstream) {
    const SharedTensor rows = upstream.contiguous();
    const std::span<const double> g = rows.contiguous_values();
    const std::span<const double> p = saved.contiguous_values();
    Tensor result = kernel_output(saved.shape());  // every entry is written below
    std::span<double> out = result.mutable_values();
    parallel_rows(grid.rows, grid.keys, [&](std::size_t first_row, std::size_t end_row) {
      for (std::size_t row = first_row; row < end_row; ++row) {
        const std::size_t first = row * grid.keys;
        const std::size_t seen = grid.visible(row);
        double weighted = 0.0;
        for (std::size_t k = 0; k < seen; ++k) weighted += g[first + k] * p[first + k];
        for (std::size_t k = 0; k < seen; ++k) {
          out[first + k] = canonical_zero(p[first + k] * (g[first + k] - weighted));
        }
        std::fill_n(out.data() + first + seen, grid.keys - seen, 0.0);  // masked keys: +0.0
      }
    });
    return SharedTensor(std::move(result));
  };
  return record_operation(
      kCausalSoftmax, saved,
      {scores, {"saved P times (upstream minus its P-weighted sum), visible keys only", vjp}});
}
// endregion: causal-softmax-vjp

// region: causal-masks
Tensor causal_keep_mask(std::size_t queries, std::size_t keys) {
  const CausalGrid grid = checked_causal_grid(Shape{queries, keys});
  Tensor mask = Tensor::zeros(Shape{queries, keys});
  std::span<double> values = mask.mutable_values();
  for (std::size_t query = 0; query < queries; ++query) {
    std::fill_n(values.begin() + static_cast<std::ptrdiff_t>(query * keys), grid.visible(query),
                1.0);
  }
  return mask;
}

Tensor causal_additive_mask(std::size_t queries, std::size_t keys) {
  Tensor mask = causal_keep_mask(queries, keys);
  for (double& value : mask.mutable_values()) {
    value = value == 1.0 ? 0.0 : -std::numeric_limits<double>::infinity();
  }
  return mask;
}

Tensor causal_row_maximum(const TensorView& scores) {
  const CausalGrid grid = checked_causal_grid(scores.shape());
  const Tensor rows = scores.materialize();
  const std::span<const double> s = rows.values();
  Shape shape = scores.shape();
  shape.back() = 1;
  Tensor maxima = Tensor::zeros(shape);
  std::span<double> out = maxima.mutable_values();
  for (std::size_t row = 0; row < grid.rows; ++row) {
    double maximum = -std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < grid.visible(row); ++k) {
      maximum = std::fmax(maximum, s[row * grid.keys + k]);
    }
    out[row] = maximum;
  }
  return maxima;
}
// endregion: causal-masks

}  // namespace llm
