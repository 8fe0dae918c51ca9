// Chapter 31 demo: one pre-norm decoder block on the reference fixture; its
// shapes, residual order, causality, parameters, gradient check, refusals,
// historical contrasts and replay. With --trace PATH it also writes every
// stage row, the attention weights, the post-norm contrast and the wiring
// probes of an asymmetric block, for the page and its figures.
#include <bit>
#include <cmath>
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

// `[1,3,4]`, as the earlier edition prints a shape.
std::string shape_text(const llm::Shape& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    text += (i == 0 ? "" : ",") + std::to_string(shape[i]);
  return text + "]";
}
const char* bool_text(bool value) {
  return value ? "true" : "false";
}

// A value as the figures show it: |v| < 0.5e-6 is a rounding residue of an
// exact zero (either sign) and is written 0 (the earlier edition's rule).
double canonical(double value) {
  return (value < 0.5e-6 && value > -0.5e-6) ? 0.0 : value;
}
Json rows_json(const llm::Tensor& tensor) {
  const std::size_t width = tensor.shape().back();
  Json rows = Json::array();
  for (std::size_t start = 0; start < tensor.size(); start += width) {
    Json row = Json::array();
    for (std::size_t i = 0; i < width; ++i) row.push_back(canonical(tensor.values()[start + i]));
    rows.push_back(row);
  }
  return rows;
}

bool same_bits(const llm::Tensor& a, const llm::Tensor& b) {
  return a.shape() == b.shape() && demo::bits_of(a) == demo::bits_of(b);
}

// Whether two runs of the fixture agree in every value and gradient, bit for bit.
bool bits_equal(const ch31::BlockRun& a, const ch31::BlockRun& b) {
  const llm::Tensor* left[] = {&a.attention_norm,  &a.attention_weights, &a.attention_branch,
                               &a.after_attention, &a.feed_forward_norm, &a.feed_forward_branch,
                               &a.output,          &a.probe_logits,      &a.input_gradient};
  const llm::Tensor* right[] = {&b.attention_norm,  &b.attention_weights, &b.attention_branch,
                                &b.after_attention, &b.feed_forward_norm, &b.feed_forward_branch,
                                &b.output,          &b.probe_logits,      &b.input_gradient};
  bool same = std::bit_cast<std::uint64_t>(a.loss) == std::bit_cast<std::uint64_t>(b.loss);
  for (std::size_t i = 0; i < std::size(left); ++i) same = same && same_bits(*left[i], *right[i]);
  for (std::size_t i = 0; i < a.parameter_gradients.size(); ++i)
    same = same && same_bits(a.parameter_gradients[i], b.parameter_gradients[i]);
  return same;
}

}  // namespace

