// Chapter 29 demo: rotary position embedding. A width-4 table with base 100
// rotates a query and a key at positions 0-2 and again at 3-5; the demo
// prints the table rows, the rotations, norms, both dot grids, a weighted
// loss and its gradients, the shapes accepted, the requests refused and a
// gradient check. With --trace PATH it also writes the whole table, the
// single pair of the opening prediction, the same run with a key unlike the
// query (an asymmetric grid) and every refusal's message, for the figures.
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

Json rotation_json(const ch29::RotationEvidence& e) {
  return {{"query", demo::tensor_json(e.query)},
          {"key", demo::tensor_json(e.key)},
          {"rotated_query", demo::tensor_json(e.rotated_query)},
          {"rotated_key", demo::tensor_json(e.rotated_key)},
          {"shifted_query", demo::tensor_json(e.shifted_query)},
          {"shifted_key", demo::tensor_json(e.shifted_key)},
          {"dot_grid", demo::tensor_json(e.dot_grid)},
          {"shifted_dot_grid", demo::tensor_json(e.shifted_dot_grid)},
          {"query_upstream", demo::tensor_json(e.query_upstream)},
          {"loss", e.loss},
          {"query_gradient", demo::tensor_json(e.query_gradient)},
          {"key_gradient", demo::tensor_json(e.key_gradient)},
          {"common_shift_preserved", e.common_shift_preserved}};
}

Json pairs_json(const std::vector<ch29::PairDot>& dots) {
  Json list = Json::array();
  for (const ch29::PairDot& dot : dots) {
    list.push_back({{"m", dot.query_position},
                    {"n", dot.key_position},
                    {"rotated_query", dot.rotated_query},
                    {"rotated_key", dot.rotated_key},
                    {"dot", dot.dot}});
  }
  return list;
}

}  // namespace

