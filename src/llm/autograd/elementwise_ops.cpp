// Elementwise tape operations of Part V, each beside its VJP: scale by a
// constant, sub and div with broadcasting, and rsqrt. Taught in chapter 25
// (RMSNorm composed from them) and chapter 28 (a masked softmax composed
// from them).
#include "llm/autograd/elementwise_ops.hpp"

#include <cmath>
#include <cstddef>
#include <span>
#include <utility>

#include "llm/autograd/recorder.hpp"
#include "llm/autograd/tensor_pass_support.hpp"
#include "llm/tensor/elementwise.hpp"

namespace llm {

using tape_detail::summed_to;

// region: scale-operation
TensorValue scale(const TensorValue& x, double factor) {
  if (!std::isfinite(factor)) {
    throw DecoderOpError(DecoderOpErrorKind::NonFiniteFactor, {.value = factor});
  }
  const SharedTensor input = x.value();
  Tensor result = map_values(input, [factor](double v) { return factor * v; });
  // d(c x)/dx = c
  auto times_factor = [factor](const SharedTensor& upstream) {
    return SharedTensor(map_values(upstream, [factor](double g) { return factor * g; }));
  };
  return record_operation(kScale, std::move(result), {x, {"times the factor", times_factor}});
}
// endregion: scale-operation

// region: sub-operation
TensorValue sub(const TensorValue& a, const TensorValue& b) {
  const SharedTensor left = a.value();
  const SharedTensor right = b.value();
  Tensor result = broadcast_map(left, right, [](double l, double r) { return l - r; });
  // d(l - r)/dl = 1: the upstream itself, summed to the shape of l
  auto to_left = [shape = left.shape()](const SharedTensor& upstream) {
    return summed_to(upstream, shape);
  };
  // d(l - r)/dr = -1: the negated upstream, summed to the shape of r
  auto to_right = [shape = right.shape()](const SharedTensor& upstream) {
    const SharedTensor negated = map_values(upstream, [](double g) { return -g; });
    return summed_to(negated, shape);
  };
  return record_operation(kSub, std::move(result), {a, {"sum to operand shape", to_left}},
                          {b, {"negate, sum to operand shape", to_right}});
}
// endregion: sub-operation

// region: div-operation
TensorValue div(const TensorValue& a, const TensorValue& b) {
  // A zero divisor is a domain error of this operation, named before anything
  // is computed (x/0 is infinite and 0/0 undefined).
  const SharedTensor left = a.value();
  const SharedTensor right = b.value().contiguous();  // saved context: the divisor
  const std::span<const double> divisors = right.contiguous_values();
  for (std::size_t k = 0; k < divisors.size(); ++k) {
    if (divisors[k] == 0.0) {
      throw DecoderOpError(
          DecoderOpErrorKind::DivisionByZero,
          {.shape = right.shape(), .coordinate = coordinate_from_offset(right.shape(), k)});
    }
  }
  const SharedTensor quotient =
      broadcast_map(left, right, [](double l, double r) { return l / r; });  // saved context
  // d(l/r)/dl = 1/r
  auto to_left = [right, shape = left.shape()](const SharedTensor& upstream) {
    const SharedTensor divided =
        broadcast_map(upstream, right, [](double g, double r) { return g / r; });
    return summed_to(divided, shape);
  };
  // d(l/r)/dr = -l/r^2 = -(l/r)/r: the upstream times the saved quotient, over r
  auto to_right = [right, quotient](const SharedTensor& upstream) {
    const Tensor weighted =
        broadcast_map(upstream, quotient, [](double g, double q) { return -(g * q); });
    const SharedTensor divided =
        broadcast_map(weighted, right, [](double w, double r) { return w / r; });
    return summed_to(divided, right.shape());
  };
  return record_operation(kDiv, quotient, {a, {"divide by right, sum to operand shape", to_left}},
                          {b, {"minus quotient over right, sum to operand shape", to_right}});
}
// endregion: div-operation

// region: rsqrt-operation
TensorValue rsqrt(const TensorValue& x) {
  const SharedTensor input = x.value().contiguous();
  const std::span<const double> inputs = input.contiguous_values();
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (!(inputs[k] > 0.0)) {
      throw DecoderOpError(DecoderOpErrorKind::RsqrtNonPositiveInput,
                           {.shape = input.shape(),
                            .coordinate = coordinate_from_offset(input.shape(), k),
                            .value = inputs[k]});
    }
  }
  const SharedTensor output =
      map_values(input, [](double v) { return 1.0 / std::sqrt(v); });  // saved context
  // d x^(-1/2)/dx = -1/2 x^(-3/2) = -y^3 / 2
  auto times_derivative = [output](const SharedTensor& upstream) {
    return SharedTensor(broadcast_map(upstream, output,
                                      [](double g, double y) { return g * (-0.5 * (y * y * y)); }));
  };
  return record_operation(kRsqrt, output, {x, {"times -y^3 / 2", times_derivative}});
}
// endregion: rsqrt-operation

}  // namespace llm
