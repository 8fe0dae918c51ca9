// Xavier-style uniform initialization (chapter 17).
#include "llm/nn/init.hpp"

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "llm/tensor/shape.hpp"

namespace llm {

// region: xavier-scale-impl
XavierScale xavier_scale(std::size_t fan_in, std::size_t fan_out) {
  if (fan_in == 0) throw ParameterError(ParameterErrorKind::ZeroFanIn, {.fan_out = fan_out});
  if (fan_out == 0) throw ParameterError(ParameterErrorKind::ZeroFanOut, {.fan_in = fan_in});
  if (fan_in > std::numeric_limits<std::size_t>::max() - fan_out) {
    throw ParameterError(ParameterErrorKind::FanSumOverflow,
                         {.fan_in = fan_in, .fan_out = fan_out});
  }
  const double fan_sum = static_cast<double>(fan_in + fan_out);
  XavierScale scale;
  scale.fan_in = fan_in;
  scale.fan_out = fan_out;
  scale.target_variance = 2.0 / fan_sum;
  scale.standard_deviation = std::sqrt(scale.target_variance);
  scale.uniform_limit = std::sqrt(6.0 / fan_sum);
  return scale;
}
// endregion: xavier-scale-impl

// region: xavier-uniform-impl
Tensor xavier_uniform(std::size_t fan_in, std::size_t fan_out, SplitMix64& generator) {
  const XavierScale scale = xavier_scale(fan_in, fan_out);
  if (fan_in > std::numeric_limits<std::size_t>::max() / fan_out) {
    throw ParameterError(ParameterErrorKind::ShapeProductOverflow,
                         {.fan_in = fan_in, .fan_out = fan_out});
  }
  const Shape shape{fan_in, fan_out};
  Tensor weights(shape, allocate_values(shape, fan_in * fan_out));
  SplitMix64 trial = generator;  // draw on a copy: a failure above left no trace
  for (double& weight : weights.mutable_values()) {
    weight = scale.uniform_limit * (2.0 * trial.next_unit() - 1.0);
  }
  generator = trial;
  return weights;
}
// endregion: xavier-uniform-impl

// region: add-xavier-uniform
TensorValue add_xavier_uniform(ParameterSet& set, std::string name, std::size_t fan_in,
                               std::size_t fan_out, SplitMix64& generator) {
  // region: add-xavier-uniform-name-checks
  validate_parameter_name(name);
  if (set.find(name) != nullptr) {
    const std::size_t first = set.index_of(name);
    throw ParameterError(ParameterErrorKind::DuplicateName,
                         {.name = std::move(name), .index = first});
  }
  // endregion: add-xavier-uniform-name-checks
  SplitMix64 trial = generator;  // the name is fine: draw on a copy
  TensorValue parameter = TensorValue::parameter(xavier_uniform(fan_in, fan_out, trial));
  set.add(std::move(name), parameter);
  generator = trial;  // everything succeeded: only now does the caller's stream move
  return parameter;
}
// endregion: add-xavier-uniform

}  // namespace llm
