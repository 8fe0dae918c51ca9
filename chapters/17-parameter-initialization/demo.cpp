// Chapter 17 demo: draws a seeded [2, 2] projection with the Xavier scale,
// shows that equal seeds reproduce it and another seed does not, shows the
// symmetry a zero start cannot break, names a model's parameters, and lists
// the requests an initializer refuses without touching the generator. With
// --trace PATH it also writes three [64, 64] distributions (zero, twice the
// Xavier limit, Xavier), their histograms, the variance they pass through
// four stacked layers, and the symmetry probe started from seeded weights.
#include <cmath>
#include <cstdint>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "demo_text.hpp"
#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"
#include "llm/tensor/matmul.hpp"
#include "llm/tensor/shape.hpp"

namespace {

using demo::Json;
using llm::format_fixed;
using llm::Tensor;

const char* flag(bool value) {
  return value ? "true" : "false";
}

bool same_values(const llm::SharedTensor& a, const llm::SharedTensor& b) {
  const Tensor left = a.materialize();
  const Tensor right = b.materialize();
  return left.shape() == right.shape() &&
         std::vector<double>(left.values().begin(), left.values().end()) ==
             std::vector<double>(right.values().begin(), right.values().end());
}

// --- The trace: distributions at width 64 ----------------------------------------

constexpr std::size_t kWidth = 64;
constexpr std::size_t kLayers = 4;
constexpr std::size_t kSignalRows = 256;

struct Statistics {
  double min = 0.0, max = 0.0, mean = 0.0, variance = 0.0;
};

Statistics statistics_of(const Tensor& tensor) {  // population, two passes
  Statistics s;
  const auto values = tensor.values();
  s.min = s.max = values[0];
  double sum = 0.0;
  for (double v : values) {
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
    sum += v;
  }
  s.mean = sum / static_cast<double>(values.size());
  double squares = 0.0;
  for (double v : values) squares += (v - s.mean) * (v - s.mean);
  s.variance = squares / static_cast<double>(values.size());
  return s;
}

// Nine bins of width 0.1 from -0.45 to 0.45, the last one closed.
std::vector<std::size_t> histogram(const Tensor& tensor, std::size_t& outside) {
  std::vector<std::size_t> counts(9, 0);
  outside = 0;
  for (double v : tensor.values()) {
    if (v < -0.45 || v > 0.45) {
      ++outside;
      continue;
    }
    auto bin = static_cast<std::size_t>(std::floor((v + 0.45) / 0.1));
    counts[std::min<std::size_t>(bin, 8)] += 1;
  }
  return counts;
}

Tensor scaled(const Tensor& tensor, double factor) {
  Tensor result = tensor;
  for (double& v : result.mutable_values()) v *= factor;
  return result;
}

Json distribution_json(const std::string& kind, const Tensor& weights, double limit,
                       const Tensor& signal) {
  const Statistics s = statistics_of(weights);
  std::size_t outside = 0;
  const std::vector<std::size_t> counts = histogram(weights, outside);
  // Expected variance through the layers: Var(h_{l+1}) = fan_in Var(W) Var(h_l),
  // with Var(W) the target of U(-limit, limit), limit^2 / 3.
  Json expected = Json::array();
  double variance = 1.0;
  for (std::size_t layer = 0; layer <= kLayers; ++layer) {
    expected.push_back(variance);
    variance *= static_cast<double>(kWidth) * limit * limit / 3.0;
  }
  // Measured: push the signal through the same matrix kLayers times.
  Json measured = Json::array();
  Tensor h = signal;
  for (std::size_t layer = 0; layer <= kLayers; ++layer) {
    measured.push_back(statistics_of(h).variance);
    if (layer < kLayers) h = llm::matmul(h, weights);
  }
  return {{"kind", kind},
          {"limit", limit},
          {"min", s.min},
          {"max", s.max},
          {"mean", s.mean},
          {"variance", s.variance},
          {"counts", counts},
          {"outside", outside},
          {"expected_variances", expected},
          {"measured_variances", measured}};
}

Json trace_json(const ch17::SeededProjection& projection, const ch17::SymmetryProbe& zero,
                const ch17::SymmetryProbe& seeded, const llm::ParameterSet& model,
                const ch17::Refusals& refusals, const llm::XavierScale& scale) {
  const llm::XavierScale wide = llm::xavier_scale(kWidth, kWidth);
  llm::SplitMix64 generator(ch17::kSeed);
  const Tensor xavier = llm::xavier_uniform(kWidth, kWidth, generator);
  // The signal: unit-variance uniform rows, U(-sqrt 3, sqrt 3), from seed 99.
  llm::SplitMix64 signal_generator(99);
  const Tensor raw = llm::xavier_uniform(kSignalRows, kWidth, signal_generator);
  const double raw_limit = llm::xavier_scale(kSignalRows, kWidth).uniform_limit;
  const Tensor signal = scaled(raw, std::sqrt(3.0) / raw_limit);

  Json distributions = Json::array();
  distributions.push_back(
      distribution_json("zero", Tensor::zeros(llm::Shape{kWidth, kWidth}), 0.0, signal));
  distributions.push_back(
      distribution_json("oversized", scaled(xavier, 2.0), 2.0 * wide.uniform_limit, signal));
  distributions.push_back(distribution_json("xavier", xavier, wide.uniform_limit, signal));

  Json parameters = Json::array();
  for (const llm::NamedParameter& entry : model) {
    parameters.push_back({{"name", entry.name}, {"shape", entry.parameter.shape()}});
  }
  Json errors = Json::array();
  for (std::size_t i = 0; i < refusals.kinds.size(); ++i) {
    errors.push_back({{"kind", refusals.kinds[i]}, {"message", refusals.messages[i]}});
  }
  llm::SplitMix64 alternate(ch17::kAlternateSeed);
  return {{"seed", ch17::kSeed},
          {"scale",
           {{"fan_in", scale.fan_in},
            {"fan_out", scale.fan_out},
            {"target_variance", scale.target_variance},
            {"standard_deviation", scale.standard_deviation},
            {"uniform_limit", scale.uniform_limit}}},
          {"weights", demo::tensor_json(projection.weight.value().materialize())},
          {"alternate_weights", demo::tensor_json(llm::xavier_uniform(2, 2, alternate))},
          {"width", kWidth},
          {"width_scale",
           {{"target_variance", wide.target_variance}, {"uniform_limit", wide.uniform_limit}}},
          {"signal_rows", kSignalRows},
          {"distributions", distributions},
          {"zero_probe",
           {{"output", zero.output},
            {"gradient", demo::tensor_json(zero.first_layer_gradient)},
            {"columns_equal", zero.columns_equal}}},
          {"seeded_probe",
           {{"output", seeded.output},
            {"gradient", demo::tensor_json(seeded.first_layer_gradient)},
            {"columns_equal", seeded.columns_equal}}},
          {"parameters", parameters},
          {"errors", errors},
          {"generator_unchanged", refusals.generator_unchanged}};
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const auto trace = demo::trace_path(argc, argv);

    // region: demo-seeded-projection
    const llm::XavierScale scale = llm::xavier_scale(2, 2);
    ch17::SeededProjection projection = ch17::seeded_projection(ch17::kSeed);
    const ch17::SeededProjection again = ch17::seeded_projection(ch17::kSeed);
    const ch17::SeededProjection alternate = ch17::seeded_projection(ch17::kAlternateSeed);
    // endregion: demo-seeded-projection

    std::cout << "seed: " << ch17::kSeed << '\n';
    std::cout << "projection: shape=" << demo::shape_label(projection.weight.shape())
              << " fan_in=" << scale.fan_in << " fan_out=" << scale.fan_out << '\n';
    std::cout << "target variance: " << format_fixed(scale.target_variance) << '\n';
    std::cout << "uniform limit: " << format_fixed(scale.uniform_limit) << '\n';
    std::cout << "weights: " << demo::values_text(projection.weight.value().materialize()) << '\n';
    std::cout << "same seed reproduces: "
              << flag(same_values(projection.weight.value(), again.weight.value())) << '\n';
    std::cout << "different seed differs: "
              << flag(!same_values(projection.weight.value(), alternate.weight.value())) << '\n';

    const ch17::SymmetryProbe zero = ch17::symmetry_probe(Tensor::zeros(llm::Shape{2, 2}));
    std::cout << "zero symmetry: output=" << format_fixed(zero.output)
              << " columns-equal=" << flag(zero.columns_equal)
              << " gradient=" << demo::values_text(zero.first_layer_gradient) << '\n';
    const ch17::SymmetryProbe seeded =
        ch17::symmetry_probe(projection.weight.value().materialize());

    // region: demo-named-parameters
    llm::ParameterSet model = projection.parameters;  // copies share the parameters
    llm::add_xavier_uniform(model, "token_embedding.weight", 4, 2, projection.generator);
    const llm::ParameterSet copy = model;
    const bool clone_same_node = copy[0].parameter.is_same_node(model[0].parameter);
    const bool recreated_same_node = again.weight.is_same_node(model[0].parameter);
    // endregion: demo-named-parameters

    std::cout << "parameters: ";
    for (std::size_t i = 0; i < model.size(); ++i) {
      std::cout << (i == 0 ? "" : " | ") << model[i].name << '['
                << demo::shape_label(model[i].parameter.shape()) << ']';
    }
    std::cout << '\n';
    std::cout << "identity: clone-same-node=" << flag(clone_same_node)
              << " recreated-same-node=" << flag(recreated_same_node) << '\n';

    const ch17::Refusals refusals = ch17::refused_requests(model, projection.generator);
    std::cout << "validation: " << refusals.kinds.at(0) << " | " << refusals.kinds.at(1) << " | "
              << refusals.kinds.at(2) << "; rng-unchanged=" << flag(refusals.generator_unchanged)
              << '\n';
    std::cout << "chapter 18 handoff: initialize a trainable token table\n";

    demo::write_trace(trace, trace_json(projection, zero, seeded, model, refusals, scale));
    return 0;
  } catch (const std::exception& error) {
    std::cerr << "chapter 17 demo failed: " << error.what() << '\n';
    return 1;
  }
}
