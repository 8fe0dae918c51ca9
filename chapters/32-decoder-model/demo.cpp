// Chapter 32 demo: a two-layer decoder with a tied head, from token IDs to
// logits and the mean next-token loss; its parameters tied and untied; the
// tied table's gradient split by role; depths, refusals, causality,
// gradient checks and replay. With --trace PATH it also writes every stage,
// the logits, each position's loss and the probe's gradients by role.
#include <exception>
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "demo_bits.hpp"
#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"

namespace {

using demo::Json;
using llm::format_fixed;

// Rust's `{:?}` of a shape: `[1, 3, 4]`.
std::string debug_shape(const llm::Shape& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    text += (i == 0 ? "" : ", ") + std::to_string(shape[i]);
  return text + "]";
}
// `[-0.862249,0.967613,...]`: six decimals, no spaces.
std::string values_text(std::span<const double> values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i)
    text += (i == 0 ? "" : ",") + format_fixed(values[i], 6);
  return text + "]";
}
const char* bool_text(bool value) {
  return value ? "true" : "false";
}

Json rows_json(const llm::Tensor& tensor) {
  const std::size_t width = tensor.shape().back();
  Json rows = Json::array();
  for (std::size_t start = 0; start < tensor.size(); start += width) {
    rows.push_back(std::vector<double>(tensor.values().begin() + start,
                                       tensor.values().begin() + start + width));
  }
  return rows;
}

}  // namespace

