// Chapter 15 demo: prints the tensor-autodiff evidence and, with --trace PATH,
// writes the forward graph, the reverse ledger of the first pass and the
// outcomes (lifecycle, release, detach, checks, errors) for the figures.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"

namespace {

// region: print-tensor-evidence
// A tensor as the reference edition prints it: shape=[2, 3] values=[1.0, ...].
std::string debug_text(const llm::Tensor& tensor) {
  return "shape=" + llm::shape_text(tensor.shape()) +
         " values=" + llm::format_list(tensor.values());
}

std::string state_text(const ch15::GradientState& state) {
  return state.step + ": x_grad=" + llm::format_list(state.x.values()) +
         " bias_grad=" + llm::format_list(state.bias.values());
}

void print_evidence(const ch15::WorkedExample& worked, const ch15::DetachExample& detached,
                    const std::vector<ch15::VjpCheck>& checks,
                    const std::vector<ch15::RejectedRequest>& errors) {
  const ch15::FixtureValues& forward = worked.values;
  std::cout << "parameter x: " << debug_text(forward.x) << '\n';
  std::cout << "parameter bias: " << debug_text(forward.bias) << '\n';
  std::cout << "reshape: " << debug_text(forward.reshaped) << '\n';
  std::cout << "transpose: " << debug_text(forward.transposed) << '\n';
  std::cout << "broadcast: " << debug_text(forward.broadcast) << '\n';
  std::cout << "add: " << debug_text(forward.sum) << '\n';
  std::cout << "multiply reused: " << debug_text(forward.square) << '\n';
  std::cout << "mean axis=1 keep_dim=false: " << debug_text(forward.output) << '\n';
  std::cout << "non-scalar seed: " << debug_text(worked.seed) << '\n';
  for (const ch15::GradientState& state : worked.states) std::cout << state_text(state) << '\n';
  // The refused pass names the released node by its index in the pass; the
  // fixture's label of that node is the operation the reader built.
  std::cout << "released graph: operation=" << worked.trace_labels.at(worked.released.error.node())
            << " gradients unchanged=" << (worked.released.gradients_unchanged ? "true" : "false")
            << '\n';

  std::cout << "detach and sum: value=" << llm::format_shortest(detached.value)
            << " p_grad=" << llm::format_list(detached.p_gradient.values()) << " detached_grad="
            << (detached.detached_gradient ? llm::format_list(detached.detached_gradient->values())
                                           : std::string("none"))
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
  std::cout << "chapter 16 handoff: add model-critical tensor VJPs\n";
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
          {"kind", error.kind_name()},
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

demo::Json asymmetric_json(const ch15::AsymmetricProductExample& example) {
  return {{"expression", "mean_axis(transposed * broadcast, 1)"},
          {"output", demo::tensor_json(example.output)},
          {"x_gradient", demo::tensor_json(example.x_gradient)},
          {"bias_gradient", demo::tensor_json(example.bias_gradient)},
          {"x_gradient_by_hand", example.x_gradient_by_hand},
          {"bias_gradient_by_hand", example.bias_gradient_by_hand},
          {"x_gradient_if_swapped", example.x_gradient_if_swapped},
          {"bias_gradient_if_swapped", example.bias_gradient_if_swapped}};
}

demo::Json strides_json(const std::vector<ch15::StrideTrace>& traces) {
  demo::Json list = demo::Json::array();
  for (const ch15::StrideTrace& trace : traces) {
    list.push_back({{"what", trace.what},
                    {"shape", trace.shape},
                    {"strides", trace.strides},
                    {"offset", trace.offset},
                    {"offsets", trace.offsets}});
  }
  return list;
}

demo::Json detach_edges_json(const ch15::DetachExample& detached) {
  demo::Json edges = demo::Json::array();
  for (const ch15::DetachEdge& edge : detached.edges) {
    edges.push_back({{"consumer", edge.consumer},
                     {"slot", edge.slot},
                     {"operand", edge.operand},
                     {"contributed", edge.contributed}});
  }
  return edges;
}

demo::Json trace_json(const ch15::WorkedExample& worked, const ch15::DetachExample& detached,
                      const std::vector<ch15::VjpCheck>& checks,
                      const std::vector<ch15::RejectedRequest>& errors,
                      const ch15::AsymmetricProductExample& asymmetric,
                      const std::vector<ch15::StrideTrace>& strides) {
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
          {"asymmetric", asymmetric_json(asymmetric)},
          {"strides", strides_json(strides)},
          {"outcomes",
           {{"lifecycle", lifecycle},
            {"release", error_json(worked.released)},
            {"detach",
             {{"expression", "sum_axis(p*p+detach(p)*c,0)"},
              {"p", demo::tensor_json(detached.p)},
              {"c", detached.c},
              {"value", detached.value},
              {"p_gradient", demo::tensor_json(detached.p_gradient)},
              {"detached_gradient", demo::optional_tensor_json(detached.detached_gradient)},
              {"product_tracked", detached.product_tracked},
              {"edges", detach_edges_json(detached)}}},
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
    const ch15::AsymmetricProductExample asymmetric = ch15::asymmetric_product_example();
    const std::vector<ch15::StrideTrace> strides = ch15::stride_offset_traces();

    print_evidence(worked, detached, checks, errors);
    demo::write_trace(trace, trace_json(worked, detached, checks, errors, asymmetric, strides));
    return 0;
  } catch (const std::exception& error) {
    std::cerr << "chapter 15 demo failed: " << error.what() << '\n';
    return 1;
  }
}
// endregion: demo-main
