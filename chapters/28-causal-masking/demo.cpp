// Chapter 28 demo: chapter 27's head over three tokens under a causal mask,
// forward and reverse; the suffix change that leaves earlier outputs bit for
// bit unchanged; a prefix-only seed that sends nothing to the last token;
// one token; an empty batch; the refusals; the gradient check; the finite
// tape and a bitwise replay. With --trace PATH it also writes every tensor,
// the three forms of the mask compared bit for bit, and the refusal messages.
#include <exception>
#include <iostream>
#include <span>
#include <string>

#include "demo_compact.hpp"
#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"

namespace {

using demo::bool_text;
using demo::compact_shape;
using demo::compact_tensor_line;
using demo::compact_values;
using demo::Json;
using llm::format_fixed;

Json causal_json(const ch28::CausalEvidence& e) {
  Json mask = Json::array();
  for (double value : e.additive_mask.values()) mask.push_back(demo::number_json(value));
  return {{"query", demo::tensor_json(e.query)},
          {"key", demo::tensor_json(e.key)},
          {"value", demo::tensor_json(e.value)},
          {"additive_mask", mask},
          {"scores", demo::tensor_json(e.scores)},
          {"scaled_scores", demo::tensor_json(e.scaled_scores)},
          {"weights", demo::tensor_json(e.weights)},
          {"output", demo::tensor_json(e.output)},
          {"scale", e.scale},
          {"row_sums", e.row_sums},
          {"upstream", demo::tensor_json(e.upstream)},
          {"loss", e.loss},
          {"query_gradient", demo::tensor_json(e.query_gradient)},
          {"key_gradient", demo::tensor_json(e.key_gradient)},
          {"value_gradient", demo::tensor_json(e.value_gradient)}};
}

Json forms_json(const ch28::MaskFormsEvidence& e) {
  return {{"fused", demo::tensor_json(e.fused)},
          {"additive", demo::tensor_json(e.additive)},
          {"keep", demo::tensor_json(e.keep)},
          {"zeroed_after", demo::tensor_json(e.zeroed_after)},
          {"zeroed_after_row_sums", e.zeroed_after_row_sums},
          {"additive_bits_equal", e.additive_bits_equal},
          {"keep_bits_equal", e.keep_bits_equal},
          {"fused_gradient", demo::tensor_json(e.fused_gradient)},
          {"keep_gradient", demo::tensor_json(e.keep_gradient)},
          {"gradient_bits_equal", e.gradient_bits_equal},
          {"gradient_largest_difference", e.gradient_largest_difference},
          {"additive_on_tape_refusal", e.additive_on_tape_refusal},
          {"additive_in_kernel_refusal", e.additive_in_kernel_refusal}};
}

}  // namespace

