// The worked examples of chapter 26.
#include "fixtures.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <optional>
#include <span>
#include <utility>

#include "demo_refusal.hpp"
#include "llm/attention/qkv_projections.hpp"
#include "llm/autograd/gradcheck.hpp"
#include "llm/nn/splitmix64.hpp"

namespace ch26 {

namespace {

llm::Tensor tensor_of(const llm::Shape& shape, std::span<const double> values) {
  return llm::Tensor(shape, {values.begin(), values.end()});
}

llm::Tensor value_of(const llm::TensorValue& node) {
  return node.value().materialize();
}

// A bias-free projection whose weight [D, Dh] is a fresh parameter.
llm::Linear projection(const llm::Tensor& weight) {
  return llm::Linear(llm::TensorValue::parameter(weight), std::nullopt);
}

llm::QkvProjections layer_of(const Weights& w) {
  const llm::Shape shape{3, 2};
  return llm::QkvProjections(projection(tensor_of(shape, w.query)),
                             projection(tensor_of(shape, w.key)),
                             projection(tensor_of(shape, w.value)));
}

Weights chapter_weights() {
  return {kQueryWeight, kKeyWeight, kValueWeight};
}

Upstreams chapter_upstreams() {
  return {{kQueryUpstream.begin(), kQueryUpstream.end()},
          {kKeyUpstream.begin(), kKeyUpstream.end()},
          {kValueUpstream.begin(), kValueUpstream.end()}};
}

// Every element of `value` added into one rank-zero node.
llm::TensorValue total(const llm::TensorValue& value) {
  return value.reshape(llm::Shape{value.value().size()}).sum_axis(0);
}

bool same_bits(const llm::Tensor& a, const llm::Tensor& b) {
  return a.shape() == b.shape() &&
         std::ranges::equal(a.values(), b.values(), [](double x, double y) {
           return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y);
         });
}

}  // namespace

// region: qkv-fixture
ProjectionPass projection_pass(const llm::Tensor& input, const Weights& weights,
                               const Upstreams& upstreams) {
  const llm::QkvProjections layer = layer_of(weights);
  const llm::TensorValue x = llm::TensorValue::parameter(input);
  const llm::QkvPass pass = layer.forward(x);  // three [B, T, 2] projections of one input
  const llm::Shape out = pass.query.shape();
  const llm::Tensor u_q = tensor_of(out, upstreams.query);
  const llm::Tensor u_k = tensor_of(out, upstreams.key);
  const llm::Tensor u_v = tensor_of(out, upstreams.value);
  // L = <Q, U_Q> + <K, U_K> + <V, U_V>: its adjoint at Q is U_Q, at K is U_K, at V is U_V.
  const llm::TensorValue objective =
      total(pass.query.mul(llm::TensorValue::constant(u_q)))
          .add(total(pass.key.mul(llm::TensorValue::constant(u_k))))
          .add(total(pass.value.mul(llm::TensorValue::constant(u_v))));
  const double objective_value = objective.item();
  objective.backward();

  llm::ParameterSet model;
  model.add_all(kLayerPrefix, layer.parameters());
  std::vector<std::string> names;
  for (const llm::NamedParameter& entry : model) names.push_back(entry.name);
  return {input,
          value_of(layer.query().weight()),
          value_of(layer.key().weight()),
          value_of(layer.value().weight()),
          value_of(pass.query),
          value_of(pass.key),
          value_of(pass.value),
          u_q,
          u_k,
          u_v,
          objective_value,
          *x.gradient(),  // a parameter's stored gradient: zeros until a pass reaches it
          *layer.query().weight().gradient(),
          *layer.key().weight().gradient(),
          *layer.value().weight().gradient(),
          names,
          layer.parameter_count()};
}

ProjectionPass worked_pass() {
  return projection_pass(tensor_of({1, 2, 3}, kInput), chapter_weights(), chapter_upstreams());
}
// endregion: qkv-fixture

