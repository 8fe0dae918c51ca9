// Chapter 8 demo: stores the worked [2, 2, 3] tensor in one flat buffer,
// prints its strides, the offset and value of [1, 0, 2], the buffer after an
// in-place write at [0, 1, 1], a scalar and an empty tensor, and the three
// requests the library must refuse. With --trace PATH it also writes the
// slices, the stride terms of the lookup, every coordinate's offset under the
// right and two wrong rules, the axis checks of the rejected coordinate and
// every refused request with the library's own message.
#include <cstddef>
#include <exception>
#include <iostream>
#include <limits>
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

/// The error `call` throws; a request the library accepts stops the demo.
template <class Call>
TensorError refused(const std::string& request, Call call) {
  try {
    call();
  } catch (const TensorError& error) {
    return error;
  }
  throw std::logic_error("the request '" + request + "' was accepted but must be refused");
}

/// The sentence the demo prints for a refused request, built from the
/// error's typed evidence (the library's own what() is in the trace).
std::string printed_reason(const TensorError& error) {
  switch (error.kind()) {
    case llm::TensorErrorKind::RankMismatch:
      return "coordinate rank " + std::to_string(error.coordinate().size()) +
             " does not match tensor rank " + std::to_string(error.shape().size());
    case llm::TensorErrorKind::CoordinateOutOfBounds:
      return "index " + std::to_string(error.coordinate()[error.axis()]) +
             " is out of bounds for axis " + std::to_string(error.axis()) + " with size " +
             std::to_string(error.shape()[error.axis()]);
    case llm::TensorErrorKind::ShapeOverflow:
      return "shape does not fit a row-major usize layout";
    default:
      return error.what();
  }
}

/// What the demo computes; printed once, traced once.
struct Run {
  std::vector<ch08::NamedTensor> model_shapes;
  Tensor worked;   // as constructed
  Tensor written;  // after the in-place write
  std::size_t selected_offset = 0;
  double selected_value = 0.0;
  std::size_t written_offset = 0;
  Tensor scalar;
  std::size_t scalar_offset = 0;
  double scalar_value = 0.0;
  Tensor empty;
  TensorError rank_error;
  TensorError bounds_error;
  TensorError overflow_error;
};

// region: learner-output
Run compute() {
  std::vector<ch08::NamedTensor> model_shapes = ch08::model_shape_fixture();

  Tensor worked = ch08::worked_tensor();
  const std::size_t selected_offset =
      llm::offset_from_coordinate(worked.shape(), ch08::kSelectedCoordinate);
  const double selected_value = worked.at(ch08::kSelectedCoordinate);
  Tensor written = worked;  // a copy: the write below changes only this one
  written.set(ch08::kWrittenCoordinate, 99.0);
  const std::size_t written_offset =
      llm::offset_from_coordinate(written.shape(), ch08::kWrittenCoordinate);

  Tensor scalar({}, {7.0});  // rank 0, one value
  const std::vector<std::size_t> no_indices;
  const std::size_t scalar_offset = llm::offset_from_coordinate(scalar.shape(), no_indices);
  const double scalar_value = scalar.at(no_indices);
  Tensor empty({2, 0, 3}, {});  // a zero extent: no values at all

  const std::vector<std::size_t> short_coordinate = {1, 0};
  TensorError rank_error = refused("offset of [1, 0]", [&] {
    (void)llm::offset_from_coordinate(worked.shape(), short_coordinate);
  });
  TensorError bounds_error = refused("offset of [1, 2, 0]", [&] {
    (void)llm::offset_from_coordinate(worked.shape(), ch08::kInvalidCoordinate);
  });
  constexpr std::size_t kLargest = std::numeric_limits<std::size_t>::max();
  TensorError overflow_error = refused("shape [SIZE_MAX, 2]", [] { Tensor({kLargest, 2}, {}); });

  return {
      .model_shapes = std::move(model_shapes),
      .worked = std::move(worked),
      .written = std::move(written),
      .selected_offset = selected_offset,
      .selected_value = selected_value,
      .written_offset = written_offset,
      .scalar = std::move(scalar),
      .scalar_offset = scalar_offset,
      .scalar_value = scalar_value,
      .empty = std::move(empty),
      .rank_error = std::move(rank_error),
      .bounds_error = std::move(bounds_error),
      .overflow_error = std::move(overflow_error),
  };
}
// endregion: learner-output