// region: rope-report
int main(int argc, char** argv) try {
  const auto trace_path = demo::trace_path(argc, argv);
  const ch29::RotationEvidence e = ch29::rotation_evidence(ch29::kRow, ch29::kRow);
  const ch29::ShapeEvidence shapes = ch29::shape_evidence();
  const ch29::RefusalEvidence refused = ch29::refusal_evidence();
  const ch29::GradientCheckEvidence check = ch29::gradient_check_evidence(e);
  const bool replay = ch29::rotation_replays_bitwise();
  const auto refused_as = [&](std::size_t i) {
    return bool_text(refused.refusals[i].error.kind() == ch29::kExpectedRefusals[i]);
  };

  std::cout << "chapter=29-rope\n";
  std::cout << "prediction=position zero is the identity; equal shifts preserve every fixed "
               "query-key dot product\n";
  std::cout << "config=features:" << ch29::kWidth << " pairs:" << ch29::kWidth / 2
            << " positions:" << ch29::kCapacity << " base:" << llm::format_fixed(ch29::kBase, 0)
            << " layout:adjacent offset:0->" << ch29::kShift << '\n';
  std::cout << "inverse_frequencies=" << canonical_values(e.inverse_frequencies.values()) << '\n';
  std::cout << "query=" << canonical_tensor(e.query) << '\n';
  std::cout << "key=" << canonical_tensor(e.key) << '\n';
  std::cout << "angles=" << canonical_tensor(e.angles) << '\n';
  std::cout << "cosines=" << canonical_tensor(e.cosines) << '\n';
  std::cout << "sines=" << canonical_tensor(e.sines) << '\n';
  std::cout << "rotated_query=" << canonical_values(e.rotated_query.values()) << '\n';
  std::cout << "rotated_key=" << canonical_values(e.rotated_key.values()) << '\n';
  std::cout << "norms=input:" << canonical_values(e.input_norms)
            << " rotated:" << canonical_values(e.rotated_norms)
            << " shifted:" << canonical_values(e.shifted_norms)
            << " preserved:" << bool_text(e.norm_preserved) << '\n';
  std::cout << "dot_grid=" << canonical_tensor(e.dot_grid) << '\n';
  std::cout << "shifted_dot_grid=" << canonical_tensor(e.shifted_dot_grid)
            << " common_shift_preserved:" << bool_text(e.common_shift_preserved) << '\n';
  std::cout << "position_zero_identity=" << bool_text(e.position_zero_identity) << '\n';
  std::cout << "upstream=query:" << canonical_values(e.query_upstream.values())
            << " key:" << canonical_values(e.key_upstream.values())
            << " loss:" << llm::format_fixed(e.loss, 6) << '\n';
  std::cout << "query_gradient=" << canonical_values(e.query_gradient.values()) << '\n';
  std::cout << "key_gradient=" << canonical_values(e.key_gradient.values()) << '\n';
  std::cout << "shapes=rank3:" << compact_shape(shapes.rank_three)
            << " rank4:" << compact_shape(shapes.rank_four)
            << " empty_leading:" << compact_shape(shapes.empty_leading)
            << " empty_tokens:" << compact_shape(shapes.empty_tokens) << '\n';
  std::cout << "errors=";
  for (std::size_t i = 0; i < refused.refusals.size(); ++i) {
    std::cout << (i == 0 ? "" : " ") << refused.refusals[i].label << ':' << refused_as(i);
  }
  std::cout << " released:"
            << bool_text(refused.released.error.kind() ==
                         llm::TensorAutodiffErrorKind::ReleasedGraph)
            << '\n';
  std::cout << "gradcheck=query_checks:" << check.query.checks.size()
            << " key_checks:" << check.key.checks.size()
            << " tolerance:" << llm::format_fixed(ch29::kGradcheckTolerance, 6)
            << " passed:" << bool_text(check.passed) << '\n';
  std::cout << "history=earlier:recurrent-order-in-state "
               "transformer:absolute-vectors-added-to-embeddings "
               "rotary:absolute-qk-rotations-relative-dot modern_example:llama-rope-each-layer "
               "causal_boundary:separate-mask\n";
  std::cout << "proof=tape_finite:" << bool_text(e.tape_finite)
            << " norm_preserved:" << bool_text(e.norm_preserved)
            << " relative_dot:" << bool_text(e.common_shift_preserved)
            << " replay:" << (replay ? "bitwise" : "mismatch") << '\n';
  std::cout << "next=split the position-aware feature axis into multiple attention heads\n";

  const ch29::TableEvidence table = ch29::table_evidence();
  const auto error_fields = [](const auto&) { return Json::object(); };
  Json refusals = demo::rejections_json(refused.refusals, error_fields);
  refusals.push_back(demo::rejections_json(std::vector{refused.released}, error_fields)[0]);
  demo::write_trace(
      trace_path,
      {{"config",
        {{"width", ch29::kWidth},
         {"capacity", ch29::kCapacity},
         {"base", ch29::kBase},
         {"tokens", ch29::kTokens},
         {"shift", ch29::kShift}}},
       {"table",
        {{"inverse_frequencies", demo::tensor_json(table.inverse_frequencies)},
         {"cosines", demo::tensor_json(table.cosines)},
         {"sines", demo::tensor_json(table.sines)}}},
       {"pair", pairs_json(ch29::pair_evidence())},
       {"printed", rotation_json(e)},
       {"asymmetric", rotation_json(ch29::rotation_evidence(ch29::kRow, ch29::kAsymmetricKeyRow))},
       {"asymmetric_key_row", ch29::kAsymmetricKeyRow},
       {"refusals", refusals},
       {"gradcheck",
        {{"query", demo::coordinate_checks_json(check.query)},
         {"key", demo::coordinate_checks_json(check.key)},
         {"step", ch29::kGradcheckStep},
         {"tolerance", ch29::kGradcheckTolerance},
         {"passed", check.passed}}}});
  return 0;
} catch (const std::exception& error) {
  std::cerr << "chapter 29 demo failed: " << error.what() << '\n';
  return 1;
}
// endregion: rope-report
