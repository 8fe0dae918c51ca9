// Chapter 10 demo: adds one feature bias to two token rows by broadcasting,
// squares the tokens, reduces the biased rows along named axes, and shows the
// scalar, empty and rejected cases. With --trace PATH it also writes the
// shape alignment, the coordinate each output reads from each operand, the
// storage offsets each reduction group adds, and every rejected request.
#include <algorithm>
#include <cstddef>
#include <exception>
#include <functional>
#include <iostream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "demo_refusal.hpp"
#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"
#include "llm/tensor/elementwise.hpp"
#include "llm/tensor/reduction.hpp"

namespace {

using llm::KeepDim;
using llm::Shape;
using llm::Tensor;
using llm::TensorError;
using llm::TensorErrorKind;

/// `shape=[2, 3] values=[1.0, 2.0, ...]`: a tensor as the demo prints it.
std::string tensor_line(const Tensor& tensor) {
  return "shape=" + llm::format_list(std::span<const std::size_t>(tensor.shape())) +
         " values=" + llm::format_list(tensor.values());
}

/// The extent `axis` places from the right; a missing leading axis counts as 1.
std::size_t extent_from_right(const Shape& shape, std::size_t axis) {
  return axis < shape.size() ? shape[shape.size() - 1 - axis] : 1;
}

// region: rejection-text
/// One rejected request in the words the demo prints, built from the typed
/// evidence the error carries. The library counts a broadcast axis from the
/// right; the printed line names the output axis, counted from the left.
std::string rejection_text(const TensorError& error, std::string_view operation) {
  switch (error.kind()) {
    case TensorErrorKind::IncompatibleBroadcast: {
      const std::size_t rank = std::max(error.shape().size(), error.other_shape().size());
      return "cannot broadcast output axis " + std::to_string(rank - 1 - error.axis()) +
             ": left size " + std::to_string(extent_from_right(error.shape(), error.axis())) +
             ", right size " + std::to_string(extent_from_right(error.other_shape(), error.axis()));
    }
    case TensorErrorKind::EmptyAxis:
      return "cannot compute " + std::string(operation) + " over empty axis " +
             std::to_string(error.axis());
    case TensorErrorKind::InvalidAxis:
      return "reduction axis " + std::to_string(error.axis()) + " is out of bounds for rank " +
             std::to_string(error.shape().size());
    default:
      return error.what();
  }
}
// endregion: rejection-text

using Rejection = demo::Rejection<TensorError>;

/// The refusal of `request` (demo_refusal.hpp), printed by rejection_text for
/// `operation`; an accepted request stops the demo.
Rejection rejected(std::string label, std::string_view operation, std::string request,
                   const std::function<void()>& call) {
  return demo::rejection<TensorError>(
      std::move(label), std::move(request), call,
      [&](const TensorError& error) { return rejection_text(error, operation); });
}

// --- The trace -----------------------------------------------------------------

using demo::Json;

/// `coordinate` of a [shape]-tensor as an operand of rank `source.size()`
/// reads it under broadcasting: leading axes it lacks are dropped, and an
/// axis of extent 1 reads coordinate 0.
std::vector<std::size_t> source_coordinate(const std::vector<std::size_t>& coordinate,
                                           const Shape& source) {
  const std::size_t dropped = coordinate.size() - source.size();
  std::vector<std::size_t> result;
  for (std::size_t axis = 0; axis < source.size(); ++axis) {
    result.push_back(source[axis] == 1 ? 0 : coordinate[dropped + axis]);
  }
  return result;
}

/// Every coordinate of `shape` in row-major order.
std::vector<std::vector<std::size_t>> coordinates_of(const Shape& shape) {
  std::vector<std::vector<std::size_t>> all;
  if (llm::element_count(shape) == 0) return all;
  std::vector<std::size_t> coordinate(shape.size(), 0);
  while (true) {
    all.push_back(coordinate);
    std::size_t axis = shape.size();
    while (axis > 0) {
      --axis;
      if (++coordinate[axis] < shape[axis]) break;
      coordinate[axis] = 0;
      if (axis == 0) return all;
    }
    if (shape.empty()) return all;
  }
}

/// `shape` padded on the left with extent 1 to `rank` axes.
Shape aligned(const Shape& shape, std::size_t rank) {
  Shape result(rank - shape.size(), 1);
  for (std::size_t extent : shape) result.push_back(extent);
  return result;
}

Json broadcast_json(const ch10::WorkedExample& example) {
  const Shape output = llm::broadcast_shapes(example.tokens.shape(), example.bias.shape());
  const llm::TensorView tokens = example.tokens.view().broadcast_to(output);
  const llm::TensorView bias = example.bias.view().broadcast_to(output);
  Json maps = Json::array();
  std::vector<std::size_t> token_offsets;
  std::vector<std::size_t> bias_offsets;
  for (const std::vector<std::size_t>& coordinate : coordinates_of(output)) {
    token_offsets.push_back(tokens.offset_of(coordinate));
    bias_offsets.push_back(bias.offset_of(coordinate));
    maps.push_back({{"output", coordinate},
                    {"tokens", source_coordinate(coordinate, example.tokens.shape())},
                    {"bias", source_coordinate(coordinate, example.bias.shape())},
                    {"token_offset", token_offsets.back()},
                    {"bias_offset", bias_offsets.back()},
                    {"value", example.biased.at(coordinate)}});
  }
  return {{"output_shape", output},
          {"aligned_tokens", aligned(example.tokens.shape(), output.size())},
          {"aligned_bias", aligned(example.bias.shape(), output.size())},
          {"token_strides", tokens.strides()},
          {"bias_strides", bias.strides()},
          {"token_offsets", token_offsets},
          {"bias_offsets", bias_offsets},
          {"maps", maps}};
}

/// One reduction: its groups of source offsets (one group per output value,
/// in the order the kernel adds them) and its result.
Json reduction_json(const std::string& operation, const Tensor& source, std::size_t axis,
                    KeepDim keep_dim, const Tensor& result) {
  Shape kept = source.shape();
  kept[axis] = 1;
  Json groups = Json::array();
  Json group_values = Json::array();
  for (std::vector<std::size_t> coordinate : coordinates_of(kept)) {
    std::vector<std::size_t> offsets;
    std::vector<double> values;
    for (std::size_t k = 0; k < source.shape()[axis]; ++k) {
      coordinate[axis] = k;
      offsets.push_back(source.view().offset_of(coordinate));
      values.push_back(source.at(coordinate));
    }
    groups.push_back(offsets);
    group_values.push_back(values);
  }
  return {{"operation", operation},
          {"axis", axis},
          {"keep_dim", keep_dim == KeepDim::Yes},
          {"input_shape", source.shape()},
          {"input_strides", source.strides()},
          {"output_shape", result.shape()},
          {"groups", groups},
          {"group_values", group_values},
          {"values", demo::tensor_json(result)["values"]}};
}

Json trace_json(const ch10::WorkedExample& example, const Tensor& scalar_broadcast,
                const Tensor& empty_broadcast, std::size_t closure_calls,
                const std::vector<Rejection>& rejections) {
  const Json errors = demo::rejections_json(rejections, [](const TensorError& error) {
    return Json{
        {"shape", error.shape()}, {"other_shape", error.other_shape()}, {"axis", error.axis()}};
  });
  return {{"tokens", demo::tensor_json(example.tokens)},
          {"bias", demo::tensor_json(example.bias)},
          {"biased", demo::tensor_json(example.biased)},
          {"squared", demo::tensor_json(example.squared)},
          {"broadcast", broadcast_json(example)},
          {"reductions",
           {reduction_json("sum", example.biased, 0, KeepDim::No, example.sum_over_tokens),
            reduction_json("mean", example.biased, 1, KeepDim::Yes, example.mean_per_token),
            reduction_json("max", example.biased, 1, KeepDim::No, example.max_per_token)}},
          {"scalar_broadcast", demo::tensor_json(scalar_broadcast)},
          {"empty_broadcast",
           {{"shape", empty_broadcast.shape()},
            {"size", empty_broadcast.size()},
            {"closure_calls", closure_calls}}},
          {"errors", errors}};
}

}  // namespace