void print(const Run& run) {
  using llm::shape_text;
  for (const ch08::NamedTensor& named : run.model_shapes) {
    std::cout << named.label << ": shape=" << shape_text(named.tensor.shape())
              << " strides=" << shape_text(named.tensor.strides())
              << " elements=" << named.tensor.size() << '\n';
  }
  std::cout << "tensor shape: " << shape_text(run.worked.shape()) << '\n';
  std::cout << "tensor strides: " << shape_text(run.worked.strides()) << '\n';
  std::cout << "flat data: " << llm::format_list(run.worked.values()) << '\n';
  std::cout << "coordinate " << shape_text(ch08::kSelectedCoordinate)
            << ": offset=" << run.selected_offset
            << " value=" << llm::format_fixed(run.selected_value, 1) << '\n';
  std::cout << "after " << shape_text(ch08::kWrittenCoordinate)
            << " = 99: " << llm::format_list(run.written.values()) << '\n';
  std::cout << "scalar: shape=" << shape_text(run.scalar.shape())
            << " strides=" << shape_text(run.scalar.strides()) << " offset=" << run.scalar_offset
            << " value=" << llm::format_fixed(run.scalar_value, 1) << '\n';
  std::cout << "empty: shape=" << shape_text(run.empty.shape())
            << " strides=" << shape_text(run.empty.strides()) << " values=" << run.empty.size()
            << '\n';
  std::cout << "rank error: " << printed_reason(run.rank_error) << '\n';
  std::cout << "bounds error: " << printed_reason(run.bounds_error) << '\n';
  std::cout << "overflow error: " << printed_reason(run.overflow_error) << '\n';
  std::cout << "chapter 9 handoff: same storage, new shape/strides/base offset\n";
}

// --- The trace -----------------------------------------------------------------

using demo::Json;

/// Every coordinate of `shape` in row-major order (the last index fastest).
std::vector<std::vector<std::size_t>> all_coordinates(const Shape& shape) {
  std::vector<std::vector<std::size_t>> coordinates;
  for (std::size_t offset = 0; offset < llm::element_count(shape); ++offset) {
    coordinates.push_back(llm::coordinate_from_offset(shape, offset));
  }
  return coordinates;
}

/// sum_k coordinate[k] * steps[k]: the offset a layout with these steps gives.
std::size_t weighted_sum(const std::vector<std::size_t>& coordinate, const llm::Strides& steps) {
  std::size_t sum = 0;
  for (std::size_t axis = 0; axis < coordinate.size(); ++axis)
    sum += coordinate[axis] * steps[axis];
  return sum;
}

/// Column-major strides: the first axis varies fastest (prefix products).
llm::Strides column_major_strides(const Shape& shape) {
  llm::Strides strides(shape.size(), 1);
  for (std::size_t axis = 1; axis < shape.size(); ++axis) {
    strides[axis] = strides[axis - 1] * shape[axis - 1];
  }
  return strides;
}

/// One row of the offset map: the right offset and those of two wrong rules.
/// The first wrong rule uses the extents as if they were strides, the second
/// lays the tensor out column-major; neither is what Tensor uses.
Json offset_map_json(const Tensor& tensor) {
  const llm::Strides strides = tensor.strides();
  const llm::Strides extents_as_strides(tensor.shape().begin(), tensor.shape().end());
  const llm::Strides column_major = column_major_strides(tensor.shape());
  Json rows = Json::array();
  for (const std::vector<std::size_t>& coordinate : all_coordinates(tensor.shape())) {
    rows.push_back({{"coordinate", coordinate},
                    {"offset", llm::offset_from_coordinate(tensor.shape(), coordinate)},
                    {"stride_sum", weighted_sum(coordinate, strides)},
                    {"value", tensor.at(coordinate)},
                    {"extents_as_strides", weighted_sum(coordinate, extents_as_strides)},
                    {"column_major", weighted_sum(coordinate, column_major)}});
  }
  return {{"strides", strides},
          {"extents_as_strides", extents_as_strides},
          {"column_major_strides", column_major},
          {"rows", rows}};
}

/// The lookup of `coordinate`, term by term (the formula) and step by step
/// (Horner's rule, as offset_from_coordinate evaluates the same sum).
Json lookup_json(const Tensor& tensor, const std::vector<std::size_t>& coordinate) {
  const llm::Strides strides = tensor.strides();
  Json terms = Json::array();
  for (std::size_t axis = 0; axis < coordinate.size(); ++axis) {
    terms.push_back({{"axis", axis},
                     {"index", coordinate[axis]},
                     {"extent", tensor.shape()[axis]},
                     {"stride", strides[axis]},
                     {"contribution", coordinate[axis] * strides[axis]}});
  }
  Json horner = Json::array();
  std::size_t running = 0;
  for (std::size_t axis = 0; axis < coordinate.size(); ++axis) {
    const std::size_t next = running * tensor.shape()[axis] + coordinate[axis];
    horner.push_back({{"axis", axis},
                      {"before", running},
                      {"extent", tensor.shape()[axis]},
                      {"index", coordinate[axis]},
                      {"after", next}});
    running = next;
  }
  const llm::Layout layout(tensor.shape());
  return {{"coordinate", coordinate},
          {"terms", terms},
          {"horner", horner},
          {"offset", llm::offset_from_coordinate(tensor.shape(), coordinate)},
          {"layout_offset", layout.offset_of(coordinate)},
          {"value", tensor.at(coordinate)}};
}

