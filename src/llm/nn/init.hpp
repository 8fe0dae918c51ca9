// Reproducible starting weights: Xavier-style uniform matrices sized from
// fan-in and fan-out, drawn from the SplitMix64 stream of splitmix64.hpp.
// Taught in chapter 17.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "llm/autograd/tensor_value.hpp"
#include "llm/nn/parameter_error.hpp"
#include "llm/nn/parameter_set.hpp"
#include "llm/nn/splitmix64.hpp"  // the generator every initializer draws from
#include "llm/tensor/tensor.hpp"

namespace llm {

// region: xavier-scale
/// The target spread of one [fan_in, fan_out] weight matrix.
struct XavierScale {
  std::size_t fan_in = 0;           ///< inputs per output: the matrix's rows
  std::size_t fan_out = 0;          ///< outputs per input: the matrix's columns
  double target_variance = 0.0;     ///< 2 / (fan_in + fan_out)
  double standard_deviation = 0.0;  ///< sqrt(target_variance)
  double uniform_limit = 0.0;       ///< sqrt(6 / (fan_in + fan_out)): U(-a, a) has that variance
};

/// Xavier (Glorot and Bengio, 2010) scale for a matrix read by fan_in inputs
/// and writing fan_out outputs.
/// @throws ParameterError ZeroFanIn, ZeroFanOut, FanSumOverflow, in that order.
XavierScale xavier_scale(std::size_t fan_in, std::size_t fan_out);
// endregion: xavier-scale

// region: xavier-uniform-declaration
/// A row-major [fan_in, fan_out] matrix whose element k is
/// uniform_limit * (2 u_k - 1), u_k the k-th next_unit() draw: fan_in * fan_out
/// draws in row-major order. Samples on a copy of `generator` and copies it
/// back only on success, so a rejected request leaves the state unchanged.
/// @throws ParameterError ZeroFanIn, ZeroFanOut, FanSumOverflow, ShapeProductOverflow.
/// @throws TensorError AllocationFailed if the matrix does not fit in memory.
Tensor xavier_uniform(std::size_t fan_in, std::size_t fan_out, SplitMix64& generator);

/// Adds a new xavier_uniform parameter to `set` under `name` and returns it.
/// Checks the name, its uniqueness and the fans before drawing anything; on
/// any throw the set and the generator are unchanged.
/// @throws ParameterError InvalidName, DuplicateName, then as xavier_uniform.
TensorValue add_xavier_uniform(ParameterSet& set, std::string name, std::size_t fan_in,
                               std::size_t fan_out, SplitMix64& generator);
// endregion: xavier-uniform-declaration

}  // namespace llm
