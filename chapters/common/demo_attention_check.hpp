// The two checks chapters 27 and 28 run on one attention pass, read back
// from the tape: a central-difference gradient check of Q, K and V against
// an objective the chapter writes again with plain loops (so the tape does
// not check itself), and a replay that must agree bit for bit.
//
// `Pass` is a chapter's evidence of one pass: llm::Tensor members query,
// key, value, upstream (the seed O-bar of L = sum(O * O-bar)), scores,
// scaled_scores, weights, output and the three gradients, and a double loss.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "demo_bits.hpp"
#include "demo_trace.hpp"
#include "llm/autograd/gradcheck.hpp"
#include "llm/format.hpp"
#include "llm/tensor/tensor.hpp"

namespace demo {

/// How many coordinates of Q, K and V were checked, the largest scaled error
/// of any of them, and whether every one passed.
struct AttentionGradientCheck {
  std::size_t query_checks = 0, key_checks = 0, value_checks = 0;
  double largest_scaled_error = 0.0;
  bool passed = false;
};

/// Moves every coordinate of Q, then K, then V of `pass` by +-`step` and
/// compares the central difference of `objective(Q, K, V, upstream)` with the
/// tape's gradient (llm::sampled_tensor_gradient_check, chapter 13), within
/// `tolerance` after scaling.
template <class Pass, class Objective>
AttentionGradientCheck attention_gradient_check(const Pass& pass, Objective objective, double step,
                                                double tolerance) {
  AttentionGradientCheck evidence;
  evidence.passed = true;
  const llm::Tensor* inputs[] = {&pass.query, &pass.key, &pass.value};
  const llm::Tensor* gradients[] = {&pass.query_gradient, &pass.key_gradient, &pass.value_gradient};
  std::size_t* counts[] = {&evidence.query_checks, &evidence.key_checks, &evidence.value_checks};
  for (std::size_t input = 0; input < 3; ++input) {
    llm::Tensor probe = *inputs[input];
    const llm::TensorGradientCheck check = llm::sampled_tensor_gradient_check(
        probe, gradients[input]->view(), step, tolerance, probe.size(),
        [&](const llm::Tensor& moved) {
          return objective(input == 0 ? moved : pass.query, input == 1 ? moved : pass.key,
                           input == 2 ? moved : pass.value, pass.upstream);
        });
    *counts[input] = check.checks.size();
    evidence.passed = evidence.passed && check.passed;
    for (const auto& coordinate : check.checks) {
      evidence.largest_scaled_error =
          std::fmax(evidence.largest_scaled_error, coordinate.comparison.scaled_error);
    }
  }
  return evidence;
}

/// `query_checks:4 key_checks:4 value_checks:4 tolerance:0.000002 passed:true`.
inline std::string gradient_check_text(const AttentionGradientCheck& check, double tolerance) {
  return "query_checks:" + std::to_string(check.query_checks) +
         " key_checks:" + std::to_string(check.key_checks) +
         " value_checks:" + std::to_string(check.value_checks) +
         " tolerance:" + llm::format_fixed(tolerance, 6) +
         " passed:" + (check.passed ? "true" : "false");
}

/// The trace's record of the check, with the step and tolerance it used.
inline Json gradient_check_json(const AttentionGradientCheck& check, double step,
                                double tolerance) {
  return {{"query_checks", check.query_checks},
          {"key_checks", check.key_checks},
          {"value_checks", check.value_checks},
          {"step", step},
          {"tolerance", tolerance},
          {"largest_scaled_error", check.largest_scaled_error},
          {"passed", check.passed}};
}

/// The bits of the pass's scores, scaled scores, weights, output, three
/// gradients and loss, in that order.
template <class Pass>
std::vector<std::uint64_t> attention_bits(const Pass& pass) {
  std::vector<std::uint64_t> all;
  for (const llm::Tensor* t : {&pass.scores, &pass.scaled_scores, &pass.weights, &pass.output,
                               &pass.query_gradient, &pass.key_gradient, &pass.value_gradient}) {
    const std::vector<std::uint64_t> more = bits_of(*t);
    all.insert(all.end(), more.begin(), more.end());
  }
  all.push_back(bits_of(pass.loss));
  return all;
}

/// Whether two calls of `run` (which returns a Pass) agree bit for bit.
template <class Run>
bool replays_bitwise(Run run) {
  return attention_bits(run()) == attention_bits(run());
}

}  // namespace demo
