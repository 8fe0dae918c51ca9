// Chapter 26 demo: one hidden-state sequence [1, 2, 3] projected into a
// query, a key and a value by three bias-free weights, forward and reverse;
// the shapes for other batch and token extents; the parameter names; seeded
// initialization; the refusals; the gradient check. With --trace PATH it also
// writes each branch's share of the input's adjoint, a two-item batch
// against its items, the wide-product comparison, additive attention and
// every refusal's message, for the figures.
#include <array>
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
using demo::compact_list;
using demo::compact_shape;
using demo::compact_tensor_line;
using demo::compact_values;
using demo::Json;

// `[1,2,3]->three*[1,2,2]` when the three projections agree in shape.
std::string shape_rule(const llm::Shape& input) {
  const std::array<llm::Shape, 3> out = ch26::output_shapes(input);
  const bool same = out[0] == out[1] && out[1] == out[2];
  return compact_shape(input) + "->" +
         (same ? "three*" + compact_shape(out[0])
               : compact_shape(out[0]) + "," + compact_shape(out[1]) + "," + compact_shape(out[2]));
}

Json pass_json(const ch26::ProjectionPass& p) {
  return {{"input", demo::tensor_json(p.input)},
          {"query_weight", demo::tensor_json(p.query_weight)},
          {"key_weight", demo::tensor_json(p.key_weight)},
          {"value_weight", demo::tensor_json(p.value_weight)},
          {"query", demo::tensor_json(p.query)},
          {"key", demo::tensor_json(p.key)},
          {"value", demo::tensor_json(p.value)},
          {"query_upstream", demo::tensor_json(p.query_upstream)},
          {"key_upstream", demo::tensor_json(p.key_upstream)},
          {"value_upstream", demo::tensor_json(p.value_upstream)},
          {"objective", p.objective},
          {"input_gradient", demo::tensor_json(p.input_gradient)},
          {"query_weight_gradient", demo::tensor_json(p.query_weight_gradient)},
          {"key_weight_gradient", demo::tensor_json(p.key_weight_gradient)},
          {"value_weight_gradient", demo::tensor_json(p.value_weight_gradient)},
          {"parameter_names", p.parameter_names},
          {"parameter_count", p.parameter_count}};
}

Json trace_json(const ch26::ProjectionPass& worked, const ch26::InitializationEvidence& init,
                const ch26::ErrorEvidence& errors, const ch26::AdditiveAttention& additive,
                const ch26::GradientCheckEvidence& check) {
  const ch26::BranchShares shares = ch26::branch_shares();
  const ch26::BatchEvidence batch = ch26::batch_evidence();
  const ch26::WideProductEvidence wide = ch26::wide_product_evidence();
  Json refusals = Json::array();
  for (const ch26::Refusal& r : errors.refusals)
    refusals.push_back({{"request", r.request}, {"kind", r.kind}, {"message", r.message}});
  Json shapes = Json::array();
  for (const llm::Shape& input : {llm::Shape{1, 2, 3}, llm::Shape{2, 2, 3}, llm::Shape{1, 0, 3},
                                  llm::Shape{0, 2, 3}, llm::Shape{4, 7, 3}}) {
    shapes.push_back({{"input", input}, {"output", ch26::output_shapes(input)[0]}});
  }
  return {{"worked", pass_json(worked)},
          {"shares",
           {{"query", demo::tensor_json(shares.query)},
            {"key", demo::tensor_json(shares.key)},
            {"value", demo::tensor_json(shares.value)}}},
          {"batch",
           {{"batch", pass_json(batch.batch)},
            {"first", pass_json(batch.first)},
            {"second", pass_json(batch.second)}}},
          {"shapes", shapes},
          {"initialization",
           {{"seed", ch26::kSeed},
            {"query_weight", demo::tensor_json(init.query_weight)},
            {"key_weight", demo::tensor_json(init.key_weight)},
            {"value_weight", demo::tensor_json(init.value_weight)},
            {"reproducible", init.reproducible},
            {"independent", init.independent},
            {"transactional", init.transactional}}},
          {"refusals", refusals},
          {"shared_weight_refused", errors.shared_weight},
          {"bias_refused", errors.bias},
          {"wide_product",
           {{"input", wide.input},
            {"wide_weight", wide.wide_weight},
            {"compared", wide.compared},
            {"differing", wide.differing}}},
          {"additive",
           {{"query_source", additive.query_source},
            {"key_value_source", additive.key_value_source},
            {"decoder_state", additive.decoder_state},
            {"annotations", additive.annotations},
            {"scores", additive.scores},
            {"weights", additive.weights},
            {"context", additive.context}}},
          {"gradcheck",
           {{"input_checks", check.input_checks},
            {"query_checks", check.query_checks},
            {"key_checks", check.key_checks},
            {"value_checks", check.value_checks},
            {"step", ch26::kGradcheckStep},
            {"tolerance", ch26::kGradcheckTolerance},
            {"largest_scaled_error", check.largest_scaled_error},
            {"passed", check.passed}}}};
}

}  // namespace

