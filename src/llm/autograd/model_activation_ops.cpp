// Elementwise model operations of the tensor tape, each beside its VJP: exp,
// log and SiLU. Each output element depends on one input element only, so
// every VJP multiplies the upstream elementwise by a local derivative built
// from saved forward data. Taught in chapter 16.
#include <cmath>
#include <cstddef>
#include <span>
#include <utility>

#include "llm/autograd/model_ops.hpp"
#include "llm/autograd/recorder.hpp"
#include "llm/autograd/tensor_pass_support.hpp"
#include "llm/tensor/elementwise.hpp"
#include "llm/tensor/probability.hpp"

namespace llm {
namespace {

// rule(k, upstream[k]) for every row-major k: the contribution of an
// elementwise operation, whose upstream already has the operand's shape.
template <class LocalRule>
SharedTensor each_element(const SharedTensor& upstream, LocalRule&& rule) {
  Tensor result = upstream.materialize();
  std::span<double> values = result.mutable_values();
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = rule(k, values[k]);
  return result;
}

}  // namespace

// region: model-exp
TensorValue TensorValue::exp() const {
  // Saved context: the output itself, since (e^x)' = e^x. An overflow to
  // +inf is caught by record_operation() as NonFiniteResult naming exp.
  const SharedTensor input = value();
  const SharedTensor output = map_values(input, [](double x) { return std::exp(x); });
  // d/dx exp(x) = exp(x)
  auto times_output = [output](const SharedTensor& upstream) {
    return SharedTensor(llm::mul(upstream, output));
  };
  return record_operation(TensorOperation::Exp, output,
                          {*this, {"times saved output", times_output}});
}
// endregion: model-exp

// region: model-log
TensorValue TensorValue::log() const {
  // ln is -inf at 0 and undefined below: a domain error of this operation,
  // reported with the first offending coordinate before anything is computed.
  // Saved context: the positive input as one row-major block (shared with
  // its node unless the node holds a strided view).
  const SharedTensor input = value().contiguous();
  const std::span<const double> inputs = input.contiguous_values();
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (!(inputs[k] > 0.0)) {
      throw ModelOpError(ModelOpErrorKind::LogNonPositiveInput,
                         {.shape = input.shape(),
                          .coordinate = coordinate_from_offset(input.shape(), k),
                          .value = inputs[k]});
    }
  }
  Tensor result = map_values(input, [](double x) { return std::log(x); });
  // d/dx ln(x) = 1 / x
  auto over_input = [input](const SharedTensor& upstream) {
    const std::span<const double> x = input.contiguous_values();
    return each_element(upstream, [&](std::size_t k, double g) { return g / x[k]; });
  };
  return record_operation(TensorOperation::Log, std::move(result),
                          {*this, {"divide by saved input", over_input}});
}
// endregion: model-log

// region: model-silu
TensorValue TensorValue::silu() const {
  // stable_sigmoid never overflows, so silu(x) = x * sigmoid(x) is finite for
  // every finite x: -1000 gives -0, 1000 gives 1000.
  // Saved context: the input (shared) and sigmoid(x), so the VJP multiplies
  // instead of calling exp a second time for every element.
  const SharedTensor input = value().contiguous();
  const SharedTensor sigmoids = map_values(input, [](double x) { return stable_sigmoid(x); });
  Tensor result = llm::mul(input, sigmoids);  // x * sigmoid(x), element by element
  // d/dx x*sigmoid(x) = sigmoid(x) * (1 + x * (1 - sigmoid(x)))
  auto times_derivative = [input, sigmoids](const SharedTensor& upstream) {
    const std::span<const double> inputs = input.contiguous_values();
    const std::span<const double> sigmoid_values = sigmoids.contiguous_values();
    return each_element(upstream, [&](std::size_t k, double g) {
      const double x = inputs[k];
      const double sigmoid = sigmoid_values[k];
      return g * (sigmoid * (1.0 + x * (1.0 - sigmoid)));
    });
  };
  return record_operation(TensorOperation::Silu, std::move(result),
                          {*this, {"times sigmoid(x)(1 + x(1 - sigmoid(x)))", times_derivative}});
}
// endregion: model-silu

}  // namespace llm
