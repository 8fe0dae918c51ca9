// Chapter 30 demo: causal multi-head attention with rotary positions. A
// layer of width 4 with two heads of width 2, identity Q/K/V projections and
// an output projection that swaps the heads' blocks runs on one three-token
// input; the demo prints every intermediate, the loss and its five
// gradients, the causal, layout and offset checks, the parameters, the
// shapes, the refusals and a gradient check of all 76 coordinates. With
// --trace PATH it also writes a layer with seeded Xavier-uniform weights on
// the same input (unequal heads, and the exchange of W_Q and W_K that the
// identity layer cannot see), the single-head comparison and every refusal.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "demo_compact.hpp"
#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"

namespace {

using demo::bool_text;
using demo::canonical_tensor;
using demo::canonical_values;
using demo::compact_shape;
using demo::Json;

std::string joined_names(const std::vector<std::string>& names) {
  std::string text = "[";
  for (std::size_t i = 0; i < names.size(); ++i) text += (i == 0 ? "" : ",") + names[i];
  return text + "]";
}

std::string joined_shapes(const std::vector<llm::Shape>& shapes) {
  std::string text = "[";
  for (std::size_t i = 0; i < shapes.size(); ++i)
    text += (i == 0 ? "" : ",") + compact_shape(shapes[i]);
  return text + "]";
}

}  // namespace

