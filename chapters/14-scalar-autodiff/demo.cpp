// Chapter 14 demo: prints the scalar-autodiff evidence and, with --trace PATH,
// writes the graph, the reverse ledger and the stored states for the figures.
#include <array>
#include <cstddef>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"

namespace {

using llm::format_fixed;

std::string stored_text(const ch14::StoredGradients& stored) {
  return "x_grad=" + format_fixed(stored.x) + " square_grad=" + format_fixed(stored.square) +
         " loss_grad=" + format_fixed(stored.loss);
}

// region: print-scalar-evidence
void print_evidence(const ch14::ReusedSquareExample& reused, const ch14::DetachExample& detached,
                    const ch14::NonlinearExample& nonlinear,
                    const llm::ScalarGradientCheck& gradcheck,
                    const std::vector<ch14::TypedErrorCase>& errors) {
  std::cout << "reused square: x=" << format_fixed(reused.x_value)
            << " square=" << format_fixed(reused.square_value)
            << " loss=" << format_fixed(reused.loss_value) << '\n';
  std::cout << "one backward: " << stored_text(reused.first) << '\n';
  std::cout << "repeated backward: " << stored_text(reused.repeated) << '\n';
  std::cout << "zero_grad: " << stored_text(reused.zeroed) << '\n';
  std::cout << "after zero: " << stored_text(reused.after_zero) << '\n';

  std::cout << "detach: expression=x*x+detach(x)*3 value=" << format_fixed(detached.value)
            << " x_grad=" << format_fixed(detached.x_gradient) << " detached_grad="
            << (detached.detached_gradient ? format_fixed(*detached.detached_gradient) : "none")
            << '\n';
  std::cout << "nonlinear: expression=exp(tanh(x)) input=" << format_fixed(nonlinear.input)
            << " value=" << format_fixed(nonlinear.value)
            << " gradient=" << format_fixed(nonlinear.gradient) << '\n';

  const llm::GradientComparison& comparison = gradcheck.comparison;
  std::cout << "gradcheck: expression=2*x*x analytic=" << format_fixed(comparison.analytic)
            << " numerical=" << format_fixed(comparison.numerical)
            << " scaled_error=" << llm::format_scientific(comparison.scaled_error, 12)
            << " pass=" << (comparison.passed ? "true" : "false") << '\n';

  std::string labels;
  bool unchanged = true;
  for (const ch14::TypedErrorCase& error : errors) {
    labels += (labels.empty() ? "" : " | ") + error.label;
    unchanged = unchanged && error.gradients_unchanged;
  }
  std::cout << "typed errors: " << labels
            << "; gradients unchanged=" << (unchanged ? "true" : "false") << '\n';
  std::cout << "chapter 15 handoff: replace scalar edges with tensor vector-Jacobian products\n";
}
// endregion: print-scalar-evidence

demo::Json optional_json(const std::optional<double>& value) {
  if (value) return *value;
  return nullptr;
}

demo::Json stored_json(const char* state, const ch14::StoredGradients& stored) {
  return {{"state", state}, {"x", stored.x}, {"square", stored.square}, {"loss", stored.loss}};
}

// The evidence fields each error kind carries.
demo::Json error_evidence(const llm::ScalarError& error) {
  using llm::ScalarErrorKind;
  const std::string operation(llm::scalar_operation_name(error.operation()));
  switch (error.kind()) {
    case ScalarErrorKind::NonFiniteLeaf:
    case ScalarErrorKind::NonFiniteResult:
      return {{"operation", operation}, {"value", demo::number_json(error.value())}};
    case ScalarErrorKind::UntrackedOutput:
      return {{"operation", operation}};
    case ScalarErrorKind::NonFiniteSeed:
      return {{"seed", demo::number_json(error.seed())}};
    case ScalarErrorKind::NonFiniteContribution:
      return {{"child", error.child()},
              {"parent", error.parent()},
              {"operand", error.operand()},
              {"upstream", error.upstream()},
              {"local_derivative", error.local_derivative()}};
    case ScalarErrorKind::NonFinitePassAdjoint:
      return {{"node", error.node()},
              {"previous", error.previous()},
              {"contribution", error.contribution()}};
    case ScalarErrorKind::NonFiniteAccumulatedGradient:
      return {{"node", error.node()},
              {"stored", error.stored()},
              {"pass_adjoint", error.pass_adjoint()}};
  }
  return demo::Json::object();
}

// region: scalar-trace
// One reverse pass as node cards and an edge ledger, named by `names` (topology order).
template <std::size_t N>
demo::Json pass_json(const std::array<const char*, N>& names, const llm::BackwardPass& pass) {
  demo::Json nodes = demo::Json::array();
  for (const llm::BackwardNode& node : pass.nodes) {
    nodes.push_back({{"index", node.topology_index},
                     {"name", names.at(node.topology_index)},
                     {"operation", llm::scalar_operation_name(node.operation)},
                     {"value", node.value},
                     {"tracked", node.tracked},
                     {"pass_adjoint", optional_json(node.pass_adjoint)},
                     {"stored_gradient", optional_json(node.stored_gradient)}});
  }
  demo::Json edges = demo::Json::array();
  for (const llm::BackwardEdge& edge : pass.edges) {
    edges.push_back(
        {{"reverse_index", edge.reverse_index},
         {"result_index", edge.child},
         {"result", names.at(edge.child)},
         {"result_operation", llm::scalar_operation_name(pass.nodes.at(edge.child).operation)},
         {"operand_slot", edge.operand},
         {"operand_index", edge.parent},
         {"operand", names.at(edge.parent)},
         {"operand_value", pass.nodes.at(edge.parent).value},
         {"local_derivative", edge.local_derivative},
         {"upstream_adjoint", edge.upstream},
         {"contribution", edge.contribution},
         {"operand_adjoint_before", optional_json(edge.parent_adjoint_before)},
         {"operand_adjoint_after", optional_json(edge.parent_adjoint_after)}});
  }
  return {{"seed", pass.seed}, {"nodes", nodes}, {"edges", edges}};
}

demo::Json check_json(const llm::ScalarGradientCheck& check) {
  return {{"point", check.difference.point},
          {"step", check.difference.requested_step},
          {"analytic", check.comparison.analytic},
          {"numerical", check.comparison.numerical},
          {"scaled_error", check.comparison.scaled_error},
          {"tolerance", check.comparison.tolerance},
          {"passed", check.comparison.passed}};
}

demo::Json asymmetric_json(const ch14::AsymmetricProductExample& example) {
  demo::Json json = pass_json(ch14::kAsymmetricNodeNames, example.pass);
  json["expression"] = "x*y+x";
  json["x"] = example.x_value;
  json["y"] = example.y_value;
  json["loss"] = example.loss_value;
  json["x_gradient"] = example.x_gradient;
  json["y_gradient"] = example.y_gradient;
  json["x_check"] = check_json(example.x_check);
  json["y_check"] = check_json(example.y_check);
  return json;
}

demo::Json reused_square_json(const ch14::ReusedSquareExample& reused) {
  demo::Json json = pass_json(ch14::kReusedNodeNames, reused.first_pass);
  json["input"] = reused.x_value;
  json["stored_states"] = {
      stored_json("first", reused.first), stored_json("repeated", reused.repeated),
      stored_json("zeroed", reused.zeroed), stored_json("after_zero", reused.after_zero)};
  return json;
}

demo::Json trace_json(const ch14::ReusedSquareExample& reused,
                      const ch14::AsymmetricProductExample& asymmetric,
                      const ch14::DetachExample& detached, const ch14::NonlinearExample& nonlinear,
                      const llm::ScalarGradientCheck& gradcheck,
                      const std::vector<ch14::TypedErrorCase>& errors) {
  const llm::CentralDifference& difference = gradcheck.difference;
  const llm::GradientComparison& comparison = gradcheck.comparison;
  demo::Json cases = demo::Json::array();
  bool unchanged = true;
  for (const ch14::TypedErrorCase& error : errors) {
    cases.push_back({{"label", error.label},
                     {"kind", error.error.kind_name()},
                     {"message", error.error.what()},
                     {"evidence", error_evidence(error.error)},
                     {"gradients_unchanged", error.gradients_unchanged}});
    unchanged = unchanged && error.gradients_unchanged;
  }
  return {{"chapter", "14-scalar-autodiff"},
          {"reused_square", reused_square_json(reused)},
          {"asymmetric_product", asymmetric_json(asymmetric)},
          {"detach",
           {{"expression", "x*x+detach(x)*3"},
            {"input", detached.input},
            {"value", detached.value},
            {"x_gradient", detached.x_gradient},
            {"detached_gradient", optional_json(detached.detached_gradient)}}},
          {"nonlinear",
           {{"expression", "exp(tanh(x))"},
            {"input", nonlinear.input},
            {"value", nonlinear.value},
            {"gradient", nonlinear.gradient}}},
          {"gradcheck",
           {{"expression", "2*x*x"},
            {"point", difference.point},
            {"step", difference.requested_step},
            {"minus_point", difference.minus_point},
            {"plus_point", difference.plus_point},
            {"analytic", comparison.analytic},
            {"numerical", comparison.numerical},
            {"scaled_error", comparison.scaled_error},
            {"tolerance", comparison.tolerance},
            {"passed", comparison.passed}}},
          {"typed_errors", {{"cases", cases}, {"gradients_unchanged", unchanged}}}};
}
// endregion: scalar-trace

}  // namespace

// region: demo-main
int main(int argc, char** argv) {
  try {
    const auto trace = demo::trace_path(argc, argv);
    const ch14::ReusedSquareExample reused = ch14::reused_square_example();
    const ch14::AsymmetricProductExample asymmetric = ch14::asymmetric_product_example();
    const ch14::DetachExample detached = ch14::detach_example();
    const ch14::NonlinearExample nonlinear = ch14::nonlinear_example();
    const llm::ScalarGradientCheck gradcheck = ch14::gradcheck_example();
    const std::vector<ch14::TypedErrorCase> errors = ch14::typed_error_example();

    print_evidence(reused, detached, nonlinear, gradcheck, errors);
    demo::write_trace(trace,
                      trace_json(reused, asymmetric, detached, nonlinear, gradcheck, errors));
    return 0;
  } catch (const std::exception& error) {
    std::cerr << "chapter 14 demo failed: " << error.what() << '\n';
    return 1;
  }
}
// endregion: demo-main
