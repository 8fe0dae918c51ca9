// The worked examples of chapter 25.
#include "fixtures.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <utility>

#include "demo_refusal.hpp"
#include "llm/autograd/elementwise_ops.hpp"
#include "llm/autograd/gradcheck.hpp"
#include "llm/nn/rms_norm.hpp"
#include "llm/nn/splitmix64.hpp"
#include "llm/training/adamw.hpp"

namespace ch25 {

namespace {

llm::Tensor row_of(const std::array<double, 2>& values) {
  return llm::Tensor(llm::Shape{2}, {values[0], values[1]});
}

llm::Tensor value_of(const llm::TensorValue& node) {
  return node.value().materialize();
}

std::vector<double> values_of(const llm::Tensor& tensor) {
  return {tensor.values().begin(), tensor.values().end()};
}

// A layer whose gain is a fresh parameter holding `gain`.
llm::RmsNorm layer_with_gain(const llm::Tensor& gain, double epsilon) {
  return llm::RmsNorm(llm::TensorValue::parameter(gain), epsilon);
}

// Reverses `output` from `upstream` and reads what the pass left on x and g.
void reverse_into(NormPass& pass, const llm::TensorValue& output, const llm::TensorValue& input,
                  const llm::RmsNorm& layer) {
  pass.output = value_of(output);
  const llm::TensorBackwardTrace trace =
      output.backward_with_trace(pass.upstream, llm::Retention::Release);
  pass.tape_nodes = trace.nodes.size();
  pass.input_gradient = *input.gradient();
  pass.gain_gradient = *layer.gain().gradient();
}

}  // namespace

// region: rmsnorm-composed-fixture
NormPass composed_pass(const llm::Tensor& input, const llm::Tensor& gain,
                       const llm::Tensor& upstream) {
  const llm::RmsNorm layer = layer_with_gain(gain, kEpsilon);
  const llm::TensorValue x = llm::TensorValue::parameter(input);
  // mean_d x_d^2 -> + epsilon -> rsqrt -> x * r -> (x * r) * g, every node kept
  const llm::RmsNormPass nodes = layer.forward_with_intermediates(x);
  NormPass pass{.composed = true, .input = input, .gain = gain, .upstream = upstream};
  pass.mean_square = value_of(nodes.mean_square);
  pass.inverse_rms = value_of(nodes.inverse_rms);
  pass.normalized = value_of(nodes.normalized);
  reverse_into(pass, nodes.output, x, layer);
  return pass;
}

NormPass fused_pass(const llm::Tensor& input, const llm::Tensor& gain,
                    const llm::Tensor& upstream) {
  const llm::RmsNorm layer = layer_with_gain(gain, kEpsilon);
  const llm::TensorValue x = llm::TensorValue::parameter(input);
  NormPass pass{.input = input, .gain = gain, .upstream = upstream};
  reverse_into(pass, layer.forward(x), x, layer);  // one rms_norm node
  return pass;
}
// endregion: rmsnorm-composed-fixture

// region: rmsnorm-worked-fixture
WorkedEvidence worked_evidence() {
  WorkedEvidence evidence{.pass = composed_pass(row_of(kInput), row_of(kGain), row_of(kUpstream))};
  // The gain under its place in the decoder, and the optimizer's policy for it:
  // every name ending in `.gain` is kept out of weight decay (chapter 22).
  llm::ParameterSet model;
  model.add_all(kLayerPrefix, llm::RmsNorm::initialized(kGain.size(), kEpsilon).parameters());
  evidence.gain_name = model[0].name;
  const llm::AdamWParameterGroups groups = llm::AdamWParameterGroups::partition(
      model, [](std::string_view name) { return !name.ends_with(".gain"); });
  evidence.gain_excluded_from_decay =
      groups.decay_names().empty() && groups.no_decay_names() == std::vector{evidence.gain_name};
  // The normalized vector's mean square, in plain arithmetic: 1 only without epsilon.
  double sum = 0.0;
  for (double value : evidence.pass.normalized.values()) sum += value * value;
  evidence.normalized_mean_square = sum / static_cast<double>(evidence.pass.normalized.size());
  return evidence;
}
// endregion: rmsnorm-worked-fixture

// region: rmsnorm-scale-probe
namespace {

// The layer's own normalized values (gain one): x * rsqrt(m + epsilon), whose
// root the library computes as exp(-log(m + epsilon) / 2).
std::vector<double> normalized_by_library(const llm::Tensor& row, double epsilon) {
  const llm::RmsNorm layer = llm::RmsNorm::initialized(row.shape().back(), epsilon);
  return values_of(
      value_of(layer.forward_with_intermediates(llm::TensorValue::constant(row)).normalized));
}

// One row: the same mean square from the layer, then 1.0 / std::sqrt in
// plain arithmetic, outside the library: sqrt and the division are each
// correctly rounded.
std::vector<double> normalized_correctly_rounded(const llm::Tensor& row, double epsilon) {
  const llm::RmsNorm layer = llm::RmsNorm::initialized(row.shape().back(), epsilon);
  const llm::Tensor mean_square =
      value_of(layer.forward_with_intermediates(llm::TensorValue::constant(row)).mean_square);
  const double r = 1.0 / std::sqrt(mean_square.values()[0] + epsilon);
  std::vector<double> result = values_of(row);
  for (double& value : result) value *= r;
  return result;
}

std::vector<double> normalized(const llm::Tensor& row, double epsilon, InverseRoot how) {
  return how == InverseRoot::Library ? normalized_by_library(row, epsilon)
                                     : normalized_correctly_rounded(row, epsilon);
}

llm::Tensor times(const llm::Tensor& row, double factor) {
  llm::Tensor scaled = row;
  for (double& value : scaled.mutable_values()) value *= factor;
  return scaled;
}

}  // namespace

ScaleProbe scale_probe(const std::array<double, 2>& row, double epsilon, InverseRoot how) {
  ScaleProbe probe{.epsilon = epsilon, .factor = kScaleFactor, .row = {row.begin(), row.end()}};
  probe.base = normalized(row_of(row), epsilon, how);
  probe.scaled = normalized(times(row_of(row), kScaleFactor), epsilon, how);
  for (std::size_t i = 0; i < probe.base.size(); ++i)
    probe.max_abs_diff = std::max(probe.max_abs_diff, std::abs(probe.base[i] - probe.scaled[i]));
  return probe;
}
// endregion: rmsnorm-scale-probe

InvarianceCount invariance_count(double factor, std::size_t rows, std::uint64_t seed) {
  llm::SplitMix64 generator(seed);
  InvarianceCount count{.factor = factor, .rows = rows};
  const auto same_bits = [](const std::vector<double>& a, const std::vector<double>& b) {
    return std::ranges::equal(a, b, [](double x, double y) {
      return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y);
    });
  };
  for (std::size_t r = 0; r < rows; ++r) {
    llm::Tensor row = llm::Tensor::zeros(llm::Shape{4});
    for (double& value : row.mutable_values()) value = 2.0 * generator.next_unit() - 1.0;
    for (const InverseRoot how : {InverseRoot::Library, InverseRoot::CorrectlyRounded}) {
      const bool same =
          same_bits(normalized(row, 0.0, how), normalized(times(row, factor), 0.0, how));
      std::size_t& changed =
          how == InverseRoot::Library ? count.library_changed : count.correctly_rounded_changed;
      changed += same ? 0 : 1;
    }
    // The two roots of the same positive mean square, compared in units in
    // the last place: adjacent positive doubles have adjacent bit patterns.
    const llm::RmsNormPass nodes = llm::RmsNorm::initialized(4, 0.0).forward_with_intermediates(
        llm::TensorValue::constant(row));
    const double library_root = value_of(nodes.inverse_rms).values()[0];
    const double rounded_root = 1.0 / std::sqrt(value_of(nodes.mean_square).values()[0]);
    const std::uint64_t a = std::bit_cast<std::uint64_t>(library_root);
    const std::uint64_t b = std::bit_cast<std::uint64_t>(rounded_root);
    const std::uint64_t ulps = a > b ? a - b : b - a;
    count.roots_differ += ulps == 0 ? 0 : 1;
    count.largest_root_ulps = std::max(count.largest_root_ulps, ulps);
  }
  return count;
}