// region: multi-head-report
int main(int argc, char** argv) try {
  const auto trace_path = demo::trace_path(argc, argv);
  const ch30::AttentionEvidence e = ch30::attention_evidence();
  const ch30::ParameterEvidence parameters = ch30::parameter_evidence();
  const ch30::ShapeEvidence shapes = ch30::shape_evidence();
  const ch30::RefusalEvidence refused = ch30::refusal_evidence();
  const ch30::GradientCheckEvidence check = ch30::gradient_check_evidence(e);
  const ch30::HistoryEvidence history = ch30::history_evidence(e);
  const bool replay = ch30::attention_replays_bitwise();

  std::cout << "chapter=30-multi-head-attention\n";
  std::cout << "prediction=projection creates two learned feature lanes; each lane normalizes its "
               "own causal rows; W_O first learns how to mix the concatenated results\n";
  std::cout << "config=batch:" << ch30::kBatch << " tokens:" << ch30::kTokens
            << " d_model:" << ch30::kModelWidth << " heads:" << ch30::kHeads
            << " d_h:" << ch30::kModelWidth / ch30::kHeads
            << " offset:0 capacity:" << ch30::kCapacity
            << " rope_base:" << llm::format_fixed(ch30::kRopeBase, 6) << " bias:false\n";
  std::cout << "input=" << canonical_tensor(e.input) << '\n';
  std::cout << "projected_query_heads=" << canonical_tensor(e.query_heads) << '\n';
  std::cout << "projected_key_heads=" << canonical_tensor(e.key_heads) << '\n';
  std::cout << "projected_value_heads=" << canonical_tensor(e.value_heads) << '\n';
  std::cout << "rotated_query_heads=" << canonical_tensor(e.rotated_query_heads) << '\n';
  std::cout << "rotated_key_heads=" << canonical_tensor(e.rotated_key_heads) << '\n';
  std::cout << "attention_weights=" << canonical_tensor(e.weights) << '\n';
  std::cout << "head_outputs=" << canonical_tensor(e.head_outputs) << '\n';
  std::cout << "merged=" << canonical_tensor(e.merged) << '\n';
  std::cout << "output_weight=" << canonical_tensor(e.output_weight) << '\n';
  std::cout << "output=" << canonical_tensor(e.output) << '\n';
  std::cout << "heads=head_0_uniform:" << bool_text(e.head_0_uniform)
            << " head_1_distinct:" << bool_text(e.head_1_distinct)
            << " future_probabilities_zero:" << bool_text(e.future_probabilities_zero) << '\n';
  std::cout << "prefix_perturbed_output=" << canonical_values(e.prefix_perturbed_output.values())
            << " position_0_unchanged:" << bool_text(e.position_0_unchanged)
            << " position_1_unchanged:" << bool_text(e.position_1_unchanged)
            << " position_2_changed:" << bool_text(e.position_2_changed) << '\n';
  std::cout << "layout=split_merge_bitwise:" << bool_text(e.split_merge_bitwise)
            << " head_isolation_before_output:" << bool_text(e.head_isolation_before_output)
            << " common_offset_weights_preserved:" << bool_text(e.common_offset_weights_preserved)
            << " tolerance:" << llm::format_fixed(ch30::kInvariantTolerance, 12) << '\n';
  std::cout << "parameters=names:" << joined_names(parameters.names)
            << " shapes:" << joined_shapes(parameters.shapes) << " count:" << parameters.count
            << " bias_free:" << bool_text(parameters.bias_free)
            << " node_distinct:" << bool_text(parameters.node_distinct) << '\n';
  std::cout << "upstream=" << canonical_values(e.upstream.values())
            << " loss:" << llm::format_fixed(demo::canonical_value(e.loss), 6) << '\n';
  std::cout << "input_gradient=" << canonical_values(e.input_gradient.values()) << '\n';
  const char* gradient_labels[] = {"query", "key", "value", "output"};
  for (std::size_t i = 0; i < e.weight_gradients.size(); ++i) {
    std::cout << gradient_labels[i]
              << "_weight_gradient=" << canonical_values(e.weight_gradients[i].values()) << '\n';
  }
  std::cout << "gradcheck=input:" << check.checks[0].checks.size()
            << " query:" << check.checks[1].checks.size()
            << " key:" << check.checks[2].checks.size()
            << " value:" << check.checks[3].checks.size()
            << " output:" << check.checks[4].checks.size() << " total:" << check.total
            << " tolerance:" << llm::format_fixed(ch30::kGradcheckTolerance, 6)
            << " passed:" << bool_text(check.passed) << '\n';
  std::cout << "shapes=input:" << compact_shape(e.input.shape())
            << " split:" << compact_shape(e.query_heads.shape())
            << " rotated:" << compact_shape(e.rotated_query_heads.shape())
            << " weights:" << compact_shape(e.weights.shape())
            << " head_output:" << compact_shape(e.head_outputs.shape())
            << " merged:" << compact_shape(e.merged.shape())
            << " output_weight:" << compact_shape(e.output_weight.shape())
            << " output:" << compact_shape(e.output.shape())
            << " empty_batch_weights:" << compact_shape(shapes.empty_batch_weights)
            << " empty_batch_output:" << compact_shape(shapes.empty_batch_output)
            << " single_token_weights:" << compact_shape(shapes.single_token_weights) << '\n';
  std::cout << "errors=";
  for (std::size_t i = 0; i < refused.refusals.size(); ++i) {
    std::cout << (i == 0 ? "" : " ") << refused.refusals[i].label << ':'
              << bool_text(refused.refusals[i].error.kind() == ch30::kExpectedRefusals[i]);
  }
  std::cout << " released_input:"
            << bool_text(refused.released.error.kind() ==
                         llm::TensorAutodiffErrorKind::ReleasedGraph)
            << '\n';
  std::cout << "history=earlier_weighted_context:"
            << canonical_values(history.earlier_weighted_context)
            << " earlier_distributions_per_target:1"
            << " single_head_shape:" << compact_shape(history.single_head_shape)
            << " multi_head_shape:" << compact_shape(history.multi_head_shape)
            << " single_head_tables:" << history.single_head_tables
            << " multi_head_tables:" << history.multi_head_tables
            << " rows_normalized:" << bool_text(history.rows_normalized)
            << " mixing:after-concatenation modern_example:llama-causal-heads-plus-rope"
               " weight_api:dense-teaching-evidence\n";
  std::cout << "proof=tape_finite:" << bool_text(e.tape_finite)
            << " replay:" << (replay ? "bitwise" : "mismatch")
            << " heads_distinct:" << bool_text(e.head_1_distinct)
            << " causal:" << bool_text(e.future_probabilities_zero)
            << " split_merge:" << bool_text(e.split_merge_bitwise)
            << " gradients:" << bool_text(check.passed) << '\n';
  std::cout
      << "next=wrap this attention transformation in the first pre-normalized residual path\n";

  const ch30::SwapEvidence swap = ch30::swap_evidence();
  const auto error_fields = [](const auto&) { return Json::object(); };
  Json refusals = demo::rejections_json(refused.refusals, error_fields);
  refusals.push_back(demo::rejections_json(std::vector{refused.released}, error_fields)[0]);
  Json gradients = Json::array();
  for (const llm::Tensor& g : e.weight_gradients) gradients.push_back(demo::tensor_json(g));
  demo::write_trace(trace_path,
                    {{"config",
                      {{"batch", ch30::kBatch},
                       {"tokens", ch30::kTokens},
                       {"model_width", ch30::kModelWidth},
                       {"heads", ch30::kHeads},
                       {"head_width", ch30::kModelWidth / ch30::kHeads},
                       {"capacity", ch30::kCapacity},
                       {"rope_base", ch30::kRopeBase},
                       {"shift", ch30::kShift},
                       {"seed", ch30::kAsymmetricSeed}}},
                     {"input", demo::tensor_json(e.input)},
                     {"query_heads", demo::tensor_json(e.query_heads)},
                     {"rotated_query_heads", demo::tensor_json(e.rotated_query_heads)},
                     {"weights", demo::tensor_json(e.weights)},
                     {"head_outputs", demo::tensor_json(e.head_outputs)},
                     {"merged", demo::tensor_json(e.merged)},
                     {"output", demo::tensor_json(e.output)},
                     {"loss", e.loss},
                     {"weight_gradients", gradients},
                     {"prefix_perturbed_output", demo::tensor_json(e.prefix_perturbed_output)},
                     {"single_head_weights", demo::tensor_json(history.single_head_weights)},
                     {"seeded",
                      {{"query_weight", demo::tensor_json(swap.query_weight)},
                       {"key_weight", demo::tensor_json(swap.key_weight)},
                       {"weights", demo::tensor_json(swap.weights)},
                       {"output", demo::tensor_json(swap.output)},
                       {"swapped_output", demo::tensor_json(swap.swapped_output)},
                       {"swap_max_difference", swap.swap_max_difference},
                       {"printed_swap_identical", swap.printed_swap_identical}}},
                     {"refusals", refusals},
                     {"gradcheck",
                      {{"total", check.total},
                       {"step", ch30::kGradcheckStep},
                       {"tolerance", ch30::kGradcheckTolerance},
                       {"passed", check.passed}}}});
  return 0;
} catch (const std::exception& error) {
  std::cerr << "chapter 30 demo failed: " << error.what() << '\n';
  return 1;
}
// endregion: multi-head-report
