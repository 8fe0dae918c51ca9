// The worked examples of chapter 28.
#include "fixtures.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>

#include "demo_attention_check.hpp"
#include "demo_bits.hpp"
#include "demo_tape.hpp"
#include "llm/attention/scaled_dot_product.hpp"
#include "llm/autograd/elementwise_ops.hpp"
#include "llm/autograd/softmax_ops.hpp"
#include "llm/autograd/tensor_value.hpp"
#include "llm/error.hpp"
#include "llm/tensor/probability.hpp"

namespace ch28 {

namespace {

using llm::Masking;
using llm::Shape;
using llm::Tensor;
using llm::TensorValue;

const Shape kShape{1, 3, 2};  // [B, T, D]
// The unscaled scores Q K^T of the worked input, as a [3, 3] grid.
constexpr std::array<double, 9> kReleasedScores = {0.0, 6.0, 3.0, 6.0, -4.0, 3.0, 3.0, 1.0, 3.0};

Tensor tensor(const Shape& shape, std::span<const double> values) {
  return Tensor(shape, {values.begin(), values.end()});
}

using demo::bits_of;
using demo::total;  // the sum of every element, recorded on the tape
using demo::trace_is_finite;
using demo::value_of;

bool all_positive_zero(std::span<const double> values) {
  for (double value : values) {
    if (std::bit_cast<std::uint64_t>(value) != 0) return false;
  }
  return true;
}

}  // namespace

// region: causal-fixture
CausalEvidence causal_evidence(const std::array<double, 6>& upstream) {
  const TensorValue query = TensorValue::parameter(tensor(kShape, kQuery));
  const TensorValue key = TensorValue::parameter(tensor(kShape, kKey));
  const TensorValue value = TensorValue::parameter(tensor(kShape, kValue));
  const llm::AttentionPass pass = scaled_dot_product_attention(query, key, value, Masking::Causal);

  CausalEvidence evidence{.query = value_of(query),
                          .key = value_of(key),
                          .value = value_of(value),
                          .additive_mask = llm::causal_additive_mask(3, 3),  // printed only
                          .scores = value_of(pass.scores),
                          .scaled_scores = value_of(pass.scaled_scores),
                          .weights = value_of(pass.weights),
                          .output = value_of(pass.output),
                          .scale = pass.scale,
                          .upstream = tensor(kShape, upstream)};
  const std::span<const double> a = evidence.weights.values();
  evidence.future_weights_zero = true;
  for (std::size_t i = 0; i < 3; ++i) {
    evidence.row_sums.push_back(a[i * 3] + a[i * 3 + 1] + a[i * 3 + 2]);
    // Query i sees keys 0..i; keys i+1..2 are its future.
    evidence.future_weights_zero =
        evidence.future_weights_zero && all_positive_zero(a.subspan(i * 3 + i + 1, 2 - i));
  }
  const TensorValue loss = total(pass.output.mul(TensorValue::constant(evidence.upstream)));
  evidence.loss = loss.item();
  evidence.tape_finite = trace_is_finite(loss.backward_with_trace());
  evidence.query_gradient = *query.gradient();
  evidence.key_gradient = *key.gradient();
  evidence.value_gradient = *value.gradient();
  return evidence;
}
// endregion: causal-fixture

// region: prefix-fixture
PrefixEvidence prefix_evidence() {
  const auto output_of = [](const std::array<double, 6>& key, const std::array<double, 6>& value) {
    return value_of(scaled_dot_product_attention(TensorValue::constant(tensor(kShape, kQuery)),
                                                 TensorValue::constant(tensor(kShape, key)),
                                                 TensorValue::constant(tensor(kShape, value)),
                                                 Masking::Causal)
                        .output);
  };
  const Tensor before = output_of(kKey, kValue);
  const Tensor after = output_of(kPerturbedKey, kPerturbedValue);
  // Output row i is values [2i, 2i + 2): compare the bits position by position.
  const auto row = [](const Tensor& t, std::size_t i) { return t.values().subspan(i * 2, 2); };
  PrefixEvidence evidence{.perturbed_output = after,
                          .position_0_unchanged = bits_of(row(before, 0)) == bits_of(row(after, 0)),
                          .position_1_unchanged = bits_of(row(before, 1)) == bits_of(row(after, 1)),
                          .position_2_changed = bits_of(row(before, 2)) != bits_of(row(after, 2)),
                          .seed = tensor(kShape, kPrefixUpstream)};

  // A loss that reads positions 0 and 1 only: position 2 must receive nothing.
  const TensorValue query = TensorValue::parameter(tensor(kShape, kQuery));
  const TensorValue key = TensorValue::parameter(tensor(kShape, kKey));
  const TensorValue value = TensorValue::parameter(tensor(kShape, kValue));
  scaled_dot_product_attention(query, key, value, Masking::Causal)
      .output.backward_with_seed(evidence.seed, llm::Retention::Release);
  evidence.query_gradient = *query.gradient();
  evidence.key_gradient = *key.gradient();
  evidence.value_gradient = *value.gradient();
  evidence.suffix_gradient_zero = true;
  for (const Tensor* gradient :
       {&evidence.query_gradient, &evidence.key_gradient, &evidence.value_gradient}) {
    evidence.suffix_gradient_zero =
        evidence.suffix_gradient_zero && all_positive_zero(row(*gradient, 2));
  }
  return evidence;
}
// endregion: prefix-fixture

SingleTokenEvidence single_token_evidence() {
  const TensorValue query = TensorValue::parameter(Tensor(Shape{1, 1, 2}, {2.0, -1.0}));
  const TensorValue key = TensorValue::parameter(Tensor(Shape{1, 1, 2}, {-3.0, 4.0}));
  const TensorValue value = TensorValue::parameter(Tensor(Shape{1, 1, 2}, {5.0, -2.0}));
  const llm::AttentionPass pass = scaled_dot_product_attention(query, key, value, Masking::Causal);
  SingleTokenEvidence evidence{llm::causal_additive_mask(1, 1), value_of(pass.weights),
                               value_of(pass.output)};
  total(pass.output).backward();
  evidence.query_gradient_zero = all_positive_zero(query.gradient()->values());
  evidence.key_gradient_zero = all_positive_zero(key.gradient()->values());
  return evidence;
}

EmptyBatchEvidence empty_batch_evidence() {
  const TensorValue none = TensorValue::constant(Tensor::zeros(Shape{0, 3, 2}));
  const llm::AttentionPass pass = scaled_dot_product_attention(none, none, none, Masking::Causal);
  return {pass.weights.shape(), pass.output.shape(), pass.output.value().size() == 0};
}

// region: causal-refusals
std::vector<Refusal> refusal_evidence() {
  const auto zeros = [](const Shape& shape) { return TensorValue::constant(Tensor::zeros(shape)); };
  const auto attend = [](const TensorValue& q, const TensorValue& k, const TensorValue& v) {
    scaled_dot_product_attention(q, k, v, Masking::Causal);
  };
  const TensorValue ok = zeros(kShape);
  struct Case {
    const char* name;
    std::string_view expected;  // the kebab-case kind name
    std::function<void()> call;
  };
  const Case cases[] = {
      {"empty_tokens", llm::AttentionError::kind_name_of(llm::AttentionErrorKind::EmptyKeys),
       [&] {
         attend(zeros({1, 0, 2}), zeros({1, 0, 2}), zeros({1, 0, 2}));
       }},
      {"softmax_rank",
       llm::DecoderOpError::kind_name_of(llm::DecoderOpErrorKind::CausalSoftmaxRank),
       [&] { llm::causal_softmax(zeros({1})); }},
      // Fewer queries than keys is legal (a block of new queries against a
      // cache); more queries than keys would leave query 0 with no key.
      {"softmax_shape",
       llm::DecoderOpError::kind_name_of(llm::DecoderOpErrorKind::CausalMoreQueriesThanKeys),
       [&] {
         llm::causal_softmax(zeros({1, 3, 2}));
       }},
      {"query_rank", llm::AttentionError::kind_name_of(llm::AttentionErrorKind::OperandRank),
       [&] {
         attend(zeros({3, 2}), ok, ok);
       }},
      {"token_mismatch",
       llm::AttentionError::kind_name_of(llm::AttentionErrorKind::KeyValueTokenMismatch),
       [&] {
         attend(ok, zeros({1, 2, 2}), ok);
       }},
      // This tape records an operation on a released node (its value is kept);
      // the refusal comes when a pass tries to reverse through it.
      {"released_score",
       llm::TensorAutodiffError::kind_name_of(llm::TensorAutodiffErrorKind::ReleasedGraph),
       [&] {
         const TensorValue scores = TensorValue::parameter(tensor(Shape{3, 3}, kReleasedScores));
         const TensorValue shifted = scores.add(TensorValue::constant(Tensor(Shape{}, {0.0})));
         total(shifted).backward();  // releases the graph under `shifted`
         total(llm::causal_softmax(shifted)).backward();
       }},
  };
  std::vector<Refusal> refusals;
  for (const Case& c : cases) {
    // Caught as any llm::Error: the cases span three areas.
    refusals.push_back(demo::kind_refusal<llm::Error>(c.name, c.expected, c.call));
  }
  return refusals;
}
// endregion: causal-refusals

// region: mask-forms
namespace {

// The additive form, as the textbook writes it: S + M with M = 0 / -inf,
// then the stable softmax of each row over all three keys (maximum, sum of
// exp(x - max) in increasing key order from 0.0, divide). It is written out
// because neither the tape nor the softmax kernel accepts -inf.
Tensor additive_masked_softmax(const Tensor& scores) {
  const Tensor mask = llm::causal_additive_mask(3, 3);
  Tensor weights = Tensor::zeros(scores.shape());  // [1, 3, 3]
  for (std::size_t i = 0; i < 3; ++i) {
    double x[3], maximum = -INFINITY, normalizer = 0.0;
    for (std::size_t j = 0; j < 3; ++j) {
      x[j] = scores.values()[i * 3 + j] + mask.values()[i * 3 + j];  // -inf in the future
      maximum = std::fmax(maximum, x[j]);
    }
    for (std::size_t j = 0; j < 3; ++j) normalizer += std::exp(x[j] - maximum);  // exp(-inf) = 0
    for (std::size_t j = 0; j < 3; ++j) {
      weights.mutable_values()[i * 3 + j] = std::exp(x[j] - maximum) / normalizer;
    }
  }
  return weights;
}

// The keep-mask form on the tape: subtract each row's visible maximum (a
// constant), multiply by the 0/1 mask before exp (a masked score never
// reaches exp) and after it (a masked entry becomes 0), divide by the sum.
TensorValue keep_masked_softmax(const TensorValue& scores) {
  const TensorValue keep = TensorValue::constant(llm::causal_keep_mask(3, 3));
  const llm::SharedTensor values = scores.value();
  const TensorValue shift = TensorValue::constant(llm::causal_row_maximum(values.view()));
  const TensorValue exponentials = sub(scores, shift).mul(keep).exp().mul(keep);
  return div(exponentials, exponentials.sum_axis(2, llm::KeepDim::Yes));
}

}  // namespace

MaskFormsEvidence mask_forms_evidence() {
  const CausalEvidence primary = causal_evidence(kUpstream);
  const Tensor& scores = primary.scaled_scores;
  // A seed on the weights, so both forms are reversed from the same upstream.
  const Tensor seed(Shape{1, 3, 3}, {1.0, -2.0, 0.5, 0.25, 2.0, -1.0, -1.0, 0.75, 1.5});
  const TensorValue fused_scores = TensorValue::parameter(scores);
  const TensorValue fused = llm::causal_softmax(fused_scores);
  fused.backward_with_seed(seed, llm::Retention::Release);
  const TensorValue keep_scores = TensorValue::parameter(scores);
  const TensorValue keep = keep_masked_softmax(keep_scores);
  keep.backward_with_seed(seed, llm::Retention::Release);

  MaskFormsEvidence evidence{.fused = value_of(fused),
                             .additive = additive_masked_softmax(scores),
                             .keep = value_of(keep),
                             .fused_gradient = *fused_scores.gradient(),
                             .keep_gradient = *keep_scores.gradient()};
  evidence.additive_bits_equal = bits_of(evidence.additive) == bits_of(evidence.fused);
  evidence.keep_bits_equal = bits_of(evidence.keep) == bits_of(evidence.fused);
  evidence.gradient_bits_equal =
      bits_of(evidence.keep_gradient) == bits_of(evidence.fused_gradient);
  for (std::size_t at = 0; at < scores.size(); ++at) {
    evidence.gradient_largest_difference = std::fmax(
        evidence.gradient_largest_difference,
        std::fabs(evidence.keep_gradient.values()[at] - evidence.fused_gradient.values()[at]));
  }
  // Zeroing the future after an unmasked softmax keeps the full denominator.
  evidence.zeroed_after = llm::softmax(scores.view(), 2);
  const Tensor keep_mask = llm::causal_keep_mask(3, 3);
  for (std::size_t i = 0; i < 3; ++i) {
    double sum = 0.0;
    for (std::size_t j = 0; j < 3; ++j) {
      double& p = evidence.zeroed_after.mutable_values()[i * 3 + j];
      p *= keep_mask.values()[i * 3 + j];
      sum += p;
    }
    evidence.zeroed_after_row_sums.push_back(sum);
  }
  try {
    TensorValue::constant(llm::causal_additive_mask(3, 3));
  } catch (const llm::TensorAutodiffError& error) {
    evidence.additive_on_tape_refusal = error.what();
  }
  try {
    Tensor masked = scores;
    masked.mutable_values()[1] = -INFINITY;  // the first masked cell
    llm::softmax(masked.view(), 2);
  } catch (const llm::Error& error) {
    evidence.additive_in_kernel_refusal = error.what();
  }
  return evidence;
}
// endregion: mask-forms

// region: causal-gradcheck
namespace {

// sum_{i,c} O[i][c] * Obar[i][c] for three tokens, causal attention as plain
// loops: query i reads keys 0..i only. Nothing here touches the tape.
double causal_objective(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& upstream) {
  const std::span<const double> Q = q.values(), K = k.values(), V = v.values(),
                                G = upstream.values();
  const double scale = 1.0 / std::sqrt(2.0);
  double total = 0.0;
  for (std::size_t i = 0; i < 3; ++i) {
    double s[3], m = -INFINITY, z = 0.0;
    for (std::size_t j = 0; j <= i; ++j) {
      s[j] = (Q[i * 2] * K[j * 2] + Q[i * 2 + 1] * K[j * 2 + 1]) * scale;
      m = std::fmax(m, s[j]);
    }
    for (std::size_t j = 0; j <= i; ++j) z += std::exp(s[j] - m);
    for (std::size_t j = 0; j <= i; ++j) {
      const double p = std::exp(s[j] - m) / z;
      total += p * (V[j * 2] * G[i * 2] + V[j * 2 + 1] * G[i * 2 + 1]);
    }
  }
  return total;
}

}  // namespace

GradientCheckEvidence gradient_check_evidence(const CausalEvidence& primary) {
  // Every coordinate of Q, K and V moved in turn: chapters/common/demo_attention_check.hpp.
  return demo::attention_gradient_check(primary, causal_objective, kGradcheckStep,
                                        kGradcheckTolerance);
}
// endregion: causal-gradcheck

bool replays_bitwise() {
  return demo::replays_bitwise([] { return causal_evidence(kUpstream); });
}

}  // namespace ch28