// region: learner-report
int main(int argc, char** argv) try {
  const auto trace_path = demo::trace_path(argc, argv);
  const llm::DecoderModel model = ch32::model();
  const ch32::ForwardEvidence forward = ch32::forward_evidence(model);
  const ch32::TyingEvidence tying = ch32::tying_evidence(model);
  const ch32::ParameterEvidence parameters = ch32::parameter_evidence(model);
  const std::vector<ch32::Refusal> refusals = ch32::refusals();  // throws unless all four refused
  const ch32::CausalityEvidence causality = ch32::causality_evidence(model);
  const ch32::GradientEvidence gradients = ch32::gradient_evidence(model);
  const bool replay =
      demo::bits_of(forward.logits) == demo::bits_of(ch32::forward_evidence(ch32::model()).logits);
  const auto logits = forward.logits.values();

  std::cout << "chapter=32-decoder-model\n";
  std::cout << "config=batch:" << ch32::kBatch << " tokens:" << ch32::kTokens
            << " vocabulary:" << ch32::kVocabulary << " model_width:" << ch32::kModelWidth
            << " layers:" << ch32::kLayers << " heads:" << ch32::kHeads
            << " head_width:" << ch32::kModelWidth / ch32::kHeads
            << " feed_forward_width:" << ch32::kFeedForwardWidth << " context:" << ch32::kContext
            << '\n';
  std::cout << "shape=embedding:" << debug_shape(forward.stages[0].shape())
            << " block_0:" << debug_shape(forward.stages[1].shape())
            << " block_1:" << debug_shape(forward.stages[2].shape())
            << " final_norm:" << debug_shape(forward.stages[3].shape())
            << " logits:" << debug_shape(forward.logits.shape()) << '\n';
  std::cout << "token_1_logits="
            << values_text(logits.subspan(ch32::kVocabulary, ch32::kVocabulary)) << '\n';
  std::cout << "targets=[1,2,3] mean_loss:" << format_fixed(forward.mean_loss, 6) << '\n';
  std::cout << "prediction=token_0:" << forward.predictions[0]
            << " token_1:" << forward.predictions[1] << " token_2:" << forward.predictions[2]
            << '\n';
  std::cout << "tying=name:" << tying.name
            << " lookup_and_head:" << bool_text(tying.no_head_parameter && tying.unread_rows_learn)
            << " gradient_roles:lookup+output decomposition_error:"
            << format_fixed(tying.decomposition_error, 12) << '\n';
  std::cout << "parameters=tensors:" << parameters.names.size() << " scalars:" << parameters.scalars
            << " untied_scalars:" << parameters.untied_scalars
            << " saved:" << parameters.untied_scalars - parameters.scalars
            << " bias_free:" << bool_text(parameters.bias_free)
            << " stable_order:" << bool_text(parameters.stable_order) << '\n';
  std::cout << "depths=zero_one_two:" << bool_text(ch32::depths_valid())
            << " configuration_errors:" << bool_text(refusals[0].kind == "empty-vocabulary")
            << " context_limit:" << bool_text(refusals[1].kind == "context-exceeded")
            << " vocabulary_errors:" << bool_text(refusals[2].kind == "gather-index-out-of-bounds")
            << " target_errors:" << bool_text(refusals[3].kind == "target-out-of-range") << '\n';
  std::cout << "causality=prefix_0_bitwise:" << bool_text(causality.prefix_unchanged[0])
            << " prefix_1_bitwise:" << bool_text(causality.prefix_unchanged[1])
            << " suffix_changed:" << bool_text(causality.suffix_changed) << '\n';
  std::cout << "gradcheck=tied_table:" << gradients.table_checks
            << " final_norm:" << gradients.gain_checks
            << " total:" << gradients.table_checks + gradients.gain_checks
            << " tolerance:" << format_fixed(ch32::kTolerance, 6) << " passed:"
            << bool_text(gradients.probe_passed && gradients.finite_gradients == gradients.tensors)
            << " stack_gradients:" << gradients.finite_gradients << "/" << gradients.tensors
            << '\n';
  std::cout << "replay=bitwise:" << bool_text(replay) << '\n';
  std::cout << "next=train this decoder and select a state with validation loss only\n";
  // endregion: learner-report

  Json stages = Json::object();
  for (std::size_t i = 0; i < forward.stages.size(); ++i)
    stages[forward.stage_names[i]] = rows_json(forward.stages[i]);
  Json refusal_list = Json::array();
  for (const ch32::Refusal& r : refusals)
    refusal_list.push_back({{"request", r.request}, {"kind", r.kind}, {"message", r.message}});
  const ch32::ForwardEvidence untied =
      ch32::forward_evidence(ch32::model(ch32::kLayers, llm::HeadTying::Untied));
  demo::write_trace(
      trace_path,
      {{"tokens", ch32::kTokenIds},
       {"targets", ch32::kTargetIds},
       {"stages", stages},
       {"logits", rows_json(forward.logits)},
       {"changed_logits", rows_json(causality.changed_logits)},
       {"position_nll", forward.position_nll},
       {"mean_loss", forward.mean_loss},
       {"predictions", forward.predictions},
       {"untied", {{"logits", rows_json(untied.logits)}, {"mean_loss", untied.mean_loss}}},
       {"parameters",
        {{"names", parameters.names},
         {"sizes", parameters.sizes},
         {"scalars", parameters.scalars},
         {"untied_scalars", parameters.untied_scalars}}},
       {"tying",
        {{"probe_table",
          rows_json(llm::Tensor({5, 4}, {ch32::kProbeTable.begin(), ch32::kProbeTable.end()}))},
         {"full", rows_json(tying.full)},
         {"lookup_role", rows_json(tying.lookup_role)},
         {"head_role", rows_json(tying.head_role)},
         {"decomposition_error", tying.decomposition_error}}},
       {"refusals", refusal_list},
       {"gradcheck",
        {{"table", gradients.table_checks},
         {"gain", gradients.gain_checks},
         {"tolerance", ch32::kTolerance},
         {"step", ch32::kStep},
         {"model_checks", gradients.model_checks},
         {"model_passed", gradients.model_passed}}}});
  return 0;
} catch (const std::exception& error) {
  std::cerr << "chapter 32 demo failed: " << error.what() << '\n';
  return 1;
}
