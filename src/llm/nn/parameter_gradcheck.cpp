// The gradient check of one named parameter (chapter 17).
#include "llm/nn/parameter_gradcheck.hpp"

namespace llm {

TensorGradientCheck check_parameter_gradient(const ParameterSet& parameters, std::string_view name,
                                             const std::function<TensorValue()>& loss, double step,
                                             double tolerance, std::size_t max_samples) {
  TensorValue parameter = parameters.at(name);  // a handle to the same node
  const ParameterSnapshot saved = parameters.snapshot();
  try {
    parameters.zero_grad();
    loss().backward_with_seed(Tensor::scalar(1.0), Retention::Release);
    const Tensor analytic = *parameter.gradient();
    Tensor probe = parameter.value().materialize();
    TensorGradientCheck check = sampled_tensor_gradient_check(
        probe, analytic.view(), step, tolerance, max_samples, [&](const Tensor& candidate) {
          parameter.assign(candidate);
          const NoGradScope no_graph;
          return loss().value().at(std::span<const std::size_t>{});
        });
    parameters.restore(saved);
    return check;
  } catch (...) {
    parameters.restore(saved);
    throw;
  }
}

}  // namespace llm