std::vector<EpsilonCurvePoint> epsilon_curve() {
  std::vector<EpsilonCurvePoint> curve;
  for (int quarter_decades = -26; quarter_decades <= 2; ++quarter_decades) {
    const llm::Tensor row = times(row_of(kInput), std::pow(10.0, quarter_decades / 4.0));
    const std::vector<double> n = normalized(row, kEpsilon, InverseRoot::Library);
    const double mean_square =
        (row.values()[0] * row.values()[0] + row.values()[1] * row.values()[1]) / 2.0;
    curve.push_back({std::sqrt(mean_square), (n[0] * n[0] + n[1] * n[1]) / 2.0});
  }
  return curve;
}

ZeroAndBatch zero_and_batch() {
  const llm::RmsNorm ones = llm::RmsNorm::initialized(2, kEpsilon);
  const llm::RmsNorm worked = layer_with_gain(row_of(kGain), kEpsilon);
  ZeroAndBatch result;
  result.zero_output =
      value_of(ones.forward(llm::TensorValue::constant(llm::Tensor::zeros(llm::Shape{2}))));
  // Two rows normalized independently: row 1 does not see row 0's mean square.
  result.batch_input = llm::Tensor(llm::Shape{2, 2}, {kInput[0], kInput[1], 0.0, 5.0});
  result.batch_output = value_of(worked.forward(llm::TensorValue::constant(result.batch_input)));
  return result;
}