// region: causal-masking-report
int main(int argc, char** argv) try {
  const auto trace_path = demo::trace_path(argc, argv);
  const ch28::CausalEvidence primary = ch28::causal_evidence(ch28::kUpstream);
  const ch28::PrefixEvidence prefix = ch28::prefix_evidence();
  const ch28::SingleTokenEvidence single = ch28::single_token_evidence();
  const ch28::EmptyBatchEvidence empty = ch28::empty_batch_evidence();
  const std::vector<ch28::Refusal> refusals = ch28::refusal_evidence();
  const ch28::GradientCheckEvidence check = ch28::gradient_check_evidence(primary);
  const bool replay = ch28::replays_bitwise();
  const auto last = [](const std::array<double, 6>& rows) {
    return compact_values(std::span<const double>(rows).subspan(4, 2));
  };

  std::cout << "chapter=28-causal-masking\n";
  std::cout << "prediction=each query keeps its diagonal and earlier keys, while future keys "
               "receive zero probability\n";
  std::cout << "config=batch:1 tokens:3 d_k:2 d_v:2 scale:" << format_fixed(primary.scale, 6)
            << " mask:lower-triangular-inclusive\n";
  std::cout << compact_tensor_line("query", primary.query) << '\n';
  std::cout << compact_tensor_line("key", primary.key) << '\n';
  std::cout << compact_tensor_line("value", primary.value) << '\n';
  // The one place -inf is printed (format_fixed prints it as `-inf`).
  std::cout << compact_tensor_line("mask", primary.additive_mask) << '\n';
  std::cout << compact_tensor_line("raw_scores", primary.scores) << '\n';
  std::cout << compact_tensor_line("scaled_scores", primary.scaled_scores) << '\n';
  std::cout << compact_tensor_line("probabilities", primary.weights) << '\n';
  std::cout << "row_sums=" << compact_values(primary.row_sums) << '\n';
  std::cout << compact_tensor_line("output", primary.output) << '\n';
  std::cout << "suffix_perturbation=key:" << last(ch28::kKey) << "->" << last(ch28::kPerturbedKey)
            << " value:" << last(ch28::kValue) << "->" << last(ch28::kPerturbedValue) << '\n';
  std::cout << "perturbed_output=" << compact_values(prefix.perturbed_output) << '\n';
  std::cout << "prefix_invariance=position_0:" << bool_text(prefix.position_0_unchanged)
            << " position_1:" << bool_text(prefix.position_1_unchanged)
            << " position_2_changed:" << bool_text(prefix.position_2_changed) << '\n';
  std::cout << "upstream=" << compact_values(primary.upstream)
            << " loss=" << format_fixed(primary.loss, 6) << '\n';
  std::cout << "query_gradient=" << compact_values(primary.query_gradient) << '\n';
  std::cout << "key_gradient=" << compact_values(primary.key_gradient) << '\n';
  std::cout << "value_gradient=" << compact_values(primary.value_gradient) << '\n';
  std::cout << "prefix_seed=" << compact_values(prefix.seed)
            << " suffix_gradient_zero=" << bool_text(prefix.suffix_gradient_zero) << '\n';
  std::cout << "single_token=probabilities:" << compact_values(single.weights)
            << " output:" << compact_values(single.output)
            << " query_gradient_zero:" << bool_text(single.query_gradient_zero)
            << " key_gradient_zero:" << bool_text(single.key_gradient_zero) << '\n';
  std::cout << "empty_batch=probabilities:" << compact_shape(empty.weights)
            << " output:" << compact_shape(empty.output) << " valid:" << bool_text(empty.valid)
            << '\n';
  std::cout << "errors=" << demo::kind_refusals_text(refusals) << '\n';
  std::cout << "gradcheck=" << demo::gradient_check_text(check, ch28::kGradcheckTolerance) << '\n';
  std::cout << "history=earlier:recurrent-autoregressive-state visibility:available-prefix "
               "transformer:parallel-known-targets decoder_rule:no-subsequent-positions "
               "generation:sequential\n";
  std::cout << "proof=tape_finite:" << bool_text(primary.tape_finite)
            << " future_probabilities:" << (primary.future_weights_zero ? "exact-zero" : "nonzero")
            << " prefix_outputs:"
            << (prefix.position_0_unchanged && prefix.position_1_unchanged ? "bitwise" : "changed")
            << " replay:" << (replay ? "bitwise" : "mismatch") << '\n';
  std::cout << "next=add relative position information without changing the causal boundary\n";

  demo::write_trace(trace_path,
                    {{"primary", causal_json(primary)},
                     {"prefix",
                      {{"perturbed_key", ch28::kPerturbedKey},
                       {"perturbed_value", ch28::kPerturbedValue},
                       {"perturbed_output", demo::tensor_json(prefix.perturbed_output)},
                       {"seed", demo::tensor_json(prefix.seed)},
                       {"query_gradient", demo::tensor_json(prefix.query_gradient)},
                       {"key_gradient", demo::tensor_json(prefix.key_gradient)},
                       {"value_gradient", demo::tensor_json(prefix.value_gradient)}}},
                     {"forms", forms_json(ch28::mask_forms_evidence())},
                     {"refusals", demo::kind_refusals_json(refusals)},
                     {"gradcheck", demo::gradient_check_json(check, ch28::kGradcheckStep,
                                                             ch28::kGradcheckTolerance)}});
  return 0;
} catch (const std::exception& error) {
  std::cerr << "chapter 28 demo failed: " << error.what() << '\n';
  return 1;
}
// endregion: causal-masking-report
