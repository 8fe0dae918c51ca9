// Chapter 9 demo: one owned [2, 3] tensor read through borrowed views
// (reshape, transpose, slice) and copied twice on purpose (the eager
// transpose, the materialized slice); then the three requests a view must
// refuse, and the scalar and empty edge cases. With --trace PATH it also
// writes every view's layout, offsets, values and walker runs, the copy's
// provenance, the refused requests and an attention-heads example.
#include <exception>
#include <functional>
#include <iostream>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"
#include "llm/tensor/layout.hpp"
#include "llm/tensor/tensor.hpp"

namespace {

using llm::Shape;
using llm::Tensor;
using llm::TensorError;
using llm::TensorView;

std::string flag(bool value) {
  return value ? "true" : "false";
}

std::string values_text(std::span<const double> values) {
  return llm::format_list(values);
}

std::string offsets_text(const std::vector<std::size_t>& offsets) {
  return llm::format_list(std::span<const std::size_t>(offsets));
}

/// The TensorError a request throws; a request that succeeds is a bug in the demo.
TensorError refusal(const std::string& request, const std::function<void()>& call) {
  try {
    call();
  } catch (const TensorError& error) {
    return error;
  }
  throw std::logic_error("the request '" + request + "' was accepted but must be refused");
}

/// Whether `copy` holds its own values, apart from every value `view` can reach.
bool owns_separate_storage(const Tensor& copy, const TensorView& view) {
  return !copy.view().shares_storage_with(view);
}

// region: learner-view-output
void print_evidence(const Tensor& matrix) {
  const TensorView view = matrix.view();
  const Tensor copied = ch09::copying_transpose(matrix);
  const TensorView reshaped = view.reshape({3, 2});
  const TensorView transposed = view.transpose(0, 1);
  const TensorView slice = view.slice(1, 1, 3);
  const Tensor materialized = slice.materialize();

  const TensorError count_error = refusal("reshape [4, 2]", [&] { view.reshape({4, 2}); });
  const TensorError contiguity_error = refusal("reshape the transpose [2, 3]", [&] {
    transposed.reshape({2, 3});
  });
  const TensorError slice_error = refusal("slice 1..4 of axis 1", [&] { view.slice(1, 1, 4); });

  const Tensor scalar = Tensor::scalar(7.0);
  const Tensor empty = Tensor::zeros({2, 0, 3});

  // region: learner-print-lines
  std::cout << "copying transpose: allocated=" << flag(owns_separate_storage(copied, view))
            << " shape=" << llm::shape_text(copied.shape())
            << " strides=" << llm::shape_text(copied.strides())
            << " values=" << values_text(copied.values()) << '\n';
  std::cout << "borrowed transpose: shared=" << flag(transposed.shares_storage_with(view))
            << " shape=" << llm::shape_text(transposed.shape())
            << " strides=" << llm::shape_text(transposed.strides())
            << " base=" << transposed.offset() << " contiguous=" << flag(transposed.is_contiguous())
            << '\n';
  std::cout << "borrowed transpose order: offsets="
            << offsets_text(ch09::logical_offsets(transposed))
            << " values=" << values_text(ch09::logical_values(transposed)) << '\n';
  std::cout << "reshape: shared=" << flag(reshaped.shares_storage_with(view))
            << " shape=" << llm::shape_text(reshaped.shape())
            << " strides=" << llm::shape_text(reshaped.strides())
            << " values=" << values_text(ch09::logical_values(reshaped)) << '\n';
  std::cout << "slice columns 1..3: shape=" << llm::shape_text(slice.shape())
            << " strides=" << llm::shape_text(slice.strides()) << " base=" << slice.offset()
            << " offsets=" << offsets_text(ch09::logical_offsets(slice))
            << " values=" << values_text(ch09::logical_values(slice))
            << " contiguous=" << flag(slice.is_contiguous()) << '\n';
  std::cout << "materialized slice: independent=" << flag(owns_separate_storage(materialized, view))
            << " shape=" << llm::shape_text(materialized.shape())
            << " strides=" << llm::shape_text(materialized.strides())
            << " values=" << values_text(materialized.values()) << '\n';
  std::cout << "reshape error: " << ch09::reference_wording(count_error) << '\n';
  std::cout << "contiguity error: " << ch09::reference_wording(contiguity_error) << '\n';
  std::cout << "slice error: " << ch09::reference_wording(slice_error) << '\n';
  std::cout << "scalar view: shape=" << llm::shape_text(scalar.view().shape())
            << " strides=" << llm::shape_text(scalar.view().strides())
            << " base=" << scalar.view().offset()
            << " value=" << llm::format_fixed(scalar.view().at({}), 1) << '\n';
  std::cout << "empty view: shape=" << llm::shape_text(empty.view().shape())
            << " strides=" << llm::shape_text(empty.view().strides())
            << " values=" << empty.view().size()
            << " contiguous=" << flag(empty.view().is_contiguous()) << '\n';
  std::cout << "chapter 10 handoff: explicit axes for broadcasting and reductions\n";
  // endregion: learner-print-lines
}
// endregion: learner-view-output

// --- The trace -----------------------------------------------------------------

using demo::Json;

Json runs_json(const TensorView& view) {
  Json runs = Json::array();
  for (const ch09::WalkerRun& run : ch09::walker_runs(view)) {
    runs.push_back({{"first", run.first}, {"step", run.step}, {"count", run.count}});
  }
  return runs;
}

/// Everything a figure shows about one view of the worked owner.
Json view_json(const std::string& id, const std::string& operation, const TensorView& view,
               const TensorView& owner) {
  return {{"id", id},
          {"operation", operation},
          {"shares_owner_storage", view.shares_storage_with(owner)},
          {"shape", view.shape()},
          {"strides", view.strides()},
          {"base", view.offset()},
          {"contiguous", view.is_contiguous()},
          {"offsets", ch09::logical_offsets(view)},
          {"values", ch09::logical_values(view)},
          {"runs", runs_json(view)}};
}

Json error_json(const std::string& request, const TensorError& error) {
  return {{"request", request},        {"kind", error.kind_name()},
          {"message", error.what()},   {"reference_wording", ch09::reference_wording(error)},
          {"shape", error.shape()},    {"other_shape", error.other_shape()},
          {"strides", error.strides()}};
}

/// Splitting [B, T, C] = [1, 3, 4] into H = 2 heads of width D = 2 and back:
/// the layouts attention needs, and where merging the heads must copy.
Json heads_json() {
  const Tensor x({1, 3, 4}, {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});  // x[0, t, c] = 10 t + c
  Json steps = Json::array();
  auto record = [&](const std::string& step, const TensorView& view, bool shares) {
    steps.push_back({{"step", step},
                     {"shape", view.shape()},
                     {"strides", view.strides()},
                     {"contiguous", view.is_contiguous()},
                     {"shares_x", shares},
                     {"values", ch09::logical_values(view)}});
  };
  const TensorView split = x.view().reshape({1, 3, 2, 2});
  record("x.reshape([1, 3, 2, 2])  [B, T, H, D]", split, split.shares_storage_with(x.view()));
  const TensorView heads = split.permute({0, 2, 1, 3});
  record("permute([0, 2, 1, 3])  [B, H, T, D]", heads, heads.shares_storage_with(x.view()));
  const TensorView back = heads.permute({0, 2, 1, 3});
  const TensorView merged = back.reshape({1, 3, 4});
  record("permute back, reshape([1, 3, 4])", merged, merged.shares_storage_with(x.view()));
  const Tensor output = heads.materialize();  // a fresh [B, H, T, D] result, as attention makes
  const TensorView output_back = output.view().permute({0, 2, 1, 3});
  record("fresh [B, H, T, D], permute([0, 2, 1, 3])", output_back,
         output_back.shares_storage_with(x.view()));
  const TensorError refused = refusal("merge the fresh heads by reshape", [&] {
    output_back.reshape({1, 3, 4});
  });
  const Tensor merged_copy = output_back.materialize();
  const TensorView merged_copy_view = merged_copy.view().reshape({1, 3, 4});
  record("materialize(), reshape([1, 3, 4])", merged_copy_view,
         merged_copy_view.shares_storage_with(x.view()));
  return {{"input", demo::tensor_json(x)},
          {"steps", steps},
          {"refused_kind", refused.kind_name()},
          {"refused_message", refused.what()}};
}

// region: packed-qkv
/// The strides a view would have after splitting its last axis into
/// [parts, width]: the last stride s becomes [width * s, s]. PyTorch's `view`
/// accepts this split whatever the other strides are; this library's reshape
/// asks for a contiguous source and refuses it.
std::vector<std::size_t> split_last_axis_strides(const TensorView& view, std::size_t width) {
  std::vector<std::size_t> strides(view.strides().begin(), view.strides().end());
  const std::size_t last = strides.back();
  strides.back() = width * last;
  strides.push_back(last);
  return strides;
}

/// GPT-2's attention projects every position to Q, K and V at once, one
/// packed [B, T, 3C] tensor, and splits it along the feature axis. Here B = 1,
/// T = 3, C = 4, H = 2 heads of width D = 2, and packed[0, t, 4 p + c] =
/// 100 p + 10 t + c for part p = 0 (Q), 1 (K), 2 (V).
Json packed_qkv_json() {
  constexpr std::size_t kPositions = 3, kWidth = 4, kHeads = 2;
  std::vector<double> values;
  for (std::size_t t = 0; t < kPositions; ++t)
    for (std::size_t part = 0; part < 3; ++part)
      for (std::size_t c = 0; c < kWidth; ++c)
        values.push_back(static_cast<double>(100 * part + 10 * t + c));
  const Tensor packed({1, kPositions, 3 * kWidth}, values);
  Json steps = Json::array();
  auto record = [&](const std::string& step, const std::string& layout, const TensorView& view) {
    steps.push_back({{"step", step},
                     {"layout", layout},
                     {"shape", view.shape()},
                     {"strides", view.strides()},
                     {"base", view.offset()},
                     {"contiguous", view.is_contiguous()},
                     {"shares_packed", view.shares_storage_with(packed.view())},
                     {"values", ch09::logical_values(view)}});
  };
  const TensorView keys = packed.view().slice(2, kWidth, 2 * kWidth);  // K: features 4..7
  record("slice(2, 4, 8)", "K of [B, T, 3C]", keys);
  const TensorError refused = refusal("split the K slice into heads by reshape", [&] {
    keys.reshape({1, kPositions, kHeads, kWidth / kHeads});
  });
  const Tensor copied = keys.materialize();
  const TensorView split = copied.view().reshape({1, kPositions, kHeads, kWidth / kHeads});
  record("materialize(), reshape", "[B, T, H, D]", split);
  const TensorView heads = split.permute({0, 2, 1, 3});
  record("permute([0, 2, 1, 3])", "[B, H, T, D]", heads);
  return {{"packed", demo::tensor_json(packed)},
          {"steps", steps},
          {"refused_kind", refused.kind_name()},
          {"refused_message", refused.what()},
          {"view_split_strides", split_last_axis_strides(keys, kWidth / kHeads)}};
}
// endregion: packed-qkv

Json trace_json(const Tensor& matrix) {
  const TensorView view = matrix.view();
  const TensorView transposed = view.transpose(0, 1);
  const TensorView slice = view.slice(1, 1, 3);
  const Tensor materialized = slice.materialize();
  const Tensor copied = ch09::copying_transpose(matrix);

  const std::vector<double> cube_values = [] {
    std::vector<double> values(24);
    for (std::size_t k = 0; k < values.size(); ++k) values[k] = static_cast<double>(k);
    return values;
  }();
  const Tensor cube({2, 3, 4}, cube_values);
  const TensorView permuted = cube.view().permute({2, 0, 1});

  return {
      {"storage", demo::tensor_json(matrix)},
      {"copying_transpose",
       {{"shape", copied.shape()},
        {"strides", copied.strides()},
        {"values", std::vector<double>(copied.values().begin(), copied.values().end())},
        {"shares_owner_storage", !owns_separate_storage(copied, view)}}},
      {"views",
       {view_json("base", "view()", view, view),
        view_json("reshape", "reshape({3, 2})", view.reshape({3, 2}), view),
        view_json("transpose", "transpose(0, 1)", transposed, view),
        view_json("slice", "slice(1, 1, 3)", slice, view)}},
      {"materialized",
       {{"shape", materialized.shape()},
        {"strides", materialized.strides()},
        {"values", std::vector<double>(materialized.values().begin(), materialized.values().end())},
        {"source_offsets", ch09::logical_offsets(slice)},
        {"shares_owner_storage", !owns_separate_storage(materialized, view)}}},
      {"errors",
       {error_json("view.reshape([4, 2])", refusal("",
                                                   [&] {
                                                     view.reshape({4, 2});
                                                   })),
        error_json("view.transpose(0, 1).reshape([2, 3])", refusal("",
                                                                   [&] {
                                                                     transposed.reshape({2, 3});
                                                                   })),
        error_json("view.slice(1, 1, 4)", refusal("", [&] { view.slice(1, 1, 4); }))}},
      {"permute",
       {{"shape", cube.shape()},
        {"strides", cube.strides()},
        {"axes", {2, 0, 1}},
        {"result_shape", permuted.shape()},
        {"result_strides", permuted.strides()}}},
      {"heads", heads_json()},
      {"packed_qkv", packed_qkv_json()}};
}

}  // namespace

// region: demo-main
int main(int argc, char** argv) {
  try {
    const auto trace = demo::trace_path(argc, argv);
    const Tensor matrix = ch09::worked_matrix();
    print_evidence(matrix);
    demo::write_trace(trace, trace_json(matrix));
    return 0;
  } catch (const std::exception& error) {
    std::cerr << "chapter 9 demo failed: " << error.what() << '\n';
    return 1;
  }
}
// endregion: demo-main
