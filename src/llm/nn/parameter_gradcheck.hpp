// Chapter 13's sampled gradient check applied to one parameter of a model
// (chapter 17): the analytic gradient from one reverse pass of the loss, the
// numerical one from central differences of the same loss with that
// parameter's value replaced.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

#include "llm/autograd/gradcheck.hpp"
#include "llm/autograd/tensor_value.hpp"
#include "llm/nn/parameter_set.hpp"

namespace llm {

// region: check-parameter-gradient
/// Checks d loss / d parameter for the parameter `name` of `parameters`.
/// `loss` builds a rank-zero loss from the current parameter values and must
/// be deterministic. Steps: snapshot the set; zero every gradient; reverse
/// loss() once and take `name`'s gradient as the analytic value; then, for
/// the coordinates sample_tensor_coordinates chooses, assign each probe to
/// the parameter and evaluate loss() without recording a graph. The set's
/// values and gradients are restored from the snapshot before returning, also
/// when anything throws (the exception is rethrown).
/// @throws ParameterError UnknownName; TensorAutodiffError from the reverse
///         pass; GradCheckError as sampled_tensor_gradient_check.
TensorGradientCheck check_parameter_gradient(const ParameterSet& parameters, std::string_view name,
                                             const std::function<TensorValue()>& loss, double step,
                                             double tolerance, std::size_t max_samples);
// endregion: check-parameter-gradient

}  // namespace llm
