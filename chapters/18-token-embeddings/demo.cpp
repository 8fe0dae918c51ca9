// Chapter 18 demo: looks up IDs [[2, 1, 2]] in a known [4, 2] table, checks
// the lookup against one-hot multiplication, reverses it with a chosen
// upstream so that row 2 collects two contributions, draws a seeded table,
// and shows an empty ID list and an out-of-range ID. With --trace PATH it
// also writes every contribution, the one-hot rows and the one-hot gradient.
#include <bit>
#include <cstdint>
#include <exception>
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "demo_text.hpp"
#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/autograd/model_ops.hpp"
#include "llm/format.hpp"

namespace {

using demo::Json;
using llm::Tensor;
using llm::TensorValue;

const char* flag(bool value) {
  return value ? "true" : "false";
}

/// Same values in the same order, bit for bit (shapes are compared by the caller).
bool same_values(std::span<const double> a, std::span<const double> b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::bit_cast<std::uint64_t>(a[i]) != std::bit_cast<std::uint64_t>(b[i])) return false;
  }
  return true;
}

std::vector<double> row_of(const Tensor& tensor, std::size_t row, std::size_t width) {
  const auto values = tensor.values();
  return {values.begin() + static_cast<std::ptrdiff_t>(row * width),
          values.begin() + static_cast<std::ptrdiff_t>((row + 1) * width)};
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const auto trace = demo::trace_path(argc, argv);

    // region: known-token-lookup
    const ch18::KnownEmbedding known = ch18::known_embedding();
    const TensorValue output = known.embedding.forward(ch18::kIds, ch18::kIdShape);  // [1, 3, 2]
    const Tensor looked_up = output.value().materialize();
    const ch18::OneHotProduct baseline = ch18::one_hot_product(ch18::known_table(), ch18::kIds);
    const bool one_hot_matches = same_values(looked_up.values(), baseline.product.values());
    // endregion: known-token-lookup

    // region: repeated-token-gradient
    const Tensor upstream = ch18::known_upstream();
    output.backward_with_seed(upstream, llm::Retention::Retain);
    const Tensor table_gradient = *known.embedding.table().gradient();
    // endregion: repeated-token-gradient

    const std::size_t width = known.embedding.width();
    const TensorValue& table = known.model.at("token_embedding.weight");
    std::cout << "table: " << known.model[0].name << " shape=" << demo::shape_label(table.shape())
              << '\n';
    std::cout << "ids: shape=" << demo::shape_label(ch18::kIdShape) << " values=";
    for (std::size_t p = 0; p < ch18::kIds.size(); ++p)
      std::cout << (p ? "," : "") << ch18::kIds[p];
    std::cout << '\n';
    std::cout << "output: " << demo::tensor_text(looked_up) << '\n';
    std::cout << "one-hot multiplication equals lookup: " << flag(one_hot_matches) << '\n';
    std::cout << "upstream: " << demo::tensor_text(upstream) << '\n';
    std::cout << "table gradient: " << demo::tensor_text(table_gradient) << '\n';

    // Row 2 by hand: the upstream rows of the positions whose ID is 2, added.
    constexpr std::size_t kRepeated = 2;
    std::vector<std::vector<double>> contributions;
    std::vector<double> total(width, 0.0);
    for (std::size_t p = 0; p < ch18::kIds.size(); ++p) {
      if (ch18::kIds[p] != kRepeated) continue;
      contributions.push_back(row_of(upstream, p, width));
      for (std::size_t f = 0; f < width; ++f) total[f] += contributions.back()[f];
    }
    std::cout << "repeated row " << kRepeated << ": ";
    for (std::size_t k = 0; k < contributions.size(); ++k) {
      std::cout << (k ? " + " : "") << '[' << demo::fixed_values_text(contributions[k]) << ']';
    }
    std::cout << " = [" << demo::fixed_values_text(total) << "]\n";
    const bool matches_gradient = total == row_of(table_gradient, kRepeated, width);
    bool unused_zero = true;
    for (std::size_t row = 0; row < known.embedding.vocabulary_size(); ++row) {
      bool used = false;
      for (std::size_t id : ch18::kIds) used = used || id == row;
      if (used) continue;
      for (double g : row_of(table_gradient, row, width)) unused_zero = unused_zero && g == 0.0;
    }
    std::cout << "unused rows stay zero: " << flag(unused_zero && matches_gradient) << '\n';

    // region: initialized-token-embedding
    llm::SplitMix64 first(18);
    llm::SplitMix64 second(18);
    const llm::Embedding initialized = llm::Embedding::initialized(4, 2, first);
    const llm::Embedding reproduced = llm::Embedding::initialized(4, 2, second);
    const bool reproducible = same_values(initialized.table().value().materialize().values(),
                                          reproduced.table().value().materialize().values());
    const llm::Embedding copy = initialized;  // a copy shares the table node
    const bool clone_same_node = copy.table().is_same_node(initialized.table());
    // endregion: initialized-token-embedding
    std::cout << "initialized: seed=18 shape=" << demo::shape_label(initialized.table().shape())
              << " reproducible=" << flag(reproducible) << '\n';
    std::cout << "identity: clone-same-node=" << flag(clone_same_node) << '\n';

    // region: embedding-edge-cases
    const TensorValue empty = known.embedding.forward({}, llm::Shape{0});  // [0, D]
    const std::vector<std::size_t> outside = {4};
    std::size_t rejected_id = 0;
    std::size_t rejected_rows = 0;
    bool rejected = false;
    try {
      known.embedding.forward(outside, llm::Shape{1});
    } catch (const llm::ModelOpError& error) {
      rejected = error.kind() == llm::ModelOpErrorKind::GatherIndexOutOfBounds;
      rejected_id = error.index();
      rejected_rows = error.rows();
    }
    // endregion: embedding-edge-cases
    std::cout << "empty ids: shape=" << demo::shape_label(empty.shape())
              << " value-count=" << empty.value().size() << '\n';
    std::cout << "bounds: id=" << rejected_id << " rows=" << rejected_rows
              << " rejected=" << flag(rejected) << '\n';
    std::cout << "chapter 19 handoff: preserve leading axes and project width 2\n";

    if (trace) {
      // The same product on the tape: its table gradient is one_hot^T upstream.
      const TensorValue table_copy = TensorValue::parameter(ch18::known_table());
      const TensorValue one_hot = TensorValue::constant(baseline.one_hot);
      const TensorValue product = one_hot.matmul(table_copy);  // [3, 2]
      const Tensor rows_upstream({ch18::kIds.size(), width},
                                 {upstream.values().begin(), upstream.values().end()});
      product.backward_with_seed(rows_upstream, llm::Retention::Release);
      Json contributions_json = Json::array();
      for (std::size_t p = 0; p < ch18::kIds.size(); ++p) {
        contributions_json.push_back({{"position", p},
                                      {"id", ch18::kIds[p]},
                                      {"row", row_of(looked_up, p, width)},
                                      {"upstream", row_of(upstream, p, width)}});
      }
      demo::write_trace(
          trace, Json{{"table", demo::tensor_json(ch18::known_table())},
                      {"ids", ch18::kIds},
                      {"id_shape", ch18::kIdShape},
                      {"output", demo::tensor_json(looked_up)},
                      {"upstream", demo::tensor_json(upstream)},
                      {"positions", contributions_json},
                      {"table_gradient", demo::tensor_json(table_gradient)},
                      {"one_hot", demo::tensor_json(baseline.one_hot)},
                      {"one_hot_product", demo::tensor_json(baseline.product)},
                      {"one_hot_gradient", demo::tensor_json(*table_copy.gradient())},
                      {"gradients_equal",
                       same_values(table_copy.gradient()->values(), table_gradient.values())},
                      {"initialized", demo::tensor_json(initialized.table().value().materialize())},
                      {"empty_shape", empty.shape()},
                      {"rejected", {{"id", rejected_id}, {"rows", rejected_rows}}}});
    }
    return 0;
  } catch (const std::exception& error) {
    std::cerr << "chapter 18 demo failed: " << error.what() << '\n';
    return 1;
  }
}
