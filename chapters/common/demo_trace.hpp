// Run data a chapter demo hands to the book's figure macros.
//
// A demo prints its verified text to stdout. When started with
// `--trace PATH` it also writes a JSON document of the values its figures
// draw (graphs, ledgers, tables); tools/render.py reads it, so no number in
// a figure is typed by hand. The JSON is written to PATH.tmp and renamed, so
// a crash never leaves a half-written trace behind.
//
// This header includes no tensor or gradient-check header: the helpers that
// read a tensor or a gradient check are templates over what they read, so a
// demo of the text chapters, which never instantiates them, does not depend
// on (and is not rebuilt and rerun for) src/llm/tensor/ or src/llm/autograd/.
#pragma once

#include <cmath>
#include <concepts>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "llm/format.hpp"

namespace demo {

/// Key order is kept, so the trace reads in the order the demo computed it.
using Json = nlohmann::ordered_json;

/// The path after `--trace`, if the demo was asked to write a trace.
/// @throws std::invalid_argument for any other argument.
inline std::optional<std::string> trace_path(int argc, char** argv) {
  std::optional<std::string> path;
  for (int i = 1; i < argc; ++i) {
    const std::string_view argument = argv[i];
    if (argument == "--trace" && i + 1 < argc) {
      path = argv[++i];
    } else {
      throw std::invalid_argument("unknown argument '" + std::string(argument) +
                                  "' (usage: demo [--trace PATH])");
    }
  }
  return path;
}

/// Writes `trace` to `path` atomically, if a path was given.
inline void write_trace(const std::optional<std::string>& path, const Json& trace) {
  if (!path) return;
  const std::string temporary = *path + ".tmp";
  {
    std::ofstream file(temporary);
    file << trace.dump(1) << '\n';
    if (!file) throw std::runtime_error("cannot write trace file " + temporary);
  }
  if (std::rename(temporary.c_str(), path->c_str()) != 0) {
    throw std::runtime_error("cannot rename " + temporary + " to " + *path);
  }
}

/// What tensor_json reads: a shape and row-major values (llm::Tensor).
template <class T>
concept ShapedValues = requires(const T& tensor) {
  tensor.shape();
  { *tensor.values().begin() } -> std::convertible_to<double>;
};

/// A tensor as `{"shape": [...], "values": [...]}`.
template <ShapedValues Tensor>
Json tensor_json(const Tensor& tensor) {
  Json values = Json::array();
  for (double value : tensor.values()) values.push_back(value);
  return Json{{"shape", tensor.shape()}, {"values", values}};
}

/// tensor_json of the tensor, or null when there is none (an untracked
/// node's adjoint, a constant's gradient).
template <ShapedValues Tensor>
Json optional_tensor_json(const std::optional<Tensor>& tensor) {
  if (tensor) return tensor_json(*tensor);
  return nullptr;
}

/// A double as evidence. JSON has no infinity or NaN, so such a value is
/// stored as the text the demo prints for it (llm::format_shortest: `inf`).
inline Json number_json(double value) {
  if (std::isfinite(value)) return value;
  return llm::format_shortest(value);
}

/// The sampled coordinates of a tensor gradient check (llm::TensorGradientCheck),
/// one object each: flat index, coordinate, analytic and numerical values,
/// scaled error, verdict.
template <class GradientCheck>
Json coordinate_checks_json(const GradientCheck& report) {
  Json coordinates = Json::array();
  for (const auto& check : report.checks) {
    coordinates.push_back({{"flat_index", check.flat_index},
                           {"coordinate", check.coordinate},
                           {"analytic", check.comparison.analytic},
                           {"numerical", check.comparison.numerical},
                           {"scaled_error", check.comparison.scaled_error},
                           {"passed", check.comparison.passed}});
  }
  return coordinates;
}

}  // namespace demo