// region: historical-normalization-contrast
namespace {

// BatchNorm's training statistics: feature by feature over the batch of two
// rows (anchor, companion), then the anchor's normalized row.
std::vector<double> batch_normalized_anchor(const std::array<double, 2>& anchor,
                                            const std::array<double, 2>& companion,
                                            double epsilon) {
  std::vector<double> out;
  for (std::size_t f = 0; f < anchor.size(); ++f) {
    const double mean = (anchor[f] + companion[f]) / 2.0;
    const double variance =
        ((anchor[f] - mean) * (anchor[f] - mean) + (companion[f] - mean) * (companion[f] - mean)) /
        2.0;
    out.push_back((anchor[f] - mean) / std::sqrt(variance + epsilon));
  }
  return out;
}

// LayerNorm's statistics: over the features of the one row.
std::vector<double> layer_normalized(const std::array<double, 2>& row, double epsilon) {
  const double mean = (row[0] + row[1]) / 2.0;
  const double variance =
      ((row[0] - mean) * (row[0] - mean) + (row[1] - mean) * (row[1] - mean)) / 2.0;
  return {(row[0] - mean) / std::sqrt(variance + epsilon),
          (row[1] - mean) / std::sqrt(variance + epsilon)};
}

}  // namespace

HistoryEvidence history_evidence() {
  HistoryEvidence h{.anchor = {1.0, 3.0}, .companion_a = {5.0, 7.0}, .companion_b = {1.0, 3.0}};
  h.batch_anchor_a = batch_normalized_anchor(h.anchor, h.companion_a, kEpsilon);
  h.batch_anchor_b = batch_normalized_anchor(h.anchor, h.companion_b, kEpsilon);
  h.layer_norm = layer_normalized(h.anchor, kEpsilon);
  h.rms_norm = normalized(row_of(h.anchor), 0.0, InverseRoot::Library);
  h.rms_mean = (h.rms_norm[0] + h.rms_norm[1]) / 2.0;
  return h;
}
// endregion: historical-normalization-contrast

