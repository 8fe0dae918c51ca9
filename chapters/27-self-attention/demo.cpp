// Chapter 27 demo: one unmasked scaled dot-product attention head over two
// tokens, forward (scores, weights, mixtures, output) and reverse (the three
// input gradients); the scale probe; one token; batch and empty-batch shapes;
// the refusals; the gradient check; a bitwise replay. With --trace PATH it
// also writes every tensor, the asymmetric case and the refusal messages.
#include <exception>
#include <iostream>
#include <string>

#include "demo_compact.hpp"
#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"

namespace {

using demo::bool_text;
using demo::compact_rows;
using demo::compact_shape;
using demo::compact_tensor_line;
using demo::compact_values;
using demo::Json;
using llm::format_fixed;

Json attention_json(const ch27::AttentionEvidence& e) {
  return {{"query", demo::tensor_json(e.query)},
          {"key", demo::tensor_json(e.key)},
          {"value", demo::tensor_json(e.value)},
          {"scores", demo::tensor_json(e.scores)},
          {"scaled_scores", demo::tensor_json(e.scaled_scores)},
          {"weights", demo::tensor_json(e.weights)},
          {"output", demo::tensor_json(e.output)},
          {"scale", e.scale},
          {"row_sums", e.row_sums},
          {"terms", e.terms},
          {"upstream", demo::tensor_json(e.upstream)},
          {"loss", e.loss},
          {"query_gradient", demo::tensor_json(e.query_gradient)},
          {"key_gradient", demo::tensor_json(e.key_gradient)},
          {"value_gradient", demo::tensor_json(e.value_gradient)},
          {"swapped_scores_output", demo::tensor_json(e.swapped_scores_output)}};
}

}  // namespace

// region: self-attention-report
int main(int argc, char** argv) try {
  const auto trace_path = demo::trace_path(argc, argv);
  const ch27::AttentionEvidence primary = ch27::attention_evidence(ch27::kQuery, ch27::kUpstream);
  const ch27::ScaleEvidence scale = ch27::scale_evidence();
  const ch27::SingleTokenEvidence single = ch27::single_token_evidence();
  const ch27::ShapeEvidence shapes = ch27::shape_evidence();
  const std::vector<ch27::Refusal> refusals = ch27::refusal_evidence();
  const ch27::GradientCheckEvidence check = ch27::gradient_check_evidence(primary);
  const std::span<const double> output = primary.output.values();

  std::cout << "chapter=27-self-attention\n";
  std::cout << "prediction=each query scores every key, then one probability row mixes the "
               "value rows\n";
  std::cout << "config=batch:1 tokens:2 d_k:2 d_v:2 scale:" << format_fixed(primary.scale, 6)
            << " masked:false softmax_axis:key\n";
  std::cout << compact_tensor_line("query", primary.query) << '\n';
  std::cout << compact_tensor_line("key", primary.key) << '\n';
  std::cout << compact_tensor_line("value", primary.value) << '\n';
  std::cout << compact_tensor_line("dot_products", primary.scores) << '\n';
  std::cout << compact_tensor_line("scaled_scores", primary.scaled_scores) << '\n';
  std::cout << compact_tensor_line("probabilities", primary.weights) << '\n';
  std::cout << "row_sums=" << compact_values(primary.row_sums) << '\n';
  for (std::size_t i = 0; i < 2; ++i) {
    std::cout << "mixture_query_" << i << "=terms:" << compact_rows(primary.terms[i])
              << " output:" << compact_values(output.subspan(i * 2, 2)) << '\n';
  }
  std::cout << compact_tensor_line("output", primary.output) << '\n';
  std::cout << "scale_probe=unscaled_focus:" << format_fixed(scale.unscaled_focus, 6)
            << " scaled_focus:" << format_fixed(scale.scaled_focus, 6)
            << " orthogonal_probability:" << format_fixed(scale.orthogonal_probability, 6)
            << " softened:" << bool_text(scale.softened) << '\n';
  std::cout << "single_token=probabilities:" << compact_values(single.weights)
            << " output:" << compact_values(single.output)
            << " query_gradient_zero:" << bool_text(single.query_gradient_zero)
            << " key_gradient_zero:" << bool_text(single.key_gradient_zero) << '\n';
  std::cout << "batch_probe=query:" << compact_shape(shapes.batch_query)
            << " key:" << compact_shape(shapes.batch_key)
            << " value:" << compact_shape(shapes.batch_value)
            << " probabilities:" << compact_shape(shapes.batch_weights)
            << " output:" << compact_shape(shapes.batch_output)
            << " isolated:" << bool_text(shapes.isolated) << '\n';
  std::cout << "empty_batch=probabilities:" << compact_shape(shapes.empty_weights)
            << " output:" << compact_shape(shapes.empty_output)
            << " value_width_probe:" << compact_shape(shapes.narrow_value_output) << '\n';
  std::cout << "upstream=" << compact_values(primary.upstream)
            << " loss=" << format_fixed(primary.loss, 6) << '\n';
  std::cout << "query_gradient=" << compact_values(primary.query_gradient) << '\n';
  std::cout << "key_gradient=" << compact_values(primary.key_gradient) << '\n';
  std::cout << "value_gradient=" << compact_values(primary.value_gradient) << '\n';
  std::cout << "gradcheck=" << demo::gradient_check_text(check, ch27::kGradcheckTolerance) << '\n';
  std::cout << "errors=" << demo::kind_refusals_text(refusals) << '\n';
  std::cout << "history=earlier:recurrent-fixed-context bridge:additive-encoder-decoder-alignment "
               "transformer:scaled-dot-product-self-attention comparison:all-sequence-positions\n";
  std::cout << "same_fixture_replays_bitwise=" << bool_text(ch27::replays_bitwise()) << '\n';
  std::cout << "next=mask future key positions before row normalization\n";

  demo::write_trace(trace_path,
                    {{"primary", attention_json(primary)},
                     {"asymmetric", attention_json(ch27::attention_evidence(
                                        ch27::kAsymmetricQuery, ch27::kAsymmetricUpstream))},
                     {"scale_probe",
                      {{"unscaled_focus", scale.unscaled_focus},
                       {"scaled_focus", scale.scaled_focus},
                       {"orthogonal_probability", scale.orthogonal_probability}}},
                     {"single_token",
                      {{"scores", demo::tensor_json(single.scores)},
                       {"weights", demo::tensor_json(single.weights)},
                       {"output", demo::tensor_json(single.output)}}},
                     {"refusals", demo::kind_refusals_json(refusals)},
                     {"gradcheck", demo::gradient_check_json(check, ch27::kGradcheckStep,
                                                             ch27::kGradcheckTolerance)}});
  return 0;
} catch (const std::exception& error) {
  std::cerr << "chapter 27 demo failed: " << error.what() << '\n';
  return 1;
}
// endregion: self-attention-report