// region: learner-qkv-report
int main(int argc, char** argv) try {
  const auto trace_path = demo::trace_path(argc, argv);
  const ch26::ProjectionPass p = ch26::worked_pass();
  const ch26::IndependenceEvidence independence = ch26::independence_evidence();
  const ch26::InitializationEvidence init = ch26::initialization_evidence();
  const ch26::ErrorEvidence errors = ch26::error_evidence();
  const ch26::AdditiveAttention additive = ch26::additive_attention();
  const ch26::GradientCheckEvidence check = ch26::gradient_check_evidence();
  const llm::Shape& in = p.input.shape();
  const llm::Shape& head = p.query.shape();

  std::cout << "chapter=26-qkv-projections\n";
  std::cout << "prediction=three independent bias-free projections preserve batch and token "
               "axes\n";
  std::cout << "config=batch:" << in[0] << " tokens:" << in[1] << " d_model:" << in[2]
            << " d_head:" << head[2] << " bias:" << bool_text(!errors.bias)
            << "\n";  // a biased projection is refused
  std::cout << compact_tensor_line("input", p.input) << '\n';
  std::cout << compact_tensor_line("query_weight", p.query_weight) << '\n';
  std::cout << compact_tensor_line("key_weight", p.key_weight) << '\n';
  std::cout << compact_tensor_line("value_weight", p.value_weight) << '\n';
  std::cout << compact_tensor_line("query", p.query) << '\n';
  std::cout << compact_tensor_line("key", p.key) << '\n';
  std::cout << compact_tensor_line("value", p.value) << '\n';
  std::cout << "parameter_names=" << compact_list(p.parameter_names) << '\n';
  std::cout << "parameter_count=" << p.parameter_count << " independent:"
            << bool_text(independence.query_changed && independence.key_unchanged &&
                         independence.value_unchanged)
            << '\n';
  std::cout << "shape_rule=" << shape_rule(in) << '\n';
  std::cout << "batch_probe=" << shape_rule({2, in[1], in[2]}) << '\n';
  std::cout << "empty_tokens=" << shape_rule({in[0], 0, in[2]}) << '\n';
  std::cout << "history=additive_query:" << additive.query_source
            << " additive_key_value:" << additive.key_value_source
            << " self_attention_qkv:" << ch26::kSelfAttentionSource << '\n';
  std::cout << "upstream_query=" << compact_values(p.query_upstream) << '\n';
  std::cout << "upstream_key=" << compact_values(p.key_upstream) << '\n';
  std::cout << "upstream_value=" << compact_values(p.value_upstream) << '\n';
  std::cout << "input_gradient=" << compact_values(p.input_gradient) << '\n';
  std::cout << "query_weight_gradient=" << compact_values(p.query_weight_gradient) << '\n';
  std::cout << "key_weight_gradient=" << compact_values(p.key_weight_gradient) << '\n';
  std::cout << "value_weight_gradient=" << compact_values(p.value_weight_gradient) << '\n';
  std::cout << "gradcheck=input_checks:" << check.input_checks
            << " query_checks:" << check.query_checks << " key_checks:" << check.key_checks
            << " value_checks:" << check.value_checks
            << " tolerance:" << llm::format_fixed(ch26::kGradcheckTolerance, 6)
            << " passed:" << bool_text(check.passed) << '\n';
  std::cout << "initialization=seed:" << ch26::kSeed
            << " transactional:" << bool_text(init.transactional && init.reproducible)
            << " independent:" << bool_text(init.independent) << '\n';
  std::cout << "errors=rank:" << bool_text(errors.rank) << " width:" << bool_text(errors.width)
            << " model_mismatch:" << bool_text(errors.model_mismatch)
            << " head_mismatch:" << bool_text(errors.head_mismatch)
            << " duplicate_name:" << bool_text(errors.duplicate_name) << '\n';
  std::cout << "same_fixture_replays_bitwise=" << bool_text(ch26::worked_pass_replays_bitwise())
            << '\n';
  std::cout << "next=compare queries with keys and mix values\n";

  demo::write_trace(trace_path, trace_json(p, init, errors, additive, check));
  return 0;
} catch (const std::exception& error) {
  std::cerr << "chapter 26 demo failed: " << error.what() << '\n';
  return 1;
}
// endregion: learner-qkv-report
