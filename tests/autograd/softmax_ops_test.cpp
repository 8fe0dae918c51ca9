// softmax and causal_softmax on the tape: the kernel's bits, chapter 28's
// worked probabilities, exact zeros (and exactly zero gradients) at masked
// keys, queries against a longer cache (Tq < Tk), VJPs against central
// differences, refusals, and the composed form (a 0/1 keep mask multiplied
// in after exp) compared with the fused operation bit for bit.
#include "llm/autograd/softmax_ops.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "llm/autograd/elementwise_ops.hpp"
#include "llm/tensor/elementwise.hpp"
#include "llm/tensor/matmul.hpp"
#include "llm/tensor/probability.hpp"
#include "support/printed.hpp"
#include "tensor_tape_support.hpp"
#include "vjp_check_support.hpp"

namespace llm {
namespace {

using testing::bits_of;
using testing::capture_error;
using testing::expect_vjp_matches;
using testing::filled;
using testing::printed;
using testing::tape_state;
using testing::tensor;
using testing::values_of;

// Plain-kernel causal softmax for the central differences: masked scores are
// replaced by the lowest finite double before llm::softmax, which underflows
// their probability to exactly 0 (the kernel and the operation share nothing).
Tensor causal_softmax_by_kernel(const Tensor& scores) {
  const std::size_t queries = scores.shape()[scores.rank() - 2];
  const std::size_t keys = scores.shape().back();
  Tensor masked = scores;
  std::span<double> values = masked.mutable_values();
  for (std::size_t at = 0; at < values.size(); ++at) {
    const std::size_t query = (at / keys) % queries;
    const std::size_t key = at % keys;
    if (key > keys - queries + query) values[at] = std::numeric_limits<double>::lowest();
  }
  return softmax(masked.view(), scores.rank() - 1);
}

// Chapter 28's scaled scores: Q K^T / sqrt(2) for its [1, 3, 2] query and key.
Tensor chapter_28_scores() {
  const Tensor query = tensor({1, 3, 2}, {0, 3, 2, -1, 1, 1});
  const Tensor key = tensor({1, 3, 2}, {3, 0, -1, 2, 2, 1});
  const Tensor raw = matmul(query.view(), key.view().matrix_transpose());
  const double factor = 1.0 / std::sqrt(2.0);
  return map_values(raw, [factor](double v) { return v * factor; });
}

// region: composed-causal-softmax
// The composed form chapter 28 teaches: subtract each row's visible maximum
// (a constant: the softmax does not depend on the shift), multiply by the 0/1
// keep mask before exp (a masked score never reaches exp) and after it (a
// masked entry becomes exactly 0), then divide by the row sum.
TensorValue composed_causal_softmax(const TensorValue& scores) {
  const Shape shape = scores.shape();
  const std::size_t key_axis = shape.size() - 1;
  const TensorValue keep =
      TensorValue::constant(causal_keep_mask(shape[shape.size() - 2], shape.back()));
  const SharedTensor values = scores.value();
  const TensorValue shift = TensorValue::constant(causal_row_maximum(values));
  const TensorValue exponentials = sub(scores, shift).mul(keep).exp().mul(keep);
  return div(exponentials, exponentials.sum_axis(key_axis, KeepDim::Yes));
}
// endregion: composed-causal-softmax

TEST(SoftmaxOperation, ForwardIsTheKernelSoftmaxBitForBit) {
  const Tensor logits = filled({2, 3, 4}, 3.0);
  for (std::size_t axis = 0; axis < 3; ++axis) {
    const TensorValue p = softmax(TensorValue::constant(logits), axis);
    EXPECT_EQ(p.operation(), kSoftmax);
    EXPECT_EQ(bits_of(p.value()), bits_of(llm::softmax(logits.view(), axis))) << "axis " << axis;
  }
}

TEST(SoftmaxOperation, VjpMatchesCentralDifferencesAlongEveryAxisAndThroughATranspose) {
  for (std::size_t axis = 0; axis < 3; ++axis) {
    expect_vjp_matches(
        "softmax axis " + std::to_string(axis), filled({2, 3, 4}, 2.0),
        [axis](const TensorValue& p) { return softmax(p, axis); },
        [axis](const Tensor& p) { return llm::softmax(p.view(), axis); });
  }
  expect_vjp_matches(
      "softmax of a transposed operand", filled({4, 3}),
      [](const TensorValue& p) { return softmax(p.transpose(0, 1), 1); },
      [](const Tensor& p) { return llm::softmax(p.view().transpose(0, 1), 1); });
}

TEST(SoftmaxOperation, LetsTheKernelRefuseAnInvalidAxis) {
  const TensorValue x = TensorValue::parameter(tensor({2}, {1, 2}));
  const auto error = capture_error<TensorError>([&] { softmax(x, 1); });
  EXPECT_EQ(error->kind(), TensorErrorKind::InvalidAxis);
}

TEST(CausalSoftmaxOperation, ReproducesChapter28sProbabilities) {
  const TensorValue p = causal_softmax(TensorValue::constant(chapter_28_scores()));
  EXPECT_EQ(p.operation(), kCausalSoftmax);
  EXPECT_EQ(printed(p.value()),
            "[1.000000,0.000000,0.000000,0.999151,0.000849,0.000000,0.445808,0.108383,0.445808]");
}

TEST(CausalSoftmaxOperation, EachRowIsTheSoftmaxOfItsVisibleKeysBitForBit) {
  const Tensor scores = chapter_28_scores();
  const TensorValue p = causal_softmax(TensorValue::constant(scores));
  const SharedTensor probabilities = p.value();
  for (std::size_t query = 0; query < 3; ++query) {
    const Tensor visible =
        scores.view().slice(1, query, query + 1).slice(2, 0, query + 1).materialize();
    const Tensor expected = llm::softmax(visible.view(), 2);
    const SharedTensor row = probabilities.slice(1, query, query + 1).slice(2, 0, query + 1);
    EXPECT_EQ(bits_of(row), bits_of(expected)) << "query " << query;
  }
}

TEST(CausalSoftmaxOperation, MaskedEntriesAndTheirGradientsArePositiveZeroEvenForHugeScores) {
  // The masked score 1e300 would overflow exp if it were ever read.
  const TensorValue scores = TensorValue::parameter(tensor({2, 2}, {0.5, 1e300, -1.0, 2.0}));
  const TensorValue p = causal_softmax(scores);
  const std::vector<std::uint64_t> bits = bits_of(p.value());
  EXPECT_EQ(bits[0], std::bit_cast<std::uint64_t>(1.0));
  EXPECT_EQ(bits[1], std::bit_cast<std::uint64_t>(0.0));
  p.backward_with_seed(tensor({2, 2}, {-3.0, -5.0, 1.0, -2.0}), Retention::Release);
  const std::vector<std::uint64_t> gradient = bits_of(*scores.gradient());
  EXPECT_EQ(gradient[0], std::bit_cast<std::uint64_t>(0.0));  // p = 1: g - sum g p = 0
  EXPECT_EQ(gradient[1], std::bit_cast<std::uint64_t>(0.0));  // masked
}

TEST(CausalSoftmaxOperation, VjpMatchesCentralDifferencesForSquareAndCachedGrids) {
  expect_vjp_matches(
      "causal_softmax [2, 3, 3]", filled({2, 3, 3}, 2.0),
      [](const TensorValue& p) { return causal_softmax(p); },
      [](const Tensor& p) { return causal_softmax_by_kernel(p); });
  expect_vjp_matches(
      "causal_softmax [2, 2, 5] (two new queries after three cached keys)", filled({2, 2, 5}, 2.0),
      [](const TensorValue& p) { return causal_softmax(p); },
      [](const Tensor& p) { return causal_softmax_by_kernel(p); });
  expect_vjp_matches(
      "causal_softmax of a transposed [3, 3]", filled({3, 3}, 2.0),
      [](const TensorValue& p) { return causal_softmax(p.transpose(0, 1)); },
      [](const Tensor& p) {
        return causal_softmax_by_kernel(p.view().transpose(0, 1).materialize());
      });
}

TEST(CausalSoftmaxOperation, TheLastQueriesAgainstAllKeysEqualTheLastRowsOfTheFullGrid) {
  // The seam of a key/value cache: rows 2..3 of a [4, 4] grid, computed as a
  // [2, 4] block of new queries against all four keys, are the same bits.
  const Tensor scores = filled({4, 4}, 2.5);
  const TensorValue full = causal_softmax(TensorValue::constant(scores));
  const TensorValue block =
      causal_softmax(TensorValue::constant(scores.view().slice(0, 2, 4).materialize()));
  const SharedTensor full_value = full.value();
  EXPECT_EQ(bits_of(block.value()), bits_of(full_value.slice(0, 2, 4)));
}

TEST(CausalSoftmaxOperation, AcceptsEmptyQueryAxesAndEmptyBatches) {
  EXPECT_EQ(causal_softmax(TensorValue::constant(Tensor::zeros({0, 3, 3}))).shape(),
            (Shape{0, 3, 3}));
  EXPECT_EQ(causal_softmax(TensorValue::constant(Tensor::zeros({2, 0, 3}))).shape(),
            (Shape{2, 0, 3}));
}

TEST(CausalSoftmaxOperation, RefusesRankOneScoresAndMoreQueriesThanKeysBeforeRecording) {
  const TensorValue vector = TensorValue::parameter(tensor({3}, {1, 2, 3}));
  const TensorValue tall = TensorValue::parameter(Tensor::zeros({1, 3, 2}));
  const auto before = tape_state({vector, tall});
  const auto rank = capture_error<DecoderOpError>([&] { causal_softmax(vector); });
  EXPECT_EQ(rank->kind(), DecoderOpErrorKind::CausalSoftmaxRank);
  EXPECT_STREQ(rank->what(),
               "causal_softmax needs scores [..., Tq, Tk] of rank at least 2, got shape [3]");
  const auto tall_error = capture_error<DecoderOpError>([&] { causal_softmax(tall); });
  EXPECT_EQ(tall_error->kind(), DecoderOpErrorKind::CausalMoreQueriesThanKeys);
  EXPECT_EQ(tall_error->evidence().queries, 3u);
  EXPECT_EQ(tall_error->evidence().keys, 2u);
  EXPECT_EQ(tape_state({vector, tall}), before);
}

TEST(CausalMasks, KeepMaskAdditiveMaskAndRowMaximaFollowTheSameVisibility) {
  EXPECT_EQ(values_of(causal_keep_mask(3, 3)), (std::vector<double>{1, 0, 0, 1, 1, 0, 1, 1, 1}));
  EXPECT_EQ(values_of(causal_keep_mask(2, 3)), (std::vector<double>{1, 1, 0, 1, 1, 1}));
  const Tensor additive = causal_additive_mask(3, 3);
  EXPECT_EQ(printed(SharedTensor::copy_of(additive)),
            "[0.000000,-inf,-inf,0.000000,0.000000,-inf,0.000000,0.000000,0.000000]");
  const auto refused = capture_error<TensorAutodiffError>([&] { TensorValue::constant(additive); });
  EXPECT_EQ(refused->kind(), TensorAutodiffErrorKind::NonFiniteLeaf);
  // Two queries against three keys: query 0 sees keys 0-1 (not the 99), query 1 all three.
  EXPECT_EQ(values_of(causal_row_maximum(tensor({1, 2, 3}, {1, 5, 99, 4, 2, 7}).view())),
            (std::vector<double>{5, 7}));
  EXPECT_EQ(capture_error<DecoderOpError>([] { causal_keep_mask(3, 2); })->kind(),
            DecoderOpErrorKind::CausalMoreQueriesThanKeys);
}

TEST(CausalSoftmaxForms, TheComposedFormHasTheFusedForwardBitsAndItsGradientsToRounding) {
  for (const Shape& shape : {Shape{1, 3, 3}, Shape{2, 4, 4}, Shape{2, 2, 5}}) {
    SCOPED_TRACE(testing::printed_shape(shape));
    const Tensor scores = filled(shape, 3.0);
    const Tensor seed = testing::seed_for(shape);
    const TensorValue fused_input = TensorValue::parameter(scores);
    const TensorValue composed_input = TensorValue::parameter(scores);
    const TensorValue fused = causal_softmax(fused_input);
    const TensorValue composed = composed_causal_softmax(composed_input);
    // Forward: the same operations on the visible keys in the same order;
    // the masked entries add +0.0 to each row sum, which changes no bit.
    EXPECT_EQ(bits_of(fused.value()), bits_of(composed.value()));
    fused.backward_with_seed(seed, Retention::Release);
    composed.backward_with_seed(seed, Retention::Release);
    // Backward: the fused rule P (g - sum g P) and the composed chain (div's two
    // rules added, then exp and the mask) round differently, so the
    // gradients agree to rounding, not bit for bit (here within 6e-15, with
    // seeds up to 17.5); masked keys get 0 in both.
    const std::vector<double> a = values_of(*fused_input.gradient());
    const std::vector<double> b = values_of(*composed_input.gradient());
    const Tensor keep = causal_keep_mask(shape[1], shape[2]);
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_NEAR(a[i], b[i], 1e-14);
      if (keep.values()[i % keep.size()] == 0.0) {
        EXPECT_EQ(a[i], 0.0);
        EXPECT_EQ(b[i], 0.0);
      }
    }
  }
}

}  // namespace
}  // namespace llm
