// Reproducible starting weights: the SplitMix64 stream, its exact mapping to
// doubles, and Xavier-style uniform matrices sized from fan-in and fan-out.
// Taught in chapter 17.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "llm/autograd/tensor_value.hpp"
#include "llm/nn/parameter_error.hpp"
#include "llm/nn/parameter_set.hpp"
#include "llm/tensor/tensor.hpp"

namespace llm {

// region: splitmix64
/// SplitMix64 (Steele, Lea and Flood, 2014): a 64-bit state that advances by a
/// fixed odd constant, each draw a bijective mix of the new state. Tiny,
/// dependency-free and exactly specified, so every machine draws the same
/// numbers; not cryptographically secure. Copying a generator copies its
/// state, so a copy replays the same draws.
class SplitMix64 {
 public:
  /// A generator whose first draw advances `seed` (the raw state).
  explicit constexpr SplitMix64(std::uint64_t seed) noexcept : state_(seed) {}
  /// The state the next draw will advance; SplitMix64(state()) resumes here.
  constexpr std::uint64_t state() const noexcept { return state_; }

  /// The next 64-bit draw: state += 0x9e3779b97f4a7c15, then two
  /// xor-shift-multiply rounds and a final xor-shift of the new state.
  constexpr std::uint64_t next_u64() noexcept {
    state_ += 0x9e3779b97f4a7c15ULL;  // unsigned: wraps modulo 2^64
    std::uint64_t mixed = state_;
    mixed = (mixed ^ (mixed >> 30)) * 0xbf58476d1ce4e5b9ULL;
    mixed = (mixed ^ (mixed >> 27)) * 0x94d049bb133111ebULL;
    return mixed ^ (mixed >> 31);
  }

  /// A double in [0, 1): the draw's top 53 bits times 2^-53. Every result is
  /// a multiple of 2^-53, exactly representable, so no rounding happens.
  constexpr double next_unit() noexcept {
    return static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
  }

 private:
  std::uint64_t state_;
};
// endregion: splitmix64

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
