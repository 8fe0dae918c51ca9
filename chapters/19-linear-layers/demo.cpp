// Chapter 19 demo: projects X [1, 2, 2] with W [2, 3] and b [3], checks one
// output against a single weighted unit, shows the same layer on a vector, a
// sequence and a batch, reverses it with a non-uniform upstream, names its
// parameters, draws a seeded layer, and lists the inputs it refuses. With
// --trace PATH it also writes each output's terms and each gradient's terms.
#include <bit>
#include <cmath>
#include <cstdint>
#include <exception>
#include <iostream>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "demo_text.hpp"
#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"

namespace {

using demo::Json;
using llm::format_fixed;
using llm::Tensor;
using llm::TensorValue;

std::string shape_list(const llm::Shape& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    text += (i == 0 ? "" : ",") + std::to_string(shape[i]);
  }
  return text + "]";
}

/// `2`, `-1`, `0.5`: a small value as a person writes it.
std::string number_text(double value) {
  if (value == std::floor(value)) return std::to_string(static_cast<long long>(value));
  return llm::format_shortest(value);
}

const char* flag(bool value) {
  return value ? "true" : "false";
}

bool same_bits(std::span<const double> a, std::span<const double> b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::bit_cast<std::uint64_t>(a[i]) != std::bit_cast<std::uint64_t>(b[i])) return false;
  }
  return true;
}

template <class ErrorType, class Call>
std::optional<ErrorType> refusal(Call&& call) {
  try {
    call();
  } catch (const ErrorType& error) {
    return error;
  }
  return std::nullopt;
}

