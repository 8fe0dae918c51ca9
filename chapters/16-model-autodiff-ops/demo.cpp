// Chapter 16 demo: prints the model-operation evidence and, with --trace PATH,
// writes the forward chain with its fork, the per-position loss gradients,
// the parent gradients, the embedding rows with their occurrence
// contributions, the scalar probes, the eight checks and the four errors.
#include <exception>
#include <iostream>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "demo_text.hpp"
#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"

namespace {

using demo::tensor_text;
using llm::format_fixed;
using llm::Tensor;

std::string ids_text(const std::vector<std::size_t>& ids) {
  return llm::format_list(std::span<const std::size_t>(ids));
}

const char* bool_text(bool value) {
  return value ? "true" : "false";
}

// region: learner-model-vjp-output
void print_evidence(const ch16::FrozenModelExample& example,
                    const std::vector<ch16::ScalarProbe>& probes,
                    const std::vector<ch16::NamedModelGradcheck>& checks,
                    const std::vector<ch16::ModelErrorCase>& errors) {
  std::cout << "embeddings: " << tensor_text(example.embeddings) << '\n';
  std::cout << "token IDs: " << ids_text(example.token_ids) << '\n';
  std::cout << "gather rows: " << tensor_text(example.gathered) << '\n';
  std::cout << "projection weights: " << tensor_text(example.weights) << '\n';
  std::cout << "projection preactivations: " << tensor_text(example.projection_preactivations)
            << '\n';
  std::cout << "SiLU: " << tensor_text(example.activated) << '\n';
  std::cout << "log-softmax axis=1: " << tensor_text(example.log_probabilities) << '\n';
  std::cout << "targets: " << ids_text(example.targets) << '\n';
  std::cout << "indexed mean NLL: " << tensor_text(example.loss) << '\n';
  std::cout << "target-logit gradient: " << tensor_text(example.loss_input_gradient) << '\n';
  std::cout << "through SiLU: " << tensor_text(example.matmul_output_gradient) << '\n';
  std::cout << "matmul left gradient: " << tensor_text(example.gathered_gradient) << '\n';
  std::cout << "embedding scatter-add: " << tensor_text(example.embedding_gradient) << '\n';
  std::cout << "matmul right gradient: " << tensor_text(example.weight_gradient) << '\n';

  std::cout << "scalar probes: ";
  for (std::size_t k = 0; k < probes.size(); ++k) {
    std::cout << (k == 0 ? "" : " | ") << probes[k].label << "->(" << format_fixed(probes[k].output)
              << ", " << format_fixed(probes[k].gradient) << ')';
  }
  std::cout << '\n';

  std::string names;
  bool passed = true;
  for (const ch16::NamedModelGradcheck& check : checks) {
    names += (names.empty() ? "" : " | ") + check.operation;
    passed = passed && check.report.passed;
  }
  std::cout << "gradcheck: " << names << "; pass=" << bool_text(passed) << '\n';

  std::string labels;
  bool unchanged = true;
  for (const ch16::ModelErrorCase& error : errors) {
    labels += (labels.empty() ? "" : " | ") + error.label;
    unchanged = unchanged && error.gradients_unchanged;
  }
  std::cout << "typed errors: " << labels << "; gradients unchanged=" << bool_text(unchanged)
            << '\n';
  std::cout << "chapter 17 handoff: initialize trainable values reproducibly\n";
}
// endregion: learner-model-vjp-output

// --- The trace -----------------------------------------------------------------

// The values of row `row` of a [rows, width] tensor.
demo::Json row_json(const Tensor& tensor, std::size_t row) {
  const std::size_t width = tensor.shape().back();
  demo::Json values = demo::Json::array();
  for (std::size_t k = 0; k < width; ++k) values.push_back(tensor.values()[row * width + k]);
  return values;
}

// The forward steps, and the fork: the one step whose result more than one
// later step reads, as the traced passes recorded it.
demo::Json forward_json(const ch16::FrozenModelExample& example) {
  demo::Json steps = demo::Json::array();
  std::vector<std::vector<std::size_t>> readers(example.forward.size());
  for (std::size_t k = 0; k < example.forward.size(); ++k) {
    const ch16::ForwardStep& step = example.forward[k];
    for (std::size_t source : step.consumes) readers.at(source).push_back(k);
    const demo::Json value = demo::tensor_json(step.value);
    steps.push_back({{"step", k},
                     {"name", step.name},
                     {"operation", step.operation.name()},
                     {"label", step.label},
                     {"operands", step.operands},
                     {"operand_shapes", step.operand_shapes},
                     {"consumes", step.consumes},
                     {"integer_inputs", step.integer_inputs},
                     {"output_shape", value["shape"]},
                     {"values", value["values"]}});
  }
  demo::Json fork = nullptr;
  for (std::size_t k = 0; k < readers.size(); ++k) {
    if (readers[k].size() < 2) continue;
    if (!fork.is_null()) throw std::runtime_error("the chain forks more than once");
    fork = {{"after_step", k}, {"shared", example.forward[k].label}, {"branches", readers[k]}};
  }
  return {{"steps", steps}, {"fork", fork}};
}

// One row per flat position p = b * T + t: its token, target and loss-logit gradient.
demo::Json position_gradients_json(const ch16::FrozenModelExample& example) {
  demo::Json rows = demo::Json::array();
  for (std::size_t p = 0; p < example.token_ids.size(); ++p) {
    const std::size_t target = example.targets[p];
    const demo::Json gradient = row_json(example.loss_input_gradient, p);
    rows.push_back({{"flat_position", p},
                    {"batch", p / ch16::kTime},
                    {"time", p % ch16::kTime},
                    {"token_id", example.token_ids[p]},
                    {"target_class", target},
                    {"gradient", gradient},
                    {"target_component", gradient[target]},
                    {"other_component", gradient[1 - target]},  // two classes
                    {"class_sum", gradient[0].get<double>() + gradient[1].get<double>()}});
  }
  return rows;
}

demo::Json parent_gradients_json(const ch16::FrozenModelExample& example) {
  const auto parent = [](const char* operation, const char* operand, const char* tensor,
                         const Tensor& gradient) {
    const demo::Json json = demo::tensor_json(gradient);
    return demo::Json{{"operation", operation},
                      {"operand", operand},
                      {"parent", tensor},
                      {"shape", json["shape"]},
                      {"values", json["values"]}};
  };
  return demo::Json::array(
      {parent("SiLU", "single input", "projection preactivations", example.matmul_output_gradient),
       parent("Matrix product", "left matrix", "gathered feature rows", example.gathered_gradient),
       parent("Matrix product", "right matrix", "projection weights", example.weight_gradient)});
}

// Each table row with the occurrences whose IDs selected it, and their sum.
demo::Json embedding_rows_json(const ch16::FrozenModelExample& example) {
  demo::Json rows = demo::Json::array();
  for (std::size_t row = 0; row < example.embeddings.shape()[0]; ++row) {
    demo::Json positions = demo::Json::array();
    demo::Json occurrences = demo::Json::array();
    for (std::size_t p = 0; p < example.token_ids.size(); ++p) {
      if (example.token_ids[p] != row) continue;
      positions.push_back(p);
      occurrences.push_back(
          {{"flat_position", p}, {"contribution", row_json(example.gathered_gradient, p)}});
    }
    rows.push_back({{"row", row},
                    {"flat_positions", positions},
                    {"occurrence_count", occurrences.size()},
                    {"occurrences", occurrences},
                    {"total", row_json(example.embedding_gradient, row)}});
  }
  return rows;
}

// The reverse ledger of the traced pass: one entry per operand use, its
// consumer and parent named by the fixture's node labels.
demo::Json reverse_ledger_json(const llm::TensorBackwardTrace& trace,
                               const std::vector<std::string>& labels) {
  demo::Json edges = demo::Json::array();
  for (const llm::TensorTraceEdge& edge : trace.edges) {
    edges.push_back({{"reverse_index", edge.reverse_index},
                     {"consumer", edge.child},
                     {"consumer_label", labels.at(edge.child)},
                     {"operation", trace.nodes.at(edge.child).operation.name()},
                     {"operand_slot", edge.operand},
                     {"parent", edge.parent},
                     {"parent_label", labels.at(edge.parent)},
                     {"parent_operation", trace.nodes.at(edge.parent).operation.name()},
                     {"rule", edge.rule},
                     {"upstream", demo::tensor_json(edge.upstream)},
                     {"contribution", demo::optional_tensor_json(edge.contribution)},
                     {"parent_shape", edge.parent_shape}});
  }
  return edges;
}

demo::Json check_json(const ch16::NamedModelGradcheck& check) {
  return {{"operation", check.operation},
          {"expression", check.expression},
          {"input", demo::tensor_json(check.input)},
          {"weights", demo::tensor_json(check.weights)},
          {"analytic", demo::tensor_json(check.analytic)},
          {"step", ch16::kGradcheckStep},
          {"tolerance", ch16::kGradcheckTolerance},
          {"requested_samples", check.report.requested_samples},
          {"coordinates", demo::coordinate_checks_json(check.report)},
          {"passed", check.report.passed}};
}

demo::Json asymmetric_json(const ch16::AsymmetricChainExample& example) {
  return {{"weights", demo::tensor_json(example.weights)},
          {"preactivations", demo::tensor_json(example.preactivations)},
          {"logits", demo::tensor_json(example.logits)},
          {"probabilities", demo::tensor_json(example.probabilities)},
          {"loss", example.loss},
          {"masked_loss", example.masked_loss},
          {"nll_logit_gradient", demo::tensor_json(example.nll_logit_gradient)},
          {"log_softmax_logit_gradient", demo::tensor_json(example.log_softmax_logit_gradient)},
          {"through_silu", demo::tensor_json(example.through_silu)},
          {"through_sigmoid_only", demo::tensor_json(example.through_sigmoid_only)},
          {"embedding_gradient", demo::tensor_json(example.embedding_gradient)},
          {"weight_gradient", demo::tensor_json(example.weight_gradient)},
          {"baseline",
           {{"max_abs_difference", example.baseline_max_difference},
            {"tolerance", ch16::kBaselineTolerance},
            {"compared", example.baseline_compared}}}};
}

demo::Json chapter13_json(const ch16::Chapter13NllExample& example) {
  return {{"logits", demo::tensor_json(example.logits)},
          {"targets", example.targets},
          {"loss", example.loss},
          {"tape_gradient", demo::tensor_json(example.tape_gradient)},
          {"handwritten_gradient", demo::tensor_json(example.handwritten_gradient)},
          {"max_abs_difference", example.max_difference}};
}

demo::Json descent_json(const ch16::GradientDescentExample& example) {
  return {{"learning_rate", example.learning_rate},
          {"losses", example.losses},
          {"final_embeddings", demo::tensor_json(example.final_embeddings)},
          {"final_weights", demo::tensor_json(example.final_weights)},
          {"final_probabilities", demo::tensor_json(example.final_probabilities)}};
}

// Examples computed for the trace only: the printed output stays that of the
// earlier edition.
struct TraceOnly {
  ch16::AsymmetricChainExample asymmetric;
  ch16::Chapter13NllExample chapter13;
  ch16::GradientDescentExample descent;
};

demo::Json trace_json(const ch16::FrozenModelExample& example, const TraceOnly& extra,
                      const std::vector<ch16::ScalarProbe>& probes,
                      const std::vector<ch16::NamedModelGradcheck>& checks,
                      const std::vector<ch16::ModelErrorCase>& errors) {
  demo::Json probe_list = demo::Json::array();
  for (const ch16::ScalarProbe& probe : probes) {
    probe_list.push_back({{"operation", probe.operation},
                          {"label", probe.label},
                          {"input", probe.input},
                          {"output", probe.output},
                          {"derivative", probe.gradient}});
  }
  demo::Json check_list = demo::Json::array();
  bool checks_passed = true;
  for (const ch16::NamedModelGradcheck& check : checks) {
    check_list.push_back(check_json(check));
    checks_passed = checks_passed && check.report.passed;
  }
  demo::Json error_list = demo::Json::array();
  bool unchanged = true;
  for (const ch16::ModelErrorCase& error : errors) {
    error_list.push_back({{"label", error.label},
                          {"error_type", error.error_type},
                          {"kind", error.kind},
                          {"message", error.message},
                          {"parameter", error.parameter},
                          {"gradient_before", demo::tensor_json(error.gradient_before)},
                          {"gradients_unchanged", error.gradients_unchanged}});
    unchanged = unchanged && error.gradients_unchanged;
  }
  return {{"chapter", "16-model-autodiff-ops"},
          {"inputs",
           {{"embeddings", demo::tensor_json(example.embeddings)},
            {"token_ids", example.token_ids},
            {"batch", ch16::kBatch},
            {"time", ch16::kTime},
            {"weights", demo::tensor_json(example.weights)},
            {"targets", example.targets},
            {"class_axis", ch16::kClassAxis}}},
          {"forward", forward_json(example)},
          {"loss", example.loss.values()[0]},
          {"position_gradients", position_gradients_json(example)},
          {"parent_gradients", parent_gradients_json(example)},
          {"embedding_rows", embedding_rows_json(example)},
          {"embedding_gradient", demo::tensor_json(example.embedding_gradient)},
          {"weight_gradient", demo::tensor_json(example.weight_gradient)},
          {"reverse_ledger", reverse_ledger_json(example.backward, example.backward_labels)},
          {"baseline",
           {{"max_abs_difference", example.baseline_max_difference},
            {"tolerance", ch16::kBaselineTolerance},
            {"compared", example.baseline_compared}}},
          {"asymmetric", asymmetric_json(extra.asymmetric)},
          {"chapter13_nll", chapter13_json(extra.chapter13)},
          {"descent", descent_json(extra.descent)},
          {"scalar_probes", probe_list},
          {"gradchecks", {{"checks", check_list}, {"passed", checks_passed}}},
          {"errors", {{"cases", error_list}, {"gradients_unchanged", unchanged}}}};
}

}  // namespace

// region: demo-main
int main(int argc, char** argv) {
  try {
    const auto trace = demo::trace_path(argc, argv);
    const ch16::FrozenModelExample example = ch16::frozen_model_example();
    const std::vector<ch16::ScalarProbe> probes = ch16::scalar_probes();
    const std::vector<ch16::NamedModelGradcheck> checks = ch16::model_vjp_gradchecks();
    const std::vector<ch16::ModelErrorCase> errors = ch16::model_error_example();
    const TraceOnly extra{ch16::asymmetric_chain_example(), ch16::chapter13_nll_example(),
                          ch16::gradient_descent_example()};

    print_evidence(example, probes, checks, errors);
    demo::write_trace(trace, trace_json(example, extra, probes, checks, errors));
    return 0;
  } catch (const std::exception& error) {
    std::cerr << "chapter 16 demo failed: " << error.what() << '\n';
    return 1;
  }
}
// endregion: demo-main