// region: qkv-branch-shares
BranchShares branch_shares() {
  // One branch at a time: the other two upstreams are zero, so the input's
  // adjoint is that branch's VJP alone, U W^T.
  const Upstreams u = chapter_upstreams();
  const std::vector<double> zero(u.query.size(), 0.0);
  const llm::Tensor input = tensor_of({1, 2, 3}, kInput);
  return {projection_pass(input, chapter_weights(), {u.query, zero, zero}).input_gradient,
          projection_pass(input, chapter_weights(), {zero, u.key, zero}).input_gradient,
          projection_pass(input, chapter_weights(), {zero, zero, u.value}).input_gradient};
}
// endregion: qkv-branch-shares

BatchEvidence batch_evidence() {
  std::vector<double> input(kInput.begin(), kInput.end());
  input.insert(input.end(), kSecondItem.begin(), kSecondItem.end());
  const Upstreams first = chapter_upstreams();
  const Upstreams second{{kSecondQueryUpstream.begin(), kSecondQueryUpstream.end()},
                         {kSecondKeyUpstream.begin(), kSecondKeyUpstream.end()},
                         {kSecondValueUpstream.begin(), kSecondValueUpstream.end()}};
  const auto joined = [](std::vector<double> a, const std::vector<double>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  const Upstreams both{joined(first.query, second.query), joined(first.key, second.key),
                       joined(first.value, second.value)};
  return {projection_pass(tensor_of({2, 2, 3}, input), chapter_weights(), both),
          projection_pass(tensor_of({1, 2, 3}, kInput), chapter_weights(), first),
          projection_pass(tensor_of({1, 2, 3}, kSecondItem), chapter_weights(), second)};
}

std::array<llm::Shape, 3> output_shapes(const llm::Shape& shape) {
  const llm::QkvPass pass =
      layer_of(chapter_weights()).forward(llm::TensorValue::constant(llm::Tensor::zeros(shape)));
  return {pass.query.shape(), pass.key.shape(), pass.value.shape()};
}

IndependenceEvidence independence_evidence() {
  Weights changed = chapter_weights();
  changed.query[0] = 2.0;  // W_Q[0, 0]: 1 -> 2
  const llm::TensorValue x = llm::TensorValue::constant(tensor_of({1, 2, 3}, kInput));
  const llm::QkvPass before = layer_of(chapter_weights()).forward(x);
  const llm::QkvPass after = layer_of(changed).forward(x);
  return {!same_bits(value_of(before.query), value_of(after.query)),
          same_bits(value_of(before.key), value_of(after.key)),
          same_bits(value_of(before.value), value_of(after.value))};
}

// region: qkv-initialization
InitializationEvidence initialization_evidence() {
  llm::SplitMix64 first(kSeed);
  llm::SplitMix64 second(kSeed);
  const llm::QkvProjections a = llm::QkvProjections::initialized(3, 2, first);
  const llm::QkvProjections b = llm::QkvProjections::initialized(3, 2, second);
  const std::array<llm::TensorValue, 3> weights{a.query().weight(), a.key().weight(),
                                                a.value().weight()};
  InitializationEvidence evidence{value_of(weights[0]), value_of(weights[1]), value_of(weights[2])};
  evidence.reproducible = first.state() == second.state() &&
                          same_bits(evidence.query_weight, value_of(b.query().weight())) &&
                          same_bits(evidence.key_weight, value_of(b.key().weight())) &&
                          same_bits(evidence.value_weight, value_of(b.value().weight()));
  evidence.independent = true;  // no node shared, no two weights equal
  for (std::size_t i = 0; i < weights.size(); ++i) {
    for (std::size_t j = i + 1; j < weights.size(); ++j) {
      evidence.independent = evidence.independent && !weights[i].is_same_node(weights[j]) &&
                             !same_bits(value_of(weights[i]), value_of(weights[j]));
    }
  }
  // A head width of 0 is refused (at the query, before any draw); the
  // generator must still be where it was.
  llm::SplitMix64 refused(kSeed);
  try {
    llm::QkvProjections::initialized(3, 0, refused);
  } catch (const llm::LayerError&) {
    evidence.transactional = refused.state() == llm::SplitMix64(kSeed).state();
  }
  return evidence;
}
// endregion: qkv-initialization

// region: qkv-refusals
ErrorEvidence error_evidence() {
  using llm::AttentionError;
  using llm::AttentionErrorKind;
  const llm::QkvProjections layer = layer_of(chapter_weights());
  const auto zeros = [](llm::Shape shape) {
    return llm::TensorValue::constant(llm::Tensor::zeros(std::move(shape)));
  };
  const auto blank = [](llm::Shape shape) {
    return projection(llm::Tensor::zeros(std::move(shape)));
  };
  ErrorEvidence evidence;
  const auto record = [&evidence](const std::string& request, const llm::Error& error) {
    evidence.refusals.push_back({request, std::string(error.kind_name()), error.what()});
  };

  const AttentionError rank = demo::refused<AttentionError>("rank two", [&] {
    layer.forward(zeros({2, 3}));
  });
  evidence.rank = rank.kind() == AttentionErrorKind::InputRank;
  record("an input [T, D] without its batch axis", rank);

  const AttentionError width = demo::refused<AttentionError>("width 4", [&] {
    layer.forward(zeros({1, 2, 4}));
  });
  evidence.width =
      width.kind() == AttentionErrorKind::InputWidthMismatch && width.evidence().expected == 3;
  record("four features for a model width of three", width);

  // Two shapes that differ in D (rows) and in Dh (columns): one kind, two evidences.
  const AttentionError model = demo::refused<AttentionError>("key [4, 2]", [&] {
    llm::QkvProjections(blank({3, 2}), blank({4, 2}), blank({3, 2}));
  });
  evidence.model_mismatch = model.kind() == AttentionErrorKind::ProjectionShapeMismatch &&
                            model.evidence().key_shape[0] != model.evidence().query_shape[0];
  record("a key weight [4, 2] beside [3, 2]", model);
  const AttentionError head = demo::refused<AttentionError>("key [3, 3]", [&] {
    llm::QkvProjections(blank({3, 2}), blank({3, 3}), blank({3, 2}));
  });
  evidence.head_mismatch = head.kind() == AttentionErrorKind::ProjectionShapeMismatch &&
                           head.evidence().key_shape[1] != head.evidence().query_shape[1];
  record("a key weight [3, 3] beside [3, 2]", head);

  // The layer names its weights itself; a name can only collide when a model
  // lists two layers under one prefix.
  llm::ParameterSet model_set;
  model_set.add_all(kLayerPrefix, layer.parameters());
  const llm::ParameterError duplicate = demo::refused<llm::ParameterError>("prefix twice", [&] {
    model_set.add_all(kLayerPrefix, layer_of(chapter_weights()).parameters());
  });
  evidence.duplicate_name =
      duplicate.kind() == llm::ParameterErrorKind::DuplicateName && model_set.size() == 3;
  record("a second layer under the same prefix", duplicate);

  const llm::Linear shared = blank({3, 2});
  const AttentionError shared_weight = demo::refused<AttentionError>("one weight twice", [&] {
    llm::QkvProjections(shared, shared, blank({3, 2}));
  });
  evidence.shared_weight = shared_weight.kind() == AttentionErrorKind::SharedProjectionWeight;
  record("one weight node as both query and key", shared_weight);

  const llm::Linear biased(llm::TensorValue::parameter(llm::Tensor::zeros({3, 2})),
                           llm::TensorValue::parameter(llm::Tensor::zeros({2})));
  const AttentionError bias = demo::refused<AttentionError>("a bias", [&] {
    llm::QkvProjections(biased, blank({3, 2}), blank({3, 2}));
  });
  evidence.bias = bias.kind() == AttentionErrorKind::ProjectionBias;
  record("a query projection with a bias", bias);
  return evidence;
}
// endregion: qkv-refusals

WideProductEvidence wide_product_evidence() {
  constexpr std::size_t batch = 2, tokens = 5, width = 16, head = 8;
  llm::SplitMix64 generator(kSeed);
  const auto draw = [&generator](llm::Shape shape) {
    llm::Tensor t = llm::Tensor::zeros(std::move(shape));
    for (double& value : t.mutable_values()) value = 2.0 * generator.next_unit() - 1.0;
    return t;
  };
  const llm::Tensor input = draw({batch, tokens, width});
  const std::array<llm::Tensor, 3> weights{draw({width, head}), draw({width, head}),
                                           draw({width, head})};
  // [W_Q | W_K | W_V]: row i of the wide weight is row i of each, side by side.
  llm::Tensor wide = llm::Tensor::zeros({width, 3 * head});
  for (std::size_t i = 0; i < width; ++i)
    for (std::size_t role = 0; role < 3; ++role)
      for (std::size_t j = 0; j < head; ++j)
        wide.mutable_values()[i * 3 * head + role * head + j] =
            weights[role].values()[i * head + j];

  const llm::QkvProjections layer(projection(weights[0]), projection(weights[1]),
                                  projection(weights[2]));
  const llm::TensorValue x = llm::TensorValue::constant(input);
  const llm::QkvPass pass = layer.forward(x);
  const llm::Tensor joint = value_of(x.matmul(llm::TensorValue::constant(wide)));
  const std::array<llm::Tensor, 3> separate{value_of(pass.query), value_of(pass.key),
                                            value_of(pass.value)};
  WideProductEvidence evidence{input.shape(), wide.shape()};
  for (std::size_t row = 0; row < batch * tokens; ++row) {
    for (std::size_t role = 0; role < 3; ++role) {
      for (std::size_t j = 0; j < head; ++j) {
        const double a = joint.values()[row * 3 * head + role * head + j];
        const double b = separate[role].values()[row * head + j];
        ++evidence.compared;
        if (std::bit_cast<std::uint64_t>(a) != std::bit_cast<std::uint64_t>(b))
          ++evidence.differing;
      }
    }
  }
  return evidence;
}

// region: historical-attention-source-contrast
AdditiveAttention additive_attention() {
  // Two features everywhere. The decoder state asks; the annotations are
  // scored and then mixed as they are: no separate value projection.
  const std::vector<double> s = {0.5, -1.0};
  const std::vector<std::vector<double>> h = {{1.0, 0.0}, {0.0, 1.0}, {1.0, 1.0}};
  const double W[2][2] = {{1.0, 0.5}, {-0.5, 1.0}};  // applied to the decoder state
  const double U[2][2] = {{0.5, -1.0}, {1.0, 0.5}};  // applied to each annotation
  const double v[2] = {1.0, -1.0};
  AdditiveAttention a{"decoder_state", "encoder_annotations", s};
  a.annotations = h;
  for (const std::vector<double>& annotation : h) {
    double score = 0.0;  // v^T tanh(W s + U h_j)
    for (std::size_t k = 0; k < 2; ++k) {
      const double hidden =
          W[k][0] * s[0] + W[k][1] * s[1] + U[k][0] * annotation[0] + U[k][1] * annotation[1];
      score += v[k] * std::tanh(hidden);
    }
    a.scores.push_back(score);
  }
  const double largest = *std::ranges::max_element(a.scores);
  double sum = 0.0;
  for (double score : a.scores) sum += std::exp(score - largest);
  a.context = {0.0, 0.0};
  for (std::size_t j = 0; j < h.size(); ++j) {
    a.weights.push_back(std::exp(a.scores[j] - largest) / sum);
    for (std::size_t k = 0; k < 2; ++k) a.context[k] += a.weights[j] * h[j][k];
  }
  return a;
}
// endregion: historical-attention-source-contrast

// region: qkv-gradcheck
namespace {

// <X W_Q, U_Q> + <X W_K, U_K> + <X W_V, U_V> for X [1, 2, 3] and weights
// [3, 2], in plain arithmetic, so the check does not compare the tape with itself.
double plain_objective(std::span<const double> x, std::span<const double> wq,
                       std::span<const double> wk, std::span<const double> wv) {
  const Upstreams u = chapter_upstreams();
  double total = 0.0;
  for (std::size_t t = 0; t < 2; ++t) {
    for (std::size_t j = 0; j < 2; ++j) {
      double q = 0.0, k = 0.0, v = 0.0;
      for (std::size_t i = 0; i < 3; ++i) {
        q += x[t * 3 + i] * wq[i * 2 + j];
        k += x[t * 3 + i] * wk[i * 2 + j];
        v += x[t * 3 + i] * wv[i * 2 + j];
      }
      total += q * u.query[t * 2 + j] + k * u.key[t * 2 + j] + v * u.value[t * 2 + j];
    }
  }
  return total;
}

}  // namespace

GradientCheckEvidence gradient_check_evidence() {
  const ProjectionPass pass = worked_pass();
  const std::span<const double> x = kInput, wq = kQueryWeight, wk = kKeyWeight, wv = kValueWeight;
  GradientCheckEvidence evidence{.passed = true};
  const auto check = [&](llm::Tensor probe, const llm::Tensor& analytic,
                         const std::function<double(std::span<const double>)>& objective) {
    const llm::TensorGradientCheck report = llm::sampled_tensor_gradient_check(
        probe, analytic.view(), kGradcheckStep, kGradcheckTolerance, probe.size(),
        [&](const llm::Tensor& p) { return objective(p.values()); });
    evidence.passed = evidence.passed && report.passed;
    for (const llm::CoordinateGradientCheck& c : report.checks)
      evidence.largest_scaled_error =
          std::max(evidence.largest_scaled_error, c.comparison.scaled_error);
    return report.checks.size();
  };
  evidence.input_checks = check(pass.input, pass.input_gradient,
                                [&](auto p) { return plain_objective(p, wq, wk, wv); });
  evidence.query_checks = check(pass.query_weight, pass.query_weight_gradient,
                                [&](auto p) { return plain_objective(x, p, wk, wv); });
  evidence.key_checks = check(pass.key_weight, pass.key_weight_gradient,
                              [&](auto p) { return plain_objective(x, wq, p, wv); });
  evidence.value_checks = check(pass.value_weight, pass.value_weight_gradient,
                                [&](auto p) { return plain_objective(x, wq, wk, p); });
  return evidence;
}
// endregion: qkv-gradcheck

bool worked_pass_replays_bitwise() {
  const ProjectionPass a = worked_pass();
  const ProjectionPass b = worked_pass();
  const auto tensors = [](const ProjectionPass& p) {
    return std::array<const llm::Tensor*, 11>{&p.input,
                                              &p.query_weight,
                                              &p.key_weight,
                                              &p.value_weight,
                                              &p.query,
                                              &p.key,
                                              &p.value,
                                              &p.input_gradient,
                                              &p.query_weight_gradient,
                                              &p.key_weight_gradient,
                                              &p.value_weight_gradient};
  };
  bool same =
      std::bit_cast<std::uint64_t>(a.objective) == std::bit_cast<std::uint64_t>(b.objective) &&
      a.parameter_names == b.parameter_names && a.parameter_count == b.parameter_count;
  for (std::size_t i = 0; i < 11; ++i) same = same && same_bits(*tensors(a)[i], *tensors(b)[i]);
  return same;
}

}  // namespace ch26
