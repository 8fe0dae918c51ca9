// Chapter 25 demo: one feature vector through RMSNorm composed from small
// tape operations, forward and reverse; positive scaling with and without
// epsilon; a zero row and a batch; BatchNorm, LayerNorm and RMSNorm of one
// anchor; the gradient check of the fused operation. With --trace PATH it
// also writes the fused pass beside the composed one, an asymmetric two-row
// reverse pass, the refusals, how often scaling changes bits, and the
// epsilon curve for the figures.
#include <cmath>
#include <exception>
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "demo_compact.hpp"
#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"

namespace {

using demo::bool_text;
using demo::compact_tensor_line;
using demo::compact_values;
using demo::Json;
using llm::format_fixed;

bool all_finite(std::span<const double> values) {
  for (double value : values)
    if (!std::isfinite(value)) return false;
  return true;
}

std::string scale_line(const char* key, const ch25::ScaleProbe& probe, int difference_digits) {
  return std::string(key) + "=epsilon:" + format_fixed(probe.epsilon, 6) +
         " factor:" + format_fixed(probe.factor, 6) + " base:" + compact_values(probe.base) +
         " scaled:" + compact_values(probe.scaled) +
         " max_abs_diff:" + format_fixed(probe.max_abs_diff, difference_digits);
}

Json pass_json(const ch25::NormPass& pass) {
  Json json = {{"composed", pass.composed},
               {"input", demo::tensor_json(pass.input)},
               {"gain", demo::tensor_json(pass.gain)},
               {"upstream", demo::tensor_json(pass.upstream)}};
  if (pass.composed) {
    json["mean_square"] = demo::tensor_json(pass.mean_square);
    json["inverse_rms"] = demo::tensor_json(pass.inverse_rms);
    json["normalized"] = demo::tensor_json(pass.normalized);
  }
  json["output"] = demo::tensor_json(pass.output);
  json["input_gradient"] = demo::tensor_json(pass.input_gradient);
  json["gain_gradient"] = demo::tensor_json(pass.gain_gradient);
  json["tape_nodes"] = pass.tape_nodes;
  return json;
}

Json scale_json(const ch25::ScaleProbe& probe) {
  return {{"epsilon", probe.epsilon}, {"factor", probe.factor},
          {"row", probe.row},         {"base", probe.base},
          {"scaled", probe.scaled},   {"max_abs_diff", probe.max_abs_diff}};
}

// The trace's two-row case: unequal rows, a gain of three different values
// and an upstream of mixed signs, so a gain gradient that reads one row only
// or a row that uses another row's r shows (the printed case has one row).
Json batch_reverse_json() {
  const llm::Tensor input(llm::Shape{2, 3}, {3.0, 4.0, 0.0, 1.0, -2.0, 2.0});
  const llm::Tensor gain(llm::Shape{3}, {1.5, 0.5, -1.0});
  const llm::Tensor upstream(llm::Shape{2, 3}, {1.0, -2.0, 0.5, -1.0, 0.25, 2.0});
  return {{"composed", pass_json(ch25::composed_pass(input, gain, upstream))},
          {"fused", pass_json(ch25::fused_pass(input, gain, upstream))}};
}

}  // namespace

