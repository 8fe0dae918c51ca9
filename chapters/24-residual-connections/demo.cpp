// Chapter 24 demo: a residual connection around a square linear branch,
// forward and reverse; the same branch with zero weights; a broadcastable
// branch the merge refuses; four plain and four residual layers; and the
// gradient check. With --trace PATH it also writes every tensor, the same
// merge reversed from an asymmetric upstream, and the stack for the figures.
#include <exception>
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"

namespace {

using demo::Json;
using llm::format_fixed;

// The earlier edition's compact lists: `[2.000000,-1.000000]`, `[2,2]`.
std::string values_text(std::span<const double> values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i)
    text += (i == 0 ? "" : ",") + format_fixed(values[i], 6);
  return text + "]";
}
std::string values_text(const llm::Tensor& tensor) {
  return values_text(tensor.values());
}
std::string shape_text(const llm::Shape& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    text += (i == 0 ? "" : ",") + std::to_string(shape[i]);
  return text + "]";
}
const char* bool_text(bool value) {
  return value ? "true" : "false";
}

Json merge_json(const ch24::MergeEvidence& merge) {
  return {{"parameter", merge.branch_parameter_name},
          {"input", demo::tensor_json(merge.input)},
          {"weight", demo::tensor_json(merge.branch_weight)},
          {"branch_output", demo::tensor_json(merge.branch_output)},
          {"output", demo::tensor_json(merge.residual_output)},
          {"upstream", demo::tensor_json(merge.upstream)},
          {"identity_gradient", demo::tensor_json(merge.identity_gradient)},
          {"branch_input_gradient", demo::tensor_json(merge.branch_input_gradient)},
          {"input_gradient", demo::tensor_json(merge.input_gradient)},
          {"weight_gradient", demo::tensor_json(merge.weight_gradient)}};
}

Json stack_json(const ch24::StackEvidence& stack) {
  Json values = Json::array();
  for (const llm::Tensor& value : stack.values) values.push_back(demo::tensor_json(value));
  return {{"values", values},
          {"input_gradient", demo::tensor_json(stack.input_gradient)},
          {"parameters", stack.parameter_names}};
}

}  // namespace

// region: learner-residual-report
int main(int argc, char** argv) try {
  const auto trace_path = demo::trace_path(argc, argv);
  const ch24::MergeEvidence merge = ch24::merge_evidence(ch24::kWeight, ch24::kUpstream);
  const ch24::MergeEvidence zero = ch24::merge_evidence({0.0, 0.0, 0.0, 0.0}, ch24::kUpstream);
  const ch24::ShapeEvidence shape = ch24::shape_evidence();
  const ch24::StackEvidence plain = ch24::stack_evidence(false);
  const ch24::StackEvidence residual = ch24::stack_evidence(true);
  const ch24::GradientCheckEvidence check = ch24::gradient_check_evidence();
  bool zero_weight_gradient_nonzero = false;
  for (double value : zero.weight_gradient.values())
    zero_weight_gradient_nonzero = zero_weight_gradient_nonzero || value != 0.0;

  std::cout << "chapter=24-residual-connections\n";
  std::cout << "prediction=zero branch preserves output and input gradient but its weight "
               "gradient can be nonzero\n";
  std::cout << "input=shape:" << shape_text(merge.input.shape())
            << " values:" << values_text(merge.input) << '\n';
  std::cout << "branch_parameter=name:" << merge.branch_parameter_name
            << " shape:" << shape_text(merge.branch_weight.shape())
            << " values:" << values_text(merge.branch_weight) << '\n';
  std::cout << "branch_output=shape:" << shape_text(merge.branch_output.shape())
            << " values:" << values_text(merge.branch_output) << '\n';
  std::cout << "residual_output=shape:" << shape_text(merge.residual_output.shape())
            << " values:" << values_text(merge.residual_output) << '\n';
  std::cout << "upstream=shape:" << shape_text(merge.upstream.shape())
            << " values:" << values_text(merge.upstream) << '\n';
  std::cout << "identity_gradient=" << values_text(merge.identity_gradient) << '\n';
  std::cout << "branch_input_gradient=" << values_text(merge.branch_input_gradient) << '\n';
  std::cout << "input_gradient=" << values_text(merge.input_gradient) << '\n';
  std::cout << "weight_gradient=shape:" << shape_text(merge.weight_gradient.shape())
            << " values:" << values_text(merge.weight_gradient) << '\n';
  std::cout << "zero_branch=output:" << values_text(zero.residual_output)
            << " input_gradient:" << values_text(zero.input_gradient)
            << " weight_gradient_nonzero:" << bool_text(zero_weight_gradient_nonzero) << '\n';
  std::cout << "shape_error=identity:" << shape_text(shape.identity)
            << " branch:" << shape_text(shape.branch)
            << " broadcastable:" << bool_text(shape.generic_add_broadcasts)
            << " rejected:" << bool_text(shape.residual_rejected) << '\n';
  for (std::size_t depth = 0; depth < plain.values.size(); ++depth) {
    std::cout << "stack[" << depth << "]=plain:" << values_text(plain.values[depth])
              << " residual:" << values_text(residual.values[depth]) << '\n';
  }
  std::cout << "stack_input_gradients=plain:" << values_text(plain.input_gradient)
            << " residual:" << values_text(residual.input_gradient) << '\n';
  std::cout << "stack_parameters=";
  for (std::size_t i = 0; i < residual.parameter_names.size(); ++i)
    std::cout << (i == 0 ? "" : ",") << residual.parameter_names[i];
  std::cout << '\n';
  std::cout << "numeric_gradient=input_checks:" << check.input_checks
            << " weight_checks:" << check.weight_checks
            << " tolerance:" << format_fixed(ch24::kGradcheckTolerance, 6)
            << " passed:" << bool_text(check.passed) << '\n';
  std::cout << "historical=plain_depth4_retention:"
            << format_fixed(plain.input_gradient.values()[0], 6)
            << " residual_depth4_retention:" << format_fixed(residual.input_gradient.values()[0], 6)
            << '\n';
  std::cout << "same_fixture_replays_bitwise=" << bool_text(ch24::merge_replays_bitwise()) << '\n';
  std::cout << "next=normalize each residual branch input with RMSNorm\n";

  demo::write_trace(
      trace_path,
      {{"merge", merge_json(merge)},
       {"asymmetric", merge_json(ch24::merge_evidence(ch24::kWeight, ch24::kAsymmetricUpstream))},
       {"zero", merge_json(zero)},
       {"shape_error",
        {{"identity", shape.identity},
         {"branch", shape.branch},
         {"broadcastable", shape.generic_add_broadcasts},
         {"rejected", shape.residual_rejected},
         {"message", shape.message}}},
       {"stack_weight", ch24::kStackWeight},
       {"plain", stack_json(plain)},
       {"residual", stack_json(residual)},
       {"gradcheck",
        {{"input_checks", check.input_checks},
         {"weight_checks", check.weight_checks},
         {"step", ch24::kGradcheckStep},
         {"tolerance", ch24::kGradcheckTolerance},
         {"passed", check.passed}}}});
  return 0;
} catch (const std::exception& error) {
  std::cerr << "chapter 24 demo failed: " << error.what() << '\n';
  return 1;
}
// endregion: learner-residual-report
