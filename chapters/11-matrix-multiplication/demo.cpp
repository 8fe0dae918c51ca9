// Chapter 11 demo: multiplies the worked [2, 3] x [3, 2] example, spells out
// one output cell term by term, repeats the product through a transposed
// view and with a shared weight batch, multiplies across an empty inner
// axis, and prints the three refused products. With --trace PATH it also
// writes the cell's storage offsets, the batch mapping, the errors' own
// messages and the bit-for-bit comparison of the fast kernel with the
// textbook loop (which depends on the CPU, so it is never printed).
#include <exception>
#include <iostream>
#include <string>

#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"
#include "llm/tensor/matmul_kernel.hpp"
#include "llm/tensor/tensor_error.hpp"

namespace {

using demo::Json;
using llm::format_list;
using llm::format_shortest;
using llm::Tensor;

std::string shape_text(const Tensor& tensor) {
  return format_list(tensor.shape());
}
std::string values_text(const Tensor& tensor) {
  return format_list(tensor.values());
}

// `4.0*1.0 + 5.0*0.0 + 6.0*2.0 = 16.0`, from the loop's own steps.
std::string cell_text(const std::vector<ch11::CellTerm>& terms) {
  std::string text;
  for (const ch11::CellTerm& term : terms) {
    text += (text.empty() ? "" : " + ") + format_shortest(term.left) + "*" +
            format_shortest(term.right);
  }
  return text + " = " + format_shortest(terms.empty() ? 0.0 : terms.back().partial_sum);
}

Json terms_json(const std::vector<ch11::CellTerm>& terms) {
  Json list = Json::array();
  for (const ch11::CellTerm& term : terms) {
    list.push_back({{"k", term.k},
                    {"left", term.left},
                    {"right", term.right},
                    {"product", term.product},
                    {"partial_sum", term.partial_sum},
                    {"left_offset", term.left_offset},
                    {"right_offset", term.right_offset}});
  }
  return list;
}

Json trace_of(const ch11::WorkedExample& example, const std::vector<ch11::CellTerm>& cell,
              const std::vector<ch11::RejectedProduct>& rejected) {
  Json trace;
  trace["left"] = demo::tensor_json(example.token_rows);
  trace["right"] = demo::tensor_json(example.weights);
  trace["product"] = demo::tensor_json(example.product);
  trace["left_strides"] = example.token_rows.strides();
  trace["right_strides"] = example.weights.strides();
  trace["cell"] = {{"row", 1}, {"column", 0}, {"terms", terms_json(cell)}};

  const llm::TensorView transposed = example.stored_transpose.view().matrix_transpose();
  trace["transpose"] = {
      {"stored", demo::tensor_json(example.stored_transpose)},
      {"stored_strides", example.stored_transpose.strides()},
      {"view_shape", transposed.shape()},
      {"view_strides", transposed.strides()},
      {"cell_terms", terms_json(ch11::cell_terms(example.token_rows, transposed, 1, 0))},
      {"product", demo::tensor_json(example.transpose_product)}};

  // Output batch b reads left batch b and right batch 0: the right operand's
  // batch extent is 1, so it repeats.
  Json mapping = Json::array();
  const std::size_t batches = example.batched_product.shape()[0];
  const std::size_t matrix = example.batched_product.size() / batches;
  for (std::size_t b = 0; b < batches; ++b) {
    Json values = Json::array();
    for (std::size_t e = 0; e < matrix; ++e)
      values.push_back(example.batched_product.values()[b * matrix + e]);
    mapping.push_back({{"output", b},
                       {"left", example.batched_token_rows.shape()[0] == 1 ? 0 : b},
                       {"right", example.batched_weights.shape()[0] == 1 ? 0 : b},
                       {"values", values}});
  }
  trace["batch"] = {{"left", demo::tensor_json(example.batched_token_rows)},
                    {"right", demo::tensor_json(example.batched_weights)},
                    {"product", demo::tensor_json(example.batched_product)},
                    {"mapping", mapping}};
  trace["zero_inner"] = demo::tensor_json(example.zero_inner);

  Json errors = Json::array();
  for (const ch11::RejectedProduct& entry : rejected) {
    errors.push_back({{"label", entry.label},
                      {"kind", entry.error.kind_name()},
                      {"left_shape", entry.error.shape()},
                      {"right_shape", entry.error.other_shape()},
                      {"message", entry.error.what()},
                      {"printed", ch11::printed_reason(entry.error)}});
  }
  trace["errors"] = errors;

  Json comparisons = Json::array();
  for (const ch11::BitComparison& comparison : ch11::compare_with_textbook()) {
    comparisons.push_back({{"method", comparison.method},
                           {"equal_bits", comparison.equal_bits},
                           {"elements", comparison.elements},
                           {"largest_difference", comparison.largest_difference}});
  }
  const auto [rows, depth, columns] = ch11::kComparisonShape;
  trace["comparison"] = {
      {"rows", rows}, {"depth", depth}, {"columns", columns}, {"results", comparisons}};
  // The kernel this machine runs and the blocking around it: the sizes of
  // the packed buffers in the page's answers are computed from these.
  const llm::matmul_detail::MatmulKernel& kernel = llm::matmul_detail::chosen_kernel();
  trace["blocking"] = {{"kernel", kernel.name},
                       {"reason", kernel.reason},
                       {"tile_rows", kernel.tile.rows},
                       {"tile_columns", kernel.tile.columns},
                       {"depth_block", kernel.blocking.depth_block},
                       {"row_panels", kernel.blocking.row_panels},
                       {"column_block", kernel.blocking.column_block}};
  const ch11::FusedContrast fused = ch11::fused_contrast();
  trace["fused"] = {{"left", fused.left},
                    {"right", fused.right},
                    {"addend", fused.addend},
                    {"separate", fused.separate},
                    {"fused", fused.fused}};
  return trace;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const auto trace_path = demo::trace_path(argc, argv);
    // region: learner-output
    const ch11::WorkedExample example = ch11::worked_example();
    const std::vector<ch11::CellTerm> cell =
        ch11::cell_terms(example.token_rows, example.weights, 1, 0);
    const std::vector<ch11::RejectedProduct> rejected = ch11::rejected_products(example);

    std::cout << "token rows: shape=" << shape_text(example.token_rows)
              << " values=" << values_text(example.token_rows) << '\n';
    std::cout << "projection weights: shape=" << shape_text(example.weights)
              << " values=" << values_text(example.weights) << '\n';
    std::cout << "matrix product: shape=" << shape_text(example.product)
              << " values=" << values_text(example.product) << '\n';
    std::cout << "cell [1, 0]: " << cell_text(cell) << '\n';
    std::cout << "right-transpose flag: stored_shape=" << shape_text(example.stored_transpose)
              << " output_shape=" << shape_text(example.transpose_product)
              << " values=" << values_text(example.transpose_product) << '\n';
    std::cout << "batched broadcast: left_shape=" << shape_text(example.batched_token_rows)
              << " right_shape=" << shape_text(example.batched_weights)
              << " output_shape=" << shape_text(example.batched_product)
              << " values=" << values_text(example.batched_product) << '\n';
    std::cout << "zero inner dimension: shape=" << shape_text(example.zero_inner)
              << " values=" << values_text(example.zero_inner) << '\n';
    for (const ch11::RejectedProduct& entry : rejected) {
      std::cout << entry.label << " error: " << ch11::printed_reason(entry.error) << '\n';
    }
    std::cout << "chapter 12 handoff: stabilize matrix outputs into probabilities and "
                 "log-probabilities\n";
    // endregion: learner-output
    demo::write_trace(trace_path, trace_of(example, cell, rejected));
  } catch (const std::exception& error) {
    std::cerr << "chapter 11 demo: " << error.what() << '\n';
    return 1;
  }
  return 0;
}
