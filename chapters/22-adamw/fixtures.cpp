// The worked examples of chapter 22.
#include "fixtures.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <utility>

#include "llm/nn/init.hpp"

namespace ch22 {

namespace {

llm::TensorValue parameter(std::vector<double> values) {
  const std::size_t n = values.size();
  return llm::TensorValue::parameter(llm::Tensor(llm::Shape{n}, std::move(values)));
}

// Adds `gradient` to the parameter's stored gradient: a reverse pass that
// starts at the parameter itself with that seed.
void add_gradient(const llm::TensorValue& parameter, std::vector<double> gradient) {
  const std::size_t n = gradient.size();
  parameter.backward_with_seed(llm::Tensor(llm::Shape{n}, std::move(gradient)),
                               llm::Retention::Retain);
}

std::vector<double> values_of(const llm::TensorValue& parameter) {
  const llm::Tensor value = parameter.value().materialize();
  return {value.values().begin(), value.values().end()};
}

std::vector<std::uint64_t> bits_of(std::span<const double> values) {
  std::vector<std::uint64_t> bits;
  for (double value : values) bits.push_back(std::bit_cast<std::uint64_t>(value));
  return bits;
}

// Everything a failed step must leave alone: value and gradient bits, and the version.
struct ParameterState {
  std::vector<std::uint64_t> value_bits, gradient_bits;
  std::uint64_t version;
  bool operator==(const ParameterState&) const = default;
};

std::vector<ParameterState> state_of(const llm::ParameterSet& set) {
  std::vector<ParameterState> states;
  for (const llm::NamedParameter& entry : set) {
    states.push_back({bits_of(values_of(entry.parameter)),
                      bits_of(entry.parameter.gradient()->values()), entry.parameter.version()});
  }
  return states;
}

}  // namespace

llm::AdamWConfig chapter_config() {
  return llm::AdamWConfig::create(kLearningRate, kBeta1, kBeta2, kEpsilon, kWeightDecay);
}

DecayDomain decay_domain() {
  const auto rejected = [](double learning_rate, double weight_decay) {
    try {
      llm::AdamWConfig::create(learning_rate, kBeta1, kBeta2, kEpsilon, weight_decay);
    } catch (const llm::AdamWError& error) {
      return error.kind() == llm::AdamWErrorKind::InvalidDecayProduct;
    }
    return false;
  };
  return {rejected(0.5, 2.0), rejected(0.5, 4.0),
          rejected(std::numeric_limits<double>::min(), std::bit_cast<double>(std::uint64_t{1}))};
}

// region: chapter-adamw-fixture
NamedStepEvidence named_step_evidence() {
  const llm::TensorValue weight = parameter({1.0, -2.0});
  const llm::TensorValue scale = parameter({0.5});
  llm::ParameterSet parameters;
  parameters.add("decoder.output.weight", weight);
  parameters.add("decoder.norm.scale", scale);
  add_gradient(weight, {0.2, -0.4});  // the scale's gradient stays zero
  llm::AdamW optimizer(chapter_config(), llm::AdamWParameterGroups::create(
                                             {"decoder.output.weight"}, {"decoder.norm.scale"}));

  NamedStepEvidence evidence;
  evidence.step = optimizer.step_with_trace(parameters);
  evidence.state_names = optimizer.parameter_names();
  evidence.raw_gradients_retained = true;
  evidence.parameter_nodes_preserved = true;
  const std::vector<llm::TensorValue> handles = {weight, scale};
  for (std::size_t i = 0; i < handles.size(); ++i) {
    const llm::AdamWParameterUpdate& update = evidence.step.updates[i];
    evidence.raw_gradients_retained =
        evidence.raw_gradients_retained &&
        bits_of(handles[i].gradient()->values()) == bits_of(update.gradient);
    evidence.parameter_nodes_preserved = evidence.parameter_nodes_preserved &&
                                         parameters[i].parameter.is_same_node(handles[i]) &&
                                         bits_of(values_of(handles[i])) == bits_of(update.after);
  }

  // A fresh decay-group parameter with a zero gradient: only decay moves it.
  llm::ParameterSet probe;
  probe.add("probe.weight", parameter({3.0}));
  evidence.zero_gradient_update = llm::AdamW(chapter_config()).step_with_trace(probe).updates[0];

  // The same optimizer offered one parameter too many must change nothing.
  llm::ParameterSet grown = parameters;
  grown.add("unexpected.weight", parameter({1.0}));
  const llm::AdamW optimizer_before = optimizer;
  const std::vector<ParameterState> before = state_of(grown);
  try {
    optimizer.step(grown);
  } catch (const llm::AdamWError& error) {
    evidence.changed_set_error = error.what();
  }
  evidence.changed_set_rolled_back = !evidence.changed_set_error.empty() &&
                                     optimizer == optimizer_before && state_of(grown) == before;
  return evidence;
}
// endregion: chapter-adamw-fixture

// region: anisotropic-trajectory
std::vector<TrajectoryPoint> anisotropic_trajectory() {
  constexpr std::array<double, 2> kCurvature = {1.0, 4.0};  // q(x, y) = (x^2 + 4 y^2) / 2
  std::array<double, 2> sgd = {1.0, 1.0};
  const llm::TensorValue point = parameter({1.0, 1.0});
  llm::ParameterSet parameters;
  parameters.add("trajectory.weight", point);
  llm::AdamW optimizer(chapter_config());
  std::vector<TrajectoryPoint> path = {{sgd, {1.0, 1.0}}};
  for (int step = 1; step <= 4; ++step) {
    for (std::size_t axis = 0; axis < 2; ++axis)
      sgd[axis] -= kLearningRate * (kCurvature[axis] * sgd[axis]);
    const std::vector<double> current = values_of(point);
    add_gradient(point, {kCurvature[0] * current[0], kCurvature[1] * current[1]});
    optimizer.step(parameters);
    parameters.zero_grad();  // AdamW keeps the gradient; the loop clears it
    const std::vector<double> next = values_of(point);
    path.push_back({sgd, {next[0], next[1]}});
  }
  return path;
}
// endregion: anisotropic-trajectory

// region: asymmetric-betas
llm::AdamWParameterUpdate asymmetric_second_step(double beta1, double beta2) {
  const llm::TensorValue weight = parameter({1.0, -2.0});
  llm::ParameterSet parameters;
  parameters.add("decoder.output.weight", weight);
  llm::AdamW optimizer(
      llm::AdamWConfig::create(kLearningRate, beta1, beta2, kEpsilon, kWeightDecay));
  llm::AdamWStep step;
  for (const std::array<double, 2>& gradient : kAsymmetricGradients) {
    add_gradient(weight, {gradient[0], gradient[1]});
    step = optimizer.step_with_trace(parameters);
    parameters.zero_grad();
  }
  return step.updates[0];
}
// endregion: asymmetric-betas

// region: zero-gradient-after-history
ZeroGradientAfterHistory zero_gradient_after_history() {
  const llm::TensorValue weight = parameter({1.0, -2.0});
  llm::ParameterSet parameters;
  parameters.add("decoder.output.weight", weight);
  llm::AdamW optimizer(chapter_config());
  ZeroGradientAfterHistory result;
  add_gradient(weight, {0.2, -0.4});
  result.first = optimizer.step_with_trace(parameters).updates[0];
  parameters.zero_grad();  // step 2 sees a zero gradient, but m and v remember step 1
  result.second = optimizer.step_with_trace(parameters).updates[0];
  for (double value : result.first.after)
    result.pure_decay.push_back(value - chapter_config().decay_product() * value);
  return result;
}
// endregion: zero-gradient-after-history

CorrectionRoundTrip correction_round_trip(double beta1, double beta2) {
  llm::SplitMix64 generator(kRoundTripSeed);
  std::vector<double> gradient(kRoundTripCount);
  for (double& g : gradient) g = 2.0 * generator.next_unit() - 1.0;
  const llm::TensorValue weight = parameter(std::vector<double>(kRoundTripCount, 1.0));
  llm::ParameterSet parameters;
  parameters.add("round_trip.weight", weight);
  add_gradient(weight, gradient);
  llm::AdamW optimizer(llm::AdamWConfig::create(kLearningRate, beta1, beta2, kEpsilon, 0.0));
  const llm::AdamWParameterUpdate update = optimizer.step_with_trace(parameters).updates[0];
  CorrectionRoundTrip result{beta1, beta2, kRoundTripCount};
  const auto ulps = [](double a, double b) {
    const std::uint64_t x = std::bit_cast<std::uint64_t>(a), y = std::bit_cast<std::uint64_t>(b);
    return x > y ? x - y : y - x;  // same sign here: both are g or both are g^2
  };
  for (std::size_t i = 0; i < kRoundTripCount; ++i) {
    const double g = update.gradient[i];
    const std::uint64_t first = ulps(update.corrected_first_moment[i], g);
    const std::uint64_t second = ulps(update.corrected_second_moment[i], g * g);
    result.first_differ += first != 0 ? 1 : 0;
    result.second_differ += second != 0 ? 1 : 0;
    result.largest_ulps = std::max({result.largest_ulps, first, second});
  }
  return result;
}

DecayParameterization decay_parameterization() {
  DecayParameterization result;
  result.learning_rate = kLearningRate;
  result.halved_learning_rate = kLearningRate / 2;
  result.book_decay = chapter_config().decay_product();
  result.book_decay_halved =
      llm::AdamWConfig::create(result.halved_learning_rate, kBeta1, kBeta2, kEpsilon, kWeightDecay)
          .decay_product();
  // Algorithm 2 with eta_t = 1 and alpha = eta decays by eta_t * lambda per
  // step; choosing their lambda = eta * lambda_book gives the same first step.
  constexpr double kScheduleMultiplier = 1.0;
  result.lh_weight_decay = result.book_decay;
  result.lh_decay = kScheduleMultiplier * result.lh_weight_decay;
  result.lh_decay_halved = kScheduleMultiplier * result.lh_weight_decay;  // alpha halved: unchanged
  return result;
}

// region: historical-optimizer-road
namespace {

// Two AdamW steps from `start`. With `couple_l2`, the penalty lambda * theta
// is added to the gradient (Adam with L2) and the decoupled decay is zero.
double two_adaptive_steps(double start, bool couple_l2) {
  const llm::AdamWConfig config = llm::AdamWConfig::create(kLearningRate, kBeta1, kBeta2, kEpsilon,
                                                           couple_l2 ? 0.0 : kWeightDecay);
  const llm::TensorValue theta = parameter({start});
  llm::ParameterSet parameters;
  parameters.add("history.weight", theta);
  llm::AdamW optimizer(config);
  for (double gradient : kHistoricalGradients) {
    const double current = values_of(theta)[0];
    add_gradient(theta, {couple_l2 ? gradient + kWeightDecay * current : gradient});
    optimizer.step(parameters);
    parameters.zero_grad();
  }
  return values_of(theta)[0];
}

}  // namespace

HistoricalUpdates historical_updates() {
  HistoricalUpdates result;
  result.sgd = 1.0;
  for (double gradient : kHistoricalGradients) result.sgd -= kLearningRate * gradient;
  result.momentum = 1.0;
  double velocity = 0.0;
  for (double gradient : kHistoricalGradients) {
    velocity = kMomentumRate * velocity + gradient;
    result.momentum -= kLearningRate * velocity;
  }
  result.adam_l2 = two_adaptive_steps(1.0, true);
  result.adamw = two_adaptive_steps(1.0, false);
  return result;
}
// endregion: historical-optimizer-road

}  // namespace ch22