/// The axis checks of a rejected coordinate, in the order the library makes
/// them: each axis passes until the first that fails; later axes are never read.
Json bounds_json(const Tensor& tensor, const TensorError& error) {
  const std::vector<std::size_t>& coordinate = error.coordinate();
  Json axes = Json::array();
  for (std::size_t axis = 0; axis < coordinate.size(); ++axis) {
    const char* status = axis < error.axis()    ? "passes"
                         : axis == error.axis() ? "fails"
                                                : "not checked";
    axes.push_back({{"axis", axis},
                    {"index", coordinate[axis]},
                    {"extent", tensor.shape()[axis]},
                    {"status", status}});
  }
  return {{"coordinate", coordinate},
          {"axis", error.axis()},
          {"index", coordinate[error.axis()]},
          {"size", error.shape()[error.axis()]},
          {"row_major_sum", weighted_sum(coordinate, tensor.strides())},
          {"buffer_length", tensor.size()},
          {"axes", axes}};
}

Json error_json(const std::string& request, const TensorError& error, bool printed) {
  return {{"request", request},
          {"kind", std::string(error.kind_name())},
          {"message", error.what()},
          {"printed", printed ? Json(printed_reason(error)) : Json(nullptr)}};
}

Json tensor_summary(const Tensor& tensor) {
  return {{"shape", tensor.shape()},
          {"strides", tensor.strides()},
          {"rank", tensor.rank()},
          {"elements", tensor.size()}};
}

Json trace_json(const Run& run) {
  Json model_shapes = Json::array();
  for (const ch08::NamedTensor& named : run.model_shapes) {
    Json entry = tensor_summary(named.tensor);
    entry["label"] = named.label;
    model_shapes.push_back(entry);
  }
  const Tensor& worked = run.worked;
  Json slices = Json::array();
  for (std::size_t slice = 0; slice < worked.shape()[0]; ++slice) {
    Json rows = Json::array();
    for (std::size_t row = 0; row < worked.shape()[1]; ++row) {
      Json values = Json::array();
      for (std::size_t column = 0; column < worked.shape()[2]; ++column) {
        values.push_back(worked.at(std::vector<std::size_t>{slice, row, column}));
      }
      rows.push_back(values);
    }
    slices.push_back(rows);
  }
  Json errors = Json::array();
  errors.push_back(error_json("offset of [1, 0] in [2, 2, 3]", run.rank_error, true));
  errors.push_back(error_json("offset of [1, 2, 0] in [2, 2, 3]", run.bounds_error, true));
  errors.push_back(error_json("Tensor({SIZE_MAX, 2}, {})", run.overflow_error, true));
  errors.push_back(error_json("Tensor({2, 2}, {1, 2, 3})",
                              refused("three values for [2, 2]",
                                      [] {
                                        Tensor({2, 2}, {1.0, 2.0, 3.0});
                                      }),
                              false));
  const std::vector<std::size_t> scalar_coordinate = {0};
  errors.push_back(error_json(
      "scalar.at([0])", refused("scalar.at([0])", [&] { (void)run.scalar.at(scalar_coordinate); }),
      false));
  const std::vector<std::size_t> empty_coordinate = {0, 0, 0};
  errors.push_back(error_json(
      "empty.at([0, 0, 0])",
      refused("empty.at([0, 0, 0])", [&] { (void)run.empty.at(empty_coordinate); }), false));
  return {
      {"tensor",
       {{"shape", worked.shape()},
        {"strides", worked.strides()},
        {"rank", worked.rank()},
        {"length", worked.size()},
        {"values", std::vector<double>(worked.values().begin(), worked.values().end())},
        {"slices", slices}}},
      {"lookup", lookup_json(worked, ch08::kSelectedCoordinate)},
      {"write",
       {{"lookup", lookup_json(worked, ch08::kWrittenCoordinate)},
        {"offset", run.written_offset},
        {"values", std::vector<double>(run.written.values().begin(), run.written.values().end())}}},
      {"offset_map", offset_map_json(worked)},
      {"bounds", bounds_json(worked, run.bounds_error)},
      {"scalar", tensor_summary(run.scalar)},
      {"empty", tensor_summary(run.empty)},
      {"model_shapes", model_shapes},
      {"exercise_strides",
       {{"shape", Shape{3, 4, 5}}, {"strides", llm::row_major_strides({3, 4, 5})}}},
      {"errors", errors}};
}

}  // namespace

// region: demo-main
int main(int argc, char** argv) {
  try {
    const auto trace = demo::trace_path(argc, argv);
    const Run run = compute();
    print(run);
    demo::write_trace(trace, trace_json(run));
    return 0;
  } catch (const std::exception& error) {
    std::cerr << "chapter 8 demo failed: " << error.what() << '\n';
    return 1;
  }
}
// endregion: demo-main