// region: learner-report
int main(int argc, char** argv) try {
  const auto trace_path = demo::trace_path(argc, argv);
  const ch31::BlockRun run = ch31::run_block(ch31::identity_weights(), ch31::kInput);
  const ch31::OrderEvidence order = ch31::order_evidence(run);
  const ch31::ParameterEvidence parameters = ch31::parameter_evidence();
  const ch31::GradientEvidence gradients = ch31::gradient_evidence(run);
  const std::vector<ch31::Refusal> refusals = ch31::refusals();
  const std::vector<double> states = ch31::recurrent_states({1.0, -0.5, 0.25});
  const bool replay = bits_equal(run, ch31::run_block(ch31::identity_weights(), ch31::kInput));
  const bool pre_norm = order.first_residual_exact && order.second_residual_exact;
  bool states_finite = states.size() == 3;
  for (double state : states) states_finite = states_finite && std::isfinite(state);
  // refusals() throws unless every request below was refused, in this order.
  auto refused = [&](std::size_t first, std::size_t count = 1) {
    return bool_text(refusals.size() >= first + count);
  };

  std::cout << "chapter=31-decoder-block\n";
  std::cout << "config=batch:" << ch31::kBatch << " tokens:" << ch31::kTokens
            << " model_width:" << ch31::kModelWidth << " heads:" << ch31::kHeads
            << " head_width:" << ch31::kModelWidth / ch31::kHeads
            << " feed_forward_width:" << ch31::kFeedForwardWidth
            << " epsilon:" << format_fixed(ch31::kEpsilon, 6) << '\n';
  std::cout << "shape=input:" << shape_text(run.input.shape())
            << " attention_norm:" << shape_text(run.attention_norm.shape())
            << " attention_weights:" << shape_text(run.attention_weights.shape())
            << " attention_branch:" << shape_text(run.attention_branch.shape())
            << " after_attention:" << shape_text(run.after_attention.shape())
            << " feed_forward_norm:" << shape_text(run.feed_forward_norm.shape())
            << " feed_forward_branch:" << shape_text(run.feed_forward_branch.shape())
            << " output:" << shape_text(run.output.shape())
            << " probe_logits:" << shape_text(run.probe_logits.shape()) << '\n';
  std::cout << "order=attention_norm->attention->residual->feed_forward_norm->feed_forward->"
               "residual pre_norm:"
            << bool_text(pre_norm) << " post_norm_differs:" << bool_text(order.post_norm_differs)
            << '\n';
  std::cout << "causality=prefix_0_bitwise:" << bool_text(order.prefix_unchanged[0])
            << " prefix_1_bitwise:" << bool_text(order.prefix_unchanged[1])
            << " suffix_changed:" << bool_text(order.suffix_changed)
            << " future_probabilities_zero:" << bool_text(order.future_probabilities_zero) << '\n';
  std::cout << "parameters=tensors:" << parameters.tensors << " scalars:" << parameters.scalars
            << " bias_free:" << bool_text(parameters.bias_free)
            << " stable_order:" << bool_text(parameters.stable_order)
            << " distinct:" << bool_text(parameters.distinct) << '\n';
  std::cout << "gradcheck=input:" << gradients.input_checks
            << " parameters:" << gradients.parameter_total
            << " total:" << gradients.input_checks + gradients.parameter_total
            << " tolerance:" << format_fixed(ch31::kTolerance, 6)
            << " passed:" << bool_text(gradients.passed)
            << " tape_finite:" << bool_text(run.tape_finite) << '\n';
  std::cout << "errors=configuration:" << refused(0, 3) << " component_width:" << refused(3)
            << " input_rank:" << refused(4) << " input_width:" << refused(5)
            << " empty_tokens:" << refused(6) << " position_range:" << refused(7)
            << " released_input:" << refused(8) << '\n';
  std::cout << "history=sequential_recurrence:" << bool_text(states_finite)
            << " original_post_norm:" << bool_text(order.post_norm_rows_normalized)
            << " modern_pre_norm:" << bool_text(pre_norm)
            << " numeric_order_contrast:" << bool_text(order.post_norm_differs) << '\n';
  std::cout << "replay=" << (replay ? "bitwise" : "mismatch") << '\n';
  std::cout << "next=stack these blocks between token embeddings and a tied vocabulary head\n";
  // endregion: learner-report

  Json stages = Json::object();
  const std::pair<const char*, const llm::Tensor*> named[] = {
      {"input", &run.input},
      {"attention_norm", &run.attention_norm},
      {"attention_branch", &run.attention_branch},
      {"after_attention", &run.after_attention},
      {"feed_forward_norm", &run.feed_forward_norm},
      {"feed_forward_branch", &run.feed_forward_branch},
      {"output", &run.output},
      {"probe_logits", &run.probe_logits},
      {"perturbed_output", &order.perturbed_output},
      {"post_norm_first_stage", &order.post_norm_first_stage},
      {"input_gradient", &run.input_gradient}};
  for (const auto& [name, tensor] : named) stages[name] = rows_json(*tensor);
  Json refusal_list = Json::array();
  for (const ch31::Refusal& r : refusals)
    refusal_list.push_back({{"request", r.label}, {"kind", r.kind}, {"message", r.message}});
  Json probes = Json::array();
  for (const ch31::WiringProbe& p : ch31::wiring_probes())
    probes.push_back({{"bug", p.bug},
                      {"identity_detects", p.identity_fixture_detects},
                      {"asymmetric_detects", p.asymmetric_fixture_detects},
                      {"identity_difference", p.identity_max_difference},
                      {"asymmetric_difference", p.asymmetric_max_difference}});
  const ch31::BlockRun asymmetric =
      ch31::run_block(ch31::asymmetric_weights(), ch31::kAsymmetricInput);
  const auto [empty_shape, single_shape] = ch31::edge_shapes();
  demo::write_trace(
      trace_path, {{"stages", stages},
                   {"weights", rows_json(run.attention_weights)},
                   {"loss", run.loss},
                   {"upstream", ch31::kUpstream},
                   {"probe_weight", ch31::kProbeWeight},
                   {"parameters", {{"names", parameters.names}, {"scalars", parameters.scalars}}},
                   {"gradcheck",
                    {{"input", gradients.input_checks},
                     {"per_parameter", gradients.parameter_checks},
                     {"total", gradients.input_checks + gradients.parameter_total},
                     {"worst_abs_difference", gradients.worst_abs_difference},
                     {"step", ch31::kStep},
                     {"tolerance", ch31::kTolerance}}},
                   {"refusals", refusal_list},
                   {"edge_shapes", {{"empty_batch", empty_shape}, {"single_token", single_shape}}},
                   {"recurrent_states", states},
                   {"asymmetric",
                    {{"input", rows_json(asymmetric.input)},
                     {"gains",
                      {demo::tensor_json(ch31::asymmetric_weights()[0]),
                       demo::tensor_json(ch31::asymmetric_weights()[5])}},
                     {"output", rows_json(asymmetric.output)},
                     {"weights", rows_json(asymmetric.attention_weights)}}},
                   {"wiring_probes", probes}});
  return 0;
} catch (const std::exception& error) {
  std::cerr << "chapter 31 demo failed: " << error.what() << '\n';
  return 1;
}
