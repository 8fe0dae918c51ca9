// Chapter 15 demo: prints the tensor-autodiff evidence and, with --trace PATH,
// writes the forward graph, the reverse ledger of the first pass and the
// outcomes (lifecycle, release, detach, checks, errors) for the figures.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "demo_text.hpp"
#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"

namespace {

using demo::tensor_text;
using demo::values_text;
using llm::format_fixed;

std::string state_text(const ch15::GradientState& state) {
  return state.step + ": x_grad=" + values_text(state.x) + " bias_grad=" + values_text(state.bias);
}

// region: print-tensor-evidence
void print_evidence(const ch15::WorkedExample& worked, const ch15::DetachExample& detached,
                    const std::vector<ch15::VjpCheck>& checks,
                    const std::vector<ch15::RejectedRequest>& errors) {
  const ch15::FixtureValues& forward = worked.values;
  std::cout << "x: " << tensor_text(forward.x) << '\n';
  std::cout << "bias: " << tensor_text(forward.bias) << '\n';
  std::cout << "reshape to 3x2: " << tensor_text(forward.reshaped) << '\n';
  std::cout << "transpose axes 0,1: " << tensor_text(forward.transposed) << '\n';
  std::cout << "broadcast bias to 2x3: " << tensor_text(forward.broadcast) << '\n';
  std::cout << "add: " << tensor_text(forward.sum) << '\n';
  std::cout << "multiply add*add: " << tensor_text(forward.square) << '\n';
  std::cout << "mean axis=1 keep_dim=false: " << tensor_text(forward.output) << '\n';
  std::cout << "seed: " << tensor_text(worked.seed) << '\n';
  std::cout << "handwritten baseline: values and gradients match the tape, max_abs_difference="
            << llm::format_scientific(worked.baseline_max_difference, 12) << '\n';
  for (const ch15::GradientState& state : worked.states) std::cout << state_text(state) << '\n';
  std::cout << "released graph: backward again -> " << worked.released.label << " ("
            << worked.released.error.what()
            << "); gradients unchanged=" << (worked.released.gradients_unchanged ? "true" : "false")
            << '\n';

  std::cout << "detach: expression=sum_axis(p*p+detach(p)*c,0) p=" << values_text(detached.p)
            << " c=" << format_fixed(detached.c) << " value=" << format_fixed(detached.value)
            << " p_grad=" << values_text(detached.p_gradient) << " detached_grad="
            << (detached.detached_gradient ? values_text(*detached.detached_gradient) : "none")
            << '\n';

  std::string names;
  bool passed = true;
  for (const ch15::VjpCheck& check : checks) {
    names += (names.empty() ? "" : " | ") + check.operation;
    passed = passed && check.report.passed;
  }
  std::cout << "gradcheck: " << names << "; pass=" << (passed ? "true" : "false") << '\n';

  std::string labels;
  bool unchanged = true;
  for (const ch15::RejectedRequest& error : errors) {
    labels += (labels.empty() ? "" : " | ") + error.label;
    unchanged = unchanged && error.gradients_unchanged;
  }
  std::cout << "typed errors: " << labels
            << "; gradients unchanged=" << (unchanged ? "true" : "false") << '\n';
  std::cout << "chapter 16 handoff: extend the tensor tape with matmul, row gathers, activations "
               "and token loss\n";
}
// endregion: print-tensor-evidence

// The evidence fields each error kind of the demo carries.
demo::Json error_json(const ch15::RejectedRequest& request) {
  using Kind = llm::TensorAutodiffErrorKind;
  const llm::TensorAutodiffError& error = request.error;
  demo::Json evidence = {{"operation", error.operation().name()}};
  switch (error.kind()) {
    case Kind::SeedShapeMismatch:
      evidence["seed_shape"] = error.shape();
      evidence["output_shape"] = error.expected_shape();
      break;
    case Kind::NonFiniteSeed:
      evidence["coordinate"] = error.coordinate();
      evidence["value"] = demo::number_json(error.value());
      break;
    case Kind::ReleasedGraph:
      evidence["node"] = error.node();
      break;
    case Kind::NonFiniteAccumulatedGradient:
    case Kind::NonFinitePassAdjoint:
      evidence["node"] = error.node();
      evidence["coordinate"] = error.coordinate();
      evidence["stored"] = demo::number_json(error.value());
      evidence["pass_adjoint"] = demo::number_json(error.other_value());
      break;
    default:
      break;
  }
  return {{"label", request.label},
          {"kind", llm::tensor_autodiff_error_kind_name(error.kind())},
          {"message", error.what()},
          {"evidence", evidence},
          {"gradients_unchanged", request.gradients_unchanged}};
}

// region: tensor-trace
demo::Json forward_graph_json(const ch15::WorkedExample& worked) {
  const llm::TensorBackwardTrace& pass = worked.first_pass;
  const std::vector<std::string>& labels = worked.trace_labels;
  demo::Json nodes = demo::Json::array();
  demo::Json uses = demo::Json::array();
  for (const llm::TensorTraceNode& node : pass.nodes) {
    demo::Json entry = demo::tensor_json(node.value);
    nodes.push_back({{"id", node.index},
                     {"label", labels.at(node.index)},
                     {"operation", node.operation.name()},
                     {"shape", entry["shape"]},
                     {"values", entry["values"]},
                     {"tracked", node.tracked}});
    for (std::size_t slot = 0; slot < node.operands.size(); ++slot) {
      uses.push_back({{"consumer", node.index},
                      {"consumer_label", labels.at(node.index)},
                      {"operand_slot", slot},
                      {"parent", node.operands[slot]},
                      {"parent_label", labels.at(node.operands[slot])}});
    }
  }
  return {{"nodes", nodes}, {"operand_uses", uses}};
}

demo::Json reverse_ledger_json(const ch15::WorkedExample& worked) {
  const llm::TensorBackwardTrace& pass = worked.first_pass;
  const std::vector<std::string>& labels = worked.trace_labels;
  demo::Json nodes = demo::Json::array();
  for (const llm::TensorTraceNode& node : pass.nodes) {
    nodes.push_back({{"id", node.index},
                     {"label", labels.at(node.index)},
                     {"pass_adjoint", demo::optional_tensor_json(node.pass_adjoint)},
                     {"stored_gradient", demo::optional_tensor_json(node.gradient)}});
  }
  demo::Json edges = demo::Json::array();
  for (const llm::TensorTraceEdge& edge : pass.edges) {
    edges.push_back({{"reverse_index", edge.reverse_index},
                     {"consumer", edge.child},
                     {"consumer_label", labels.at(edge.child)},
                     {"operation", pass.nodes.at(edge.child).operation.name()},
                     {"operand_slot", edge.operand},
                     {"parent", edge.parent},
                     {"parent_label", labels.at(edge.parent)},
                     {"rule", edge.rule},
                     {"upstream", demo::tensor_json(edge.upstream)},
                     {"contribution", demo::optional_tensor_json(edge.contribution)},
                     {"parent_shape", edge.parent_shape}});
  }
  return {{"seed", demo::tensor_json(pass.seed)},
          {"retention", pass.retention == llm::Retention::Retain ? "retain" : "release"},
          {"nodes", nodes},
          {"edges", edges}};
}

demo::Json check_json(const ch15::VjpCheck& check) {
  return {{"operation", check.operation},
          {"expression", check.expression},
          {"input", demo::tensor_json(check.input)},
          {"seed", demo::tensor_json(check.seed)},
          {"analytic", demo::tensor_json(check.analytic)},
          {"step", ch15::kGradcheckStep},
          {"tolerance", ch15::kGradcheckTolerance},
          {"requested_samples", check.report.requested_samples},
          {"coordinates", demo::coordinate_checks_json(check.report)},
          {"passed", check.report.passed}};
}

demo::Json trace_json(const ch15::WorkedExample& worked, const ch15::DetachExample& detached,
                      const std::vector<ch15::VjpCheck>& checks,
                      const std::vector<ch15::RejectedRequest>& errors) {
  demo::Json lifecycle = demo::Json::array();
  for (const ch15::GradientState& state : worked.states) {
    lifecycle.push_back({{"step", state.step},
                         {"x_gradient", demo::tensor_json(state.x)},
                         {"bias_gradient", demo::tensor_json(state.bias)}});
  }
  demo::Json check_list = demo::Json::array();
  bool checks_passed = true;
  for (const ch15::VjpCheck& check : checks) {
    check_list.push_back(check_json(check));
    checks_passed = checks_passed && check.report.passed;
  }
  demo::Json error_list = demo::Json::array();
  bool unchanged = true;
  for (const ch15::RejectedRequest& error : errors) {
    error_list.push_back(error_json(error));
    unchanged = unchanged && error.gradients_unchanged;
  }
  return {{"chapter", "15-tensor-autodiff-core"},
          {"forward", forward_graph_json(worked)},
          {"reverse", reverse_ledger_json(worked)},
          {"baseline", {{"max_abs_difference", worked.baseline_max_difference}}},
          {"outcomes",
           {{"lifecycle", lifecycle},
            {"release", error_json(worked.released)},
            {"detach",
             {{"expression", "sum_axis(p*p+detach(p)*c,0)"},
              {"p", demo::tensor_json(detached.p)},
              {"c", detached.c},
              {"value", detached.value},
              {"p_gradient", demo::tensor_json(detached.p_gradient)},
              {"detached_gradient", demo::optional_tensor_json(detached.detached_gradient)}}},
            {"checks", check_list},
            {"checks_passed", checks_passed},
            {"errors", error_list},
            {"errors_gradients_unchanged", unchanged}}}};
}
// endregion: tensor-trace

}  // namespace

// region: demo-main
int main(int argc, char** argv) {
  try {
    const auto trace = demo::trace_path(argc, argv);
    const ch15::WorkedExample worked = ch15::worked_example();
    const ch15::DetachExample detached = ch15::detach_example();
    const std::vector<ch15::VjpCheck> checks = ch15::vjp_gradchecks();
    const std::vector<ch15::RejectedRequest> errors = ch15::typed_error_example();

    print_evidence(worked, detached, checks, errors);
    demo::write_trace(trace, trace_json(worked, detached, checks, errors));
    return 0;
  } catch (const std::exception& error) {
    std::cerr << "chapter 15 demo failed: " << error.what() << '\n';
    return 1;
  }
}
// endregion: demo-main