// region: learner-rmsnorm-report
int main(int argc, char** argv) try {
  const auto trace_path = demo::trace_path(argc, argv);
  const ch25::WorkedEvidence worked = ch25::worked_evidence();
  const ch25::NormPass& p = worked.pass;
  const ch25::ScaleProbe ideal = ch25::scale_probe(ch25::kInput, 0.0, ch25::InverseRoot::Library);
  const ch25::ScaleProbe production =
      ch25::scale_probe(ch25::kInput, ch25::kEpsilon, ch25::InverseRoot::Library);
  const ch25::ScaleProbe near_zero =
      ch25::scale_probe(ch25::kTinyInput, ch25::kEpsilon, ch25::InverseRoot::Library);
  const ch25::ZeroAndBatch zero_batch = ch25::zero_and_batch();
  const ch25::HistoryEvidence h = ch25::history_evidence();
  const ch25::GradientCheckEvidence check = ch25::gradient_check_evidence();

  std::cout << "chapter=25-rmsnorm\n";
  std::cout << "prediction=positive scaling cancels only in the epsilon-zero ideal; epsilon "
               "changes tiny inputs\n";
  std::cout << "config=epsilon:" << format_fixed(ch25::kEpsilon, 6)
            << " feature_width:" << p.gain.size() << " gain_name:" << worked.gain_name
            << " no_decay:" << bool_text(worked.gain_excluded_from_decay) << '\n';
  std::cout << compact_tensor_line("input", p.input) << '\n';
  std::cout << compact_tensor_line("mean_square", p.mean_square) << '\n';
  std::cout << compact_tensor_line("inverse_rms", p.inverse_rms) << '\n';
  std::cout << compact_tensor_line("normalized", p.normalized) << '\n';
  std::cout << compact_tensor_line("gain", p.gain) << '\n';
  std::cout << compact_tensor_line("output", p.output) << '\n';
  std::cout << compact_tensor_line("upstream", p.upstream) << '\n';
  std::cout << "input_gradient=" << compact_values(p.input_gradient) << '\n';
  std::cout << "gain_gradient=" << compact_values(p.gain_gradient) << '\n';
  std::cout << "rms_target=normalized_mean_square:"
            << format_fixed(worked.normalized_mean_square, 6) << '\n';
  std::cout << scale_line("ideal_scale", ideal, 18) << '\n';
  std::cout << scale_line("production_scale", production, 9) << '\n';
  std::cout << scale_line("near_zero_scale", near_zero, 6) << '\n';
  std::cout << "zero_input=output:" << compact_values(zero_batch.zero_output)
            << " finite:" << bool_text(all_finite(zero_batch.zero_output.values())) << '\n';
  std::cout << compact_tensor_line("batch_output", zero_batch.batch_output) << '\n';
  std::cout << "history=batch_anchor_a:" << compact_values(h.batch_anchor_a)
            << " batch_anchor_b:" << compact_values(h.batch_anchor_b)
            << " layer_norm:" << compact_values(h.layer_norm)
            << " rms_norm:" << compact_values(h.rms_norm)
            << " rms_mean:" << format_fixed(h.rms_mean, 6) << '\n';
  std::cout << "gradcheck=input_checks:" << check.input_checks
            << " gain_checks:" << check.gain_checks
            << " tolerance:" << format_fixed(ch25::kGradcheckTolerance, 6)
            << " passed:" << bool_text(check.passed) << '\n';
  std::cout << "same_fixture_replays_bitwise=" << bool_text(ch25::worked_pass_replays_bitwise())
            << '\n';
  std::cout << "next=project normalized features into Q K V\n";

  Json refusals = Json::array();
  for (const ch25::Refusal& refusal : ch25::refusals())
    refusals.push_back(
        {{"request", refusal.request}, {"kind", refusal.kind}, {"message", refusal.message}});
  Json invariance = Json::array();
  for (const double factor : {ch25::kScaleFactor, 2.0}) {
    const ch25::InvarianceCount count = ch25::invariance_count(factor, 1000, 25);
    invariance.push_back({{"factor", count.factor},
                          {"rows", count.rows},
                          {"seed", 25},
                          {"library_changed", count.library_changed},
                          {"correctly_rounded_changed", count.correctly_rounded_changed},
                          {"roots_differ", count.roots_differ},
                          {"largest_root_ulps", count.largest_root_ulps}});
  }
  Json curve = Json::array();
  for (const ch25::EpsilonCurvePoint& point : ch25::epsilon_curve())
    curve.push_back({{"rms", point.rms}, {"normalized_mean_square", point.normalized_mean_square}});
  demo::write_trace(
      trace_path,
      {{"config",
        {{"epsilon", ch25::kEpsilon},
         {"gain_name", worked.gain_name},
         {"no_decay", worked.gain_excluded_from_decay}}},
       {"composed", pass_json(p)},
       {"fused", pass_json(ch25::fused_pass(p.input, p.gain, p.upstream))},
       {"normalized_mean_square", worked.normalized_mean_square},
       {"scale",
        {{"ideal_library", scale_json(ideal)},
         {"ideal_correctly_rounded",
          scale_json(ch25::scale_probe(ch25::kInput, 0.0, ch25::InverseRoot::CorrectlyRounded))},
         {"production", scale_json(production)},
         {"near_zero", scale_json(near_zero)}}},
       {"invariance", invariance},
       {"epsilon_curve", curve},
       {"zero_output", demo::tensor_json(zero_batch.zero_output)},
       {"batch",
        {{"input", demo::tensor_json(zero_batch.batch_input)},
         {"output", demo::tensor_json(zero_batch.batch_output)}}},
       {"batch_reverse", batch_reverse_json()},
       {"history",
        {{"anchor", h.anchor},
         {"companion_a", h.companion_a},
         {"companion_b", h.companion_b},
         {"batch_anchor_a", h.batch_anchor_a},
         {"batch_anchor_b", h.batch_anchor_b},
         {"layer_norm", h.layer_norm},
         {"rms_norm", h.rms_norm},
         {"rms_mean", h.rms_mean}}},
       {"refusals", refusals},
       {"gradcheck",
        {{"input_checks", check.input_checks},
         {"gain_checks", check.gain_checks},
         {"step", ch25::kGradcheckStep},
         {"tolerance", ch25::kGradcheckTolerance},
         {"largest_scaled_error", check.largest_scaled_error},
         {"passed", check.passed}}}});
  return 0;
} catch (const std::exception& error) {
  std::cerr << "chapter 25 demo failed: " << error.what() << '\n';
  return 1;
}
// endregion: learner-rmsnorm-report
