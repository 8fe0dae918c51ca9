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
#include "llm/tensor/kernel_output.hpp"
#include "llm/tensor/parallel.hpp"
#include "llm/tensor/probability.hpp"

namespace llm {
namespace {

// rule(k, upstream[k]) for every row-major k: the contribution of an
// elementwise operation, whose upstream already has the operand's shape.
// One pass: a contiguous upstream is read where it lies (else copied once),
// and long tensors are split among threads (each k is computed alone).
template <class LocalRule>
SharedTensor each_element(const SharedTensor& upstream, LocalRule&& rule) {
  const SharedTensor source = upstream.contiguous();
  const std::span<const double> in = source.contiguous_values();
  Tensor result = kernel_output(source.shape());
  std::span<double> out = result.mutable_values();
  parallel_pieces(in.size(), kMinimumPiece, [&](std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) out[k] = rule(k, in[k]);
  });
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
  const std::span<const double> xs = input.contiguous_values();
  Tensor sigmoid_of_x = kernel_output(input.shape());
  Tensor result = kernel_output(input.shape());
  const std::span<double> ss = sigmoid_of_x.mutable_values();
  const std::span<double> ys = result.mutable_values();
  // One pass writes both: sigmoid(x) (kept for the VJP) and x * sigmoid(x).
  parallel_pieces(xs.size(), kMinimumPiece, [&](std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) {
      ss[k] = stable_sigmoid(xs[k]);
      ys[k] = xs[k] * ss[k];
    }
  });
  const SharedTensor sigmoids = std::move(sigmoid_of_x);
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
