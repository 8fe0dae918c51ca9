// The worked examples of chapter 27.
#include "fixtures.hpp"

#include <cmath>
#include <functional>
#include <span>
#include <utility>

#include "demo_attention_check.hpp"
#include "demo_tape.hpp"
#include "llm/attention/scaled_dot_product.hpp"
#include "llm/autograd/tensor_value.hpp"
#include "llm/tensor/probability.hpp"

namespace ch27 {

namespace {

using llm::Masking;
using llm::Shape;
using llm::Tensor;
using llm::TensorValue;

Tensor tensor(const Shape& shape, std::span<const double> values) {
  return Tensor(shape, {values.begin(), values.end()});
}

using demo::bits_of;
using demo::total;  // sum of every element, recorded on the tape: [1, 2, 2] -> [4] -> scalar
using demo::value_of;

bool all_zero(const Tensor& tensor) {
  for (double value : tensor.values()) {
    if (value != 0.0) return false;
  }
  return true;
}

}  // namespace

// region: attention-fixture
AttentionEvidence attention_evidence(const std::array<double, 4>& query_values,
                                     const std::array<double, 4>& upstream) {
  const Shape shape{1, 2, 2};  // [B, T, D]
  const TensorValue query = TensorValue::parameter(tensor(shape, query_values));
  const TensorValue key = TensorValue::parameter(tensor(shape, kKey));
  const TensorValue value = TensorValue::parameter(tensor(shape, kValue));
  const llm::AttentionPass pass = scaled_dot_product_attention(query, key, value, Masking::None);

  AttentionEvidence evidence{.query = value_of(query),
                             .key = value_of(key),
                             .value = value_of(value),
                             .scores = value_of(pass.scores),
                             .scaled_scores = value_of(pass.scaled_scores),
                             .weights = value_of(pass.weights),
                             .output = value_of(pass.output),
                             .scale = pass.scale,
                             .upstream = tensor(shape, upstream)};
  // Each output row, taken apart: weight [i][j] times value row j.
  const std::span<const double> a = evidence.weights.values();
  for (std::size_t i = 0; i < 2; ++i) {
    evidence.row_sums.push_back(a[i * 2] + a[i * 2 + 1]);
    evidence.terms.push_back({});
    for (std::size_t j = 0; j < 2; ++j) {
      evidence.terms[i].push_back({a[i * 2 + j] * kValue[j * 2], a[i * 2 + j] * kValue[j * 2 + 1]});
    }
  }
  // L = sum(O * O-bar): its gradient with respect to O is the seed O-bar.
  const TensorValue loss = total(pass.output.mul(TensorValue::constant(evidence.upstream)));
  evidence.loss = loss.item();
  loss.backward();
  evidence.query_gradient = *query.gradient();
  evidence.key_gradient = *key.gradient();
  evidence.value_gradient = *value.gradient();

  // The bug this chapter's symmetric example cannot see: scores = K Q^T.
  evidence.swapped_scores_output = value_of(
      scaled_dot_product_attention(key.detach(), query.detach(), value.detach(), Masking::None)
          .output);
  return evidence;
}
// endregion: attention-fixture

// region: scale-probe
ScaleEvidence scale_evidence() {
  // Q = K = V = I: query 0 scores [1, 0], a gap of 1 between its two keys.
  const std::array<double, 4> identity = {1.0, 0.0, 0.0, 1.0};
  const TensorValue eye = TensorValue::constant(tensor(Shape{1, 2, 2}, identity));
  const llm::AttentionPass pass = scaled_dot_product_attention(eye, eye, eye, Masking::None);
  const llm::SharedTensor scores = pass.scores.value();
  const Tensor unscaled = llm::softmax(scores.view(), 2);  // softmax(Q K^T)
  const Tensor scaled = value_of(pass.weights);            // softmax(Q K^T / sqrt 2)
  return {unscaled.values()[0], scaled.values()[0], scaled.values()[1],
          scaled.values()[0] < unscaled.values()[0]};
}
// endregion: scale-probe

SingleTokenEvidence single_token_evidence() {
  const TensorValue query = TensorValue::parameter(Tensor(Shape{1, 1, 2}, {2.0, -1.0}));
  const TensorValue key = TensorValue::parameter(Tensor(Shape{1, 1, 2}, {-3.0, 4.0}));
  const TensorValue value = TensorValue::parameter(Tensor(Shape{1, 1, 2}, {5.0, -2.0}));
  const llm::AttentionPass pass = scaled_dot_product_attention(query, key, value, Masking::None);
  SingleTokenEvidence evidence{value_of(pass.scores), value_of(pass.weights),
                               value_of(pass.output)};
  total(pass.output).backward();
  evidence.query_gradient_zero = all_zero(*query.gradient());
  evidence.key_gradient_zero = all_zero(*key.gradient());
  return evidence;
}

// region: shape-fixture
ShapeEvidence shape_evidence() {
  const auto constant = [](const Shape& shape, std::vector<double> values) {
    return TensorValue::constant(Tensor(shape, std::move(values)));
  };
  const auto pass = [](const TensorValue& q, const TensorValue& k, const TensorValue& v) {
    return scaled_dot_product_attention(q, k, v, Masking::None);
  };
  // Two different sequences in one batch [2, 2, 2]: sequence 0 is the worked
  // example, sequence 1 has the asymmetric query.
  std::vector<double> queries(kQuery.begin(), kQuery.end());
  queries.insert(queries.end(), kAsymmetricQuery.begin(), kAsymmetricQuery.end());
  std::vector<double> keys(kKey.begin(), kKey.end()), values(kValue.begin(), kValue.end());
  keys.insert(keys.end(), kKey.begin(), kKey.end());
  values.insert(values.end(), kValue.begin(), kValue.end());
  const TensorValue q = constant({2, 2, 2}, queries), k = constant({2, 2, 2}, keys),
                    v = constant({2, 2, 2}, values);
  const llm::AttentionPass batch = pass(q, k, v);
  const Tensor together = value_of(batch.output);
  const Shape one{1, 2, 2};
  const std::vector<double> key_row(kKey.begin(), kKey.end()),
      value_row(kValue.begin(), kValue.end());
  bool isolated = true;
  for (std::size_t b = 0; b < 2; ++b) {
    const std::array<double, 4>& query = b == 0 ? kQuery : kAsymmetricQuery;
    const Tensor alone = value_of(pass(constant(one, {query.begin(), query.end()}),
                                       constant(one, key_row), constant(one, value_row))
                                      .output);
    const Tensor slice = together.view().slice(0, b, b + 1).materialize();
    isolated = isolated && bits_of(slice) == bits_of(alone);
  }
  const llm::AttentionPass empty =
      pass(constant({0, 2, 2}, {}), constant({0, 2, 2}, {}), constant({0, 2, 3}, {}));
  const llm::AttentionPass narrow = pass(constant(one, {kQuery.begin(), kQuery.end()}),
                                         constant(one, key_row), constant({1, 2, 1}, {2.0, 4.0}));
  return {q.shape(),
          k.shape(),
          v.shape(),
          batch.weights.shape(),
          batch.output.shape(),
          isolated,
          empty.weights.shape(),
          empty.output.shape(),
          narrow.output.shape()};
}
// endregion: shape-fixture

// region: attention-refusals
std::vector<Refusal> refusal_evidence() {
  using Kind = llm::AttentionErrorKind;
  const auto zeros = [](const Shape& shape) { return TensorValue::constant(Tensor::zeros(shape)); };
  const TensorValue ok = zeros({1, 2, 2});
  struct Case {
    const char* name;
    Kind expected;
    std::function<void()> call;
  };
  const auto attend = [](const TensorValue& q, const TensorValue& k, const TensorValue& v) {
    scaled_dot_product_attention(q, k, v, Masking::None);
  };
  const Case cases[] = {
      {"query_rank", Kind::OperandRank,
       [&] {
         attend(zeros({2, 2}), ok, ok);
       }},
      {"batch", Kind::BatchMismatch,
       [&] {
         attend(ok, zeros({2, 2, 2}), ok);
       }},
      {"tokens", Kind::KeyValueTokenMismatch,
       [&] {
         attend(ok, zeros({1, 3, 2}), ok);
       }},
      {"empty", Kind::EmptyKeys,
       [&] {
         attend(zeros({1, 0, 2}), zeros({1, 0, 2}), zeros({1, 0, 2}));
       }},
      {"width", Kind::QueryKeyWidthMismatch,
       [&] {
         attend(ok, zeros({1, 2, 3}), ok);
       }},
  };
  std::vector<Refusal> refusals;
  for (const Case& c : cases) {
    // Caught as an AttentionError, and rejected only with the expected kind.
    refusals.push_back(demo::kind_refusal<llm::AttentionError>(
        c.name, llm::AttentionError::kind_name_of(c.expected), c.call));
  }
  return refusals;
}
// endregion: attention-refusals

// region: attention-gradcheck
namespace {

// sum_{i,c} O[i][c] * Obar[i][c] for one sequence of two tokens, with
// attention written as plain loops: nothing here touches the tape.
double attention_objective(const Tensor& q, const Tensor& k, const Tensor& v,
                           const Tensor& upstream) {
  const std::span<const double> Q = q.values(), K = k.values(), V = v.values(),
                                G = upstream.values();
  const double scale = 1.0 / std::sqrt(2.0);
  double total = 0.0;
  for (std::size_t i = 0; i < 2; ++i) {
    double s[2];
    for (std::size_t j = 0; j < 2; ++j)
      s[j] = (Q[i * 2] * K[j * 2] + Q[i * 2 + 1] * K[j * 2 + 1]) * scale;
    const double m = std::fmax(s[0], s[1]);
    const double e0 = std::exp(s[0] - m), e1 = std::exp(s[1] - m);
    const double p[2] = {e0 / (e0 + e1), e1 / (e0 + e1)};
    for (std::size_t c = 0; c < 2; ++c) total += (p[0] * V[c] + p[1] * V[2 + c]) * G[i * 2 + c];
  }
  return total;
}

}  // namespace

GradientCheckEvidence gradient_check_evidence(const AttentionEvidence& primary) {
  // Every coordinate of Q, K and V moved in turn: chapters/common/demo_attention_check.hpp.
  return demo::attention_gradient_check(primary, attention_objective, kGradcheckStep,
                                        kGradcheckTolerance);
}
// endregion: attention-gradcheck

bool replays_bitwise() {
  return demo::replays_bitwise([] { return attention_evidence(kQuery, kUpstream); });
}

}  // namespace ch27