// region: learner-output
int main(int argc, char** argv) {
  try {
    const auto trace = demo::trace_path(argc, argv);
    const ch10::WorkedExample example = ch10::worked_example();

    const Tensor scalar = Tensor::scalar(0.5);
    const Tensor scalar_broadcast = llm::add(example.tokens, scalar);

    const Tensor empty = ch10::empty_fixture();
    std::size_t closure_calls = 0;
    const Tensor empty_broadcast =
        llm::broadcast_map(empty, example.bias, [&](double value, double offset) {
          ++closure_calls;
          return value + offset;
        });
    const Tensor empty_sum = llm::sum_axis(empty, 1, KeepDim::No);

    const Tensor two_values({2}, {1.0, 2.0});
    const std::vector<Rejection> rejections = {
        rejected("broadcast error", "broadcast", "tokens [2, 3] + [2]",
                 [&] { llm::add(example.tokens, two_values); }),
        rejected("mean error", "mean", "mean of [2, 0, 3] along axis 1",
                 [&] { llm::mean_axis(empty, 1, KeepDim::No); }),
        rejected("max error", "max", "max of [2, 0, 3] along axis 1",
                 [&] { llm::max_axis(empty, 1, KeepDim::No); }),
        rejected("scalar reduction error", "sum", "sum of a rank-0 tensor along axis 0",
                 [&] { llm::sum_axis(scalar, 0, KeepDim::No); }),
    };

    std::cout << "token features: " << tensor_line(example.tokens) << '\n';
    std::cout << "feature bias: " << tensor_line(example.bias) << '\n';
    std::cout << "broadcast add: " << tensor_line(example.biased) << '\n';
    std::cout << "unary square: " << tensor_line(example.squared) << '\n';
    std::cout << "sum axis=0 keep_dim=false: " << tensor_line(example.sum_over_tokens) << '\n';
    std::cout << "mean axis=1 keep_dim=true: " << tensor_line(example.mean_per_token) << '\n';
    std::cout << "max axis=1 keep_dim=false: " << tensor_line(example.max_per_token) << '\n';
    std::cout << "scalar broadcast: " << tensor_line(scalar_broadcast) << '\n';
    std::cout << "empty broadcast: shape="
              << llm::format_list(std::span<const std::size_t>(empty_broadcast.shape()))
              << " values=" << empty_broadcast.size() << " closure_calls=" << closure_calls << '\n';
    std::cout << "empty sum axis=1 keep_dim=false: " << tensor_line(empty_sum) << '\n';
    demo::print_rejections(std::cout, rejections);
    std::cout << "chapter 11 handoff: contract matching axes with matrix multiplication\n";

    demo::write_trace(
        trace, trace_json(example, scalar_broadcast, empty_broadcast, closure_calls, rejections));
    return 0;
  } catch (const std::exception& error) {
    std::cerr << "chapter 10 demo failed: " << error.what() << '\n';
    return 1;
  }
}
// endregion: learner-output