std::vector<Refusal> refusals() {
  const llm::RmsNorm worked = layer_with_gain(row_of(kGain), kEpsilon);
  const llm::RmsNorm exact = layer_with_gain(row_of(kGain), 0.0);
  const auto forward = [](const llm::RmsNorm& layer, llm::Tensor input) {
    return [&layer, input = std::move(input)] { layer.forward(llm::TensorValue::constant(input)); };
  };
  std::vector<Refusal> result;
  const auto record = [&result]<class E>(const std::string& request, const E& error) {
    result.push_back({request, std::string(error.kind_name()), error.what()});
  };
  record("a rank-zero input", demo::refused<llm::DecoderOpError>(
                                  "rank zero", forward(worked, llm::Tensor::scalar(1.0))));
  record("three features for a gain of two",
         demo::refused<llm::DecoderOpError>(
             "width 3", forward(worked, llm::Tensor(llm::Shape{3}, {1.0, 2.0, 3.0}))));
  record("an all-zero row with epsilon 0",
         demo::refused<llm::DecoderOpError>("zero row",
                                            forward(exact, llm::Tensor::zeros(llm::Shape{2}))));
  record("a negative epsilon", demo::refused<llm::LayerError>("negative epsilon", [] {
           llm::RmsNorm::initialized(2, -kEpsilon);
         }));
  return result;
}

// region: rmsnorm-gradcheck
namespace {

// <RMSNorm(x; g, epsilon), u> for one row, in plain arithmetic: the check
// compares the tape's gradients with differences of a function the tape
// did not compute.
double projected_output(std::span<const double> x, std::span<const double> g,
                        std::span<const double> u) {
  double sum = 0.0;
  for (double value : x) sum += value * value;
  const double r = 1.0 / std::sqrt(sum / static_cast<double>(x.size()) + kEpsilon);
  double projection = 0.0;
  for (std::size_t j = 0; j < x.size(); ++j) projection += u[j] * (x[j] * r) * g[j];
  return projection;
}

}  // namespace

GradientCheckEvidence gradient_check_evidence() {
  const NormPass fused = fused_pass(row_of(kInput), row_of(kGain), row_of(kUpstream));
  const llm::Tensor gain = row_of(kGain);
  const llm::Tensor input = row_of(kInput);
  const llm::Tensor upstream = row_of(kUpstream);
  llm::Tensor input_probe = input;
  const llm::TensorGradientCheck input_check = llm::sampled_tensor_gradient_check(
      input_probe, fused.input_gradient.view(), kGradcheckStep, kGradcheckTolerance, kInput.size(),
      [&](const llm::Tensor& x) {
        return projected_output(x.values(), gain.values(), upstream.values());
      });
  llm::Tensor gain_probe = gain;
  const llm::TensorGradientCheck gain_check = llm::sampled_tensor_gradient_check(
      gain_probe, fused.gain_gradient.view(), kGradcheckStep, kGradcheckTolerance, kGain.size(),
      [&](const llm::Tensor& g) {
        return projected_output(input.values(), g.values(), upstream.values());
      });
  GradientCheckEvidence evidence{.input_checks = input_check.checks.size(),
                                 .gain_checks = gain_check.checks.size(),
                                 .passed = input_check.passed && gain_check.passed};
  for (const auto* report : {&input_check, &gain_check})
    for (const llm::CoordinateGradientCheck& check : report->checks)
      evidence.largest_scaled_error =
          std::max(evidence.largest_scaled_error, check.comparison.scaled_error);
  return evidence;
}
// endregion: rmsnorm-gradcheck

bool worked_pass_replays_bitwise() {
  const auto bits = [](const WorkedEvidence& e) {
    std::vector<std::uint64_t> all{std::bit_cast<std::uint64_t>(e.normalized_mean_square)};
    const NormPass& p = e.pass;
    for (const llm::Tensor* t : {&p.input, &p.mean_square, &p.inverse_rms, &p.normalized, &p.gain,
                                 &p.output, &p.upstream, &p.input_gradient, &p.gain_gradient}) {
      for (double value : t->values()) all.push_back(std::bit_cast<std::uint64_t>(value));
    }
    return all;
  };
  return bits(worked_evidence()) == bits(worked_evidence());
}

}  // namespace ch25