Tensor value_of(const TensorValue& value) {
  return value.value().materialize();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const auto trace = demo::trace_path(argc, argv);

    // region: known-linear-forward
    const llm::Linear layer = ch19::known_linear(llm::Bias::Yes);
    llm::ParameterSet model;
    model.add_all(ch19::kPrefix, layer.parameters());  // token_projection.weight, .bias
    const TensorValue input = TensorValue::parameter(ch19::known_input());  // to read dX
    const TensorValue output = layer.forward(input);                        // [1, 2, 3]
    const llm::Linear bias_free = ch19::known_linear(llm::Bias::No);
    const TensorValue bias_free_output =
        bias_free.forward(TensorValue::constant(ch19::known_input()));
    // endregion: known-linear-forward

    const Tensor y = value_of(output);
    std::cout << "layer: " << ch19::kPrefix << " in=" << layer.input_width()
              << " out=" << layer.output_width() << " bias=" << flag(layer.bias().has_value())
              << " parameters=" << layer.parameter_count() << '\n';
    std::cout << "input: " << demo::tensor_text(ch19::known_input()) << '\n';
    std::cout << "weight: " << demo::tensor_text(value_of(layer.weight())) << '\n';
    std::cout << "bias: " << demo::tensor_text(value_of(*layer.bias())) << '\n';
    std::cout << "output: " << demo::tensor_text(y) << '\n';

    // region: rank-variants
    const TensorValue vector = TensorValue::constant(Tensor({2}, {1, 2}));
    const TensorValue sequence = TensorValue::constant(Tensor({2, 2}, {1, 2, -1, 3}));
    const llm::Shape vector_out = layer.forward(vector).shape();      // [3]
    const llm::Shape sequence_out = layer.forward(sequence).shape();  // [2, 3]
    // endregion: rank-variants
    std::cout << "rank variants: " << shape_list(vector.shape()) << "->" << shape_list(vector_out)
              << ' ' << shape_list(sequence.shape()) << "->" << shape_list(sequence_out) << ' '
              << shape_list(input.shape()) << "->" << shape_list(output.shape()) << '\n';

    // The first output by hand: position 0's inputs against column 0 of W, plus b[0].
    const Tensor x = ch19::known_input();
    const Tensor w = ch19::known_weight();
    const Tensor b = ch19::known_bias();
    const std::vector<double> first_inputs = {x.values()[0], x.values()[1]};
    const std::vector<double> first_column = {w.values()[0], w.values()[3]};
    const double unit = ch19::weighted_unit(first_inputs, first_column, b.values()[0]);
    std::cout << "historical unit: " << number_text(first_inputs[0]) << '*'
              << number_text(first_column[0]) << " + " << number_text(first_inputs[1]) << '*'
              << number_text(first_column[1]) << " + " << number_text(b.values()[0]) << " = "
              << format_fixed(unit) << " equals output[0]=" << flag(unit == y.values()[0]) << '\n';
    std::cout << "bias-free output: " << demo::tensor_text(value_of(bias_free_output)) << '\n';

    // region: linear-gradients
    const Tensor upstream = ch19::known_upstream();
    output.backward_with_seed(upstream, llm::Retention::Retain);
    const Tensor input_gradient = *input.gradient();            // dY W^T, [1, 2, 2]
    const Tensor weight_gradient = *layer.weight().gradient();  // X^T dY over rows, [2, 3]
    const Tensor bias_gradient = *layer.bias()->gradient();     // dY summed over rows, [3]
    // endregion: linear-gradients
    std::cout << "upstream: " << demo::tensor_text(upstream) << '\n';
    std::cout << "input gradient: " << demo::tensor_text(input_gradient) << '\n';
    std::cout << "weight gradient: " << demo::tensor_text(weight_gradient) << '\n';
    std::cout << "bias gradient: " << demo::tensor_text(bias_gradient) << '\n';

    std::cout << "parameter order: ";
    for (std::size_t i = 0; i < model.size(); ++i) std::cout << (i ? "," : "") << model[i].name;
    std::cout << '\n';
    std::cout << "bias policy: affine=" << layer.parameter_count()
              << " bias-free=" << bias_free.parameter_count() << '\n';

    // region: initialized-linear-layer
    llm::SplitMix64 first(19);
    llm::SplitMix64 second(19);
    const llm::Linear initialized = llm::Linear::initialized(2, 3, llm::Bias::Yes, first);
    const llm::Linear reproduced = llm::Linear::initialized(2, 3, llm::Bias::Yes, second);
    const bool reproducible =
        same_bits(value_of(initialized.weight()).values(), value_of(reproduced.weight()).values());
    const Tensor initial_bias = value_of(*initialized.bias());
    bool bias_zero = true;
    for (double v : initial_bias.values()) bias_zero = bias_zero && v == 0.0;
    const llm::Linear copy = initialized;  // a copy shares both parameters
    // endregion: initialized-linear-layer
    std::cout << "initialized: seed=19 weights-reproducible=" << flag(reproducible)
              << " bias-all-zero=" << flag(bias_zero) << '\n';
    std::cout << "identity: clone-shares-weight="
              << flag(copy.weight().is_same_node(initialized.weight()))
              << " clone-shares-bias=" << flag(copy.bias()->is_same_node(*initialized.bias()))
              << '\n';

    // region: linear-edge-cases
    const TensorValue empty_input = TensorValue::constant(Tensor::zeros(llm::Shape{0, 2}));
    const TensorValue empty_output = layer.forward(empty_input);  // [0, 3], no values
    const auto scalar = refusal<llm::LayerError>(
        [&] { layer.forward(TensorValue::constant(Tensor::scalar(1.0))); });
    const auto width = refusal<llm::LayerError>([&] {
      layer.forward(TensorValue::constant(Tensor::zeros(llm::Shape{1, 3})));
    });
    const auto bias = refusal<llm::LayerError>([] {
      llm::Linear(TensorValue::parameter(ch19::known_weight()),
                  TensorValue::parameter(Tensor::zeros(llm::Shape{2})));
    });
    // endregion: linear-edge-cases
    std::cout << "empty leading axis: shape=" << demo::shape_label(empty_input.shape()) << " -> "
              << demo::shape_label(empty_output.shape())
              << " value-count=" << empty_output.value().size() << '\n';
    std::cout << "errors: scalar="
              << flag(scalar && scalar->kind() == llm::LayerErrorKind::InputRank) << " width="
              << flag(width && width->kind() == llm::LayerErrorKind::InputWidthMismatch &&
                      width->expected() == 2 && width->actual() == 3)
              << " bias="
              << flag(bias && bias->kind() == llm::LayerErrorKind::BiasWidthMismatch &&
                      bias->expected() == 3 && bias->actual() == 2)
              << '\n';
    std::cout << "chapter 20 handoff: compose bias-free projections around a SwiGLU gate\n";

    if (trace) {
      const TensorValue batch = TensorValue::constant(Tensor::zeros(llm::Shape{2, 4, 5, 2}));
      Json variants = Json::array();
      for (const TensorValue* in : {&vector, &sequence, &input, &batch, &empty_input}) {
        variants.push_back({{"input", in->shape()}, {"output", layer.forward(*in).shape()}});
      }
      Json errors = Json::array();
      for (const auto* error : {&*scalar, &*width, &*bias}) {
        errors.push_back({{"kind", error->kind_name()}, {"message", error->what()}});
      }
      demo::write_trace(trace,
                        Json{{"input", demo::tensor_json(x)},
                             {"weight", demo::tensor_json(w)},
                             {"bias", demo::tensor_json(b)},
                             {"output", demo::tensor_json(y)},
                             {"bias_free_output", demo::tensor_json(value_of(bias_free_output))},
                             {"upstream", demo::tensor_json(upstream)},
                             {"input_gradient", demo::tensor_json(input_gradient)},
                             {"weight_gradient", demo::tensor_json(weight_gradient)},
                             {"bias_gradient", demo::tensor_json(bias_gradient)},
                             {"variants", variants},
                             {"parameter_count", layer.parameter_count()},
                             {"bias_free_parameter_count", bias_free.parameter_count()},
                             {"errors", errors}});
    }
    return 0;
  } catch (const std::exception& error) {
    std::cerr << "chapter 19 demo failed: " << error.what() << '\n';
    return 1;
  }
}
