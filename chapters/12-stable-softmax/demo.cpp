// Chapter 12 demo: normalizes three rows of logits that differ by one in
// every row but sit at 0, +1000 and -1000, prints the stable probabilities,
// log-probabilities, log-sum-exp values and the indexed mean NLL, shows the
// unshifted formula failing on the extreme rows, and prints four rejected
// requests. With --trace PATH it also writes every row's maximum, shifted
// logits, exponentials and normalizer, the same softmax composed from
// chapter 10's kernels, and a second, asymmetric example.
#include <bit>
#include <cmath>
#include <cstdint>
#include <exception>
#include <functional>
#include <iostream>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "demo_refusal.hpp"
#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"
#include "llm/tensor/elementwise.hpp"
#include "llm/tensor/probability.hpp"
#include "llm/tensor/reduction.hpp"

namespace {

using llm::KeepDim;
using llm::Shape;
using llm::Tensor;
using llm::TensorError;
using llm::TensorErrorKind;

/// `[0.000000000000, 1.000000000000]`: values with twelve decimals.
std::string fixed_list(std::span<const double> values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    text += (i == 0 ? "" : ", ") + llm::format_fixed(values[i]);
  }
  return text + "]";
}

std::string shape_text(const Shape& shape) {
  return llm::format_list(std::span<const std::size_t>(shape));
}

/// Row `row` of a row-major [rows, classes] tensor.
std::span<const double> row_of(const Tensor& tensor, std::size_t row) {
  const std::size_t classes = tensor.shape()[1];
  return tensor.values().subspan(row * classes, classes);
}

bool same_bits(std::span<const double> a, std::span<const double> b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::bit_cast<std::uint64_t>(a[i]) != std::bit_cast<std::uint64_t>(b[i])) return false;
  }
  return true;
}

bool all_nan(const std::vector<double>& values) {
  for (double value : values) {
    if (!std::isnan(value)) return false;
  }
  return true;
}

/// `positive infinity`, `negative infinity` or `NaN`.
std::string non_finite_name(double value) {
  if (std::isnan(value)) return "NaN";
  return value > 0 ? "positive infinity" : "negative infinity";
}

// region: rejection-text
/// One rejected request in the words the demo prints, built from the error's
/// typed evidence. A NonFiniteValue error names a row-major coordinate; the
/// line names its group (the coordinate without the class axis, counted in
/// row-major order) and its class (the coordinate on the class axis).
std::string rejection_text(const TensorError& error, std::size_t class_axis) {
  switch (error.kind()) {
    case TensorErrorKind::InvalidAxis:
      return "probability axis " + std::to_string(error.axis()) + " is out of bounds for rank " +
             std::to_string(error.shape().size());
    case TensorErrorKind::EmptyAxis:
      return "probability axis " + std::to_string(error.axis()) + " has no classes";
    case TensorErrorKind::NonFiniteValue: {
      std::size_t group = 0;
      for (std::size_t axis = 0; axis < error.shape().size(); ++axis) {
        if (axis != class_axis) group = group * error.shape()[axis] + error.coordinate()[axis];
      }
      return "logit at group " + std::to_string(group) + ", class " +
             std::to_string(error.coordinate()[class_axis]) + " is " +
             non_finite_name(error.value());
    }
    case TensorErrorKind::TargetOutOfRange:
      return "target " + std::to_string(error.actual()) + " at group " +
             std::to_string(error.index()) + " is out of bounds for " +
             std::to_string(error.expected()) + " classes";
    default:
      return error.what();
  }
}
// endregion: rejection-text

using Rejection = demo::Rejection<TensorError>;

/// The refusal of `request` (demo_refusal.hpp), printed by rejection_text;
/// an accepted request stops the demo.
Rejection rejected(std::string label, std::string request, const std::function<void()>& call) {
  return demo::rejection<TensorError>(
      std::move(label), std::move(request), call,
      [](const TensorError& error) { return rejection_text(error, ch12::kClassAxis); });
}

// --- The trace -----------------------------------------------------------------

using demo::Json;

Json numbers_json(std::span<const double> values) {
  Json list = Json::array();
  for (double value : values) list.push_back(demo::number_json(value));
  return list;
}

// region: composed-softmax
/// Softmax along axis 1 built from chapter 10's kernels: the row maximum kept
/// as [rows, 1], the shift by broadcasting, exp, the row sums, the division.
/// The library's softmax computes the same operations in the same order.
struct ComposedSoftmax {
  Tensor maxima;         ///< [rows, 1]: m of each row
  Tensor shifted;        ///< [rows, classes]: x - m, at most 0
  Tensor exponentials;   ///< [rows, classes]: exp(x - m), in (0, 1]
  Tensor normalizers;    ///< [rows, 1]: Z = sum of the row's exponentials, in [1, classes]
  Tensor probabilities;  ///< [rows, classes]: exp(x - m) / Z
};

ComposedSoftmax composed_softmax(const Tensor& logits) {
  Tensor maxima = llm::max_axis(logits, 1, KeepDim::Yes);
  Tensor shifted = llm::broadcast_map(logits, maxima, [](double x, double m) { return x - m; });
  Tensor exponentials = llm::map_values(shifted, [](double s) { return std::exp(s); });
  Tensor normalizers = llm::sum_axis(exponentials, 1, KeepDim::Yes);
  Tensor probabilities =
      llm::broadcast_map(exponentials, normalizers, [](double e, double z) { return e / z; });
  return {std::move(maxima), std::move(shifted), std::move(exponentials), std::move(normalizers),
          std::move(probabilities)};
}
// endregion: composed-softmax

/// One row per group: every intermediate of the stable path.
Json rows_json(const Tensor& logits, const Tensor& probabilities, const Tensor& log_probabilities,
               const Tensor& log_normalizers) {
  const ComposedSoftmax composed = composed_softmax(logits);
  Json rows = Json::array();
  for (std::size_t row = 0; row < logits.shape()[0]; ++row) {
    rows.push_back({{"row", row},
                    {"logits", numbers_json(row_of(logits, row))},
                    {"maximum", composed.maxima.values()[row]},
                    {"shifted", numbers_json(row_of(composed.shifted, row))},
                    {"exponentials", numbers_json(row_of(composed.exponentials, row))},
                    {"normalizer", composed.normalizers.values()[row]},
                    {"log_normalizer", std::log(composed.normalizers.values()[row])},
                    {"log_sum_exp", log_normalizers.values()[row]},
                    {"probabilities", numbers_json(row_of(probabilities, row))},
                    {"log_probabilities", numbers_json(row_of(log_probabilities, row))}});
  }
  return {{"rows", rows},
          {"composed_equals_library",
           same_bits(composed.probabilities.values(), probabilities.values())}};
}

Json naive_json(const Tensor& logits) {
  Json rows = Json::array();
  for (std::size_t row = 0; row < logits.shape()[0]; ++row) {
    std::vector<double> exponentials;
    double sum = 0.0;
    for (double logit : row_of(logits, row)) {
      exponentials.push_back(std::exp(logit));
      sum += exponentials.back();
    }
    const std::vector<double> result = ch12::naive_softmax(row_of(logits, row));
    std::string status = "finite";
    if (all_nan(result)) status = std::isinf(sum) ? "overflow" : "underflow";
    rows.push_back({{"row", row},
                    {"exponentials", numbers_json(exponentials)},
                    {"sum", demo::number_json(sum)},
                    {"result", numbers_json(result)},
                    {"status", status}});
  }
  return rows;
}

// region: log-normalizer-trace
/// ln Z against log1p(tail) on rows [0, -gap]: the values, their bits, and
/// the log-probability of class 0 as the demo's twelve decimals print it.
Json log_normalizer_json() {
  const auto bits = [](double value) { return std::bit_cast<std::uint64_t>(value); };
  Json cases = Json::array();
  for (const ch12::LogNormalizerCase& entry : ch12::log_normalizer_cases()) {
    cases.push_back({{"gap", entry.gap},
                     {"tail", entry.tail},
                     {"normalizer", entry.normalizer},
                     {"normalizer_bits", bits(entry.normalizer)},
                     {"log_normalizer", entry.log_normalizer},
                     {"log_normalizer_bits", bits(entry.log_normalizer)},
                     {"log1p_tail", entry.log1p_tail},
                     {"log1p_tail_bits", bits(entry.log1p_tail)},
                     {"library_log_probability", entry.library_log_probability},
                     {"library_printed", llm::format_fixed(entry.library_log_probability)},
                     {"log1p_log_probability", entry.log1p_log_probability},
                     {"log1p_printed", llm::format_fixed(entry.log1p_log_probability)}});
  }
  constexpr std::size_t kSweep = 10000;
  constexpr double kLargestGap = 36.0;
  const ch12::Log1pSweep sweep = ch12::log1p_sweep(kSweep, kLargestGap / kSweep);
  return {{"cases", cases},
          {"sweep",
           {{"count", kSweep},
            {"largest_gap", kLargestGap},
            {"differ", sweep.differ},
            {"largest_absolute_difference", sweep.largest_absolute_difference}}}};
}
// endregion: log-normalizer-trace

Json trace_json(const ch12::WorkedExample& example, const std::vector<double>& losses,
                bool rows_match, const std::vector<Rejection>& rejections) {
  Json stable = rows_json(example.logits, example.probabilities, example.log_probabilities,
                          example.log_normalizers);
  Json targets = Json::array();
  for (std::size_t row = 0; row < ch12::kTargets.size(); ++row) {
    targets.push_back(
        {{"row", row},
         {"class", ch12::kTargets[row]},
         {"log_probability", row_of(example.log_probabilities, row)[ch12::kTargets[row]]},
         {"loss", losses[row]}});
  }
  // A second example whose rows differ in spread and in where their maximum
  // sits: the worked rows all share one set of statistics, so a bug that
  // reads another row's maximum or normalizer cannot show there.
  const Tensor uneven({2, 3}, {2.0, 0.0, -1.0, 1000.0, 1003.0, 998.0});
  const std::array<std::size_t, 2> uneven_targets = {0, 2};
  const Tensor uneven_probabilities = llm::softmax(uneven, ch12::kClassAxis);
  Json asymmetric =
      rows_json(uneven, uneven_probabilities, llm::log_softmax(uneven, ch12::kClassAxis),
                llm::log_sum_exp(uneven, ch12::kClassAxis));
  asymmetric["targets"] = uneven_targets;
  asymmetric["mean_nll"] = llm::indexed_mean_nll(uneven, ch12::kClassAxis, uneven_targets);
  const Json errors =
      demo::rejections_json(rejections, [](const TensorError&) { return Json::object(); });
  return {{"logits", demo::tensor_json(example.logits)},
          {"class_axis", ch12::kClassAxis},
          {"stable", stable},
          {"naive", naive_json(example.logits)},
          {"exp_limits",
           {{"largest_finite_argument", std::log(std::numeric_limits<double>::max())},
            {"smallest_positive_argument", std::log(std::numeric_limits<double>::denorm_min())},
            {"exp_of_1000", demo::number_json(std::exp(1000.0))},
            {"exp_of_minus_1000", std::exp(-1000.0)}}},
          {"targets", targets},
          {"mean_nll", example.mean_nll},
          {"rows_match", rows_match},
          {"asymmetric", asymmetric},
          {"log_normalizer", log_normalizer_json()},
          {"errors", errors}};
}

}  // namespace

// region: learner-output
int main(int argc, char** argv) {
  try {
    const auto trace = demo::trace_path(argc, argv);
    const ch12::WorkedExample example = ch12::worked_example();
    const std::size_t rows = example.logits.shape()[0];

    const Tensor row_sums = llm::sum_axis(example.probabilities, ch12::kClassAxis, KeepDim::No);
    std::vector<double> losses;
    for (std::size_t row = 0; row < rows; ++row) {
      losses.push_back(-row_of(example.log_probabilities, row)[ch12::kTargets[row]]);
    }
    bool rows_match = true;
    for (std::size_t row = 1; row < rows; ++row) {
      rows_match = rows_match &&
                   same_bits(row_of(example.probabilities, row), row_of(example.probabilities, 0));
    }
    const std::vector<double> ordinary = ch12::naive_softmax(row_of(example.logits, 0));
    const std::vector<double> overflow = ch12::naive_softmax(row_of(example.logits, 1));
    const std::vector<double> underflow = ch12::naive_softmax(row_of(example.logits, 2));

    const Tensor empty({2, 0}, {});
    const Tensor infinite({1, 2}, {0.0, std::numeric_limits<double>::infinity()});
    const std::array<std::size_t, 3> bad_targets = {1, 2, 1};
    const std::vector<Rejection> rejections = {
        rejected("axis error", "softmax of [3, 2] along axis 2",
                 [&] { llm::softmax(example.logits, 2); }),
        rejected("empty-axis error", "softmax of [2, 0] along axis 1",
                 [&] { llm::softmax(empty, 1); }),
        rejected("non-finite error", "softmax of [[0, +inf]] along axis 1",
                 [&] { llm::softmax(infinite, 1); }),
        rejected("target error", "indexed mean NLL with targets [1, 2, 1]",
                 [&] { llm::indexed_mean_nll(example.logits, 1, bad_targets); }),
    };

    std::cout << "logits: shape=" << shape_text(example.logits.shape())
              << " class_axis=" << ch12::kClassAxis
              << " values=" << fixed_list(example.logits.values()) << '\n';
    std::cout << "stable softmax: shape=" << shape_text(example.probabilities.shape())
              << " values=" << fixed_list(example.probabilities.values()) << '\n';
    std::cout << "log softmax: shape=" << shape_text(example.log_probabilities.shape())
              << " values=" << fixed_list(example.log_probabilities.values()) << '\n';
    std::cout << "log-sum-exp: shape=" << shape_text(example.log_normalizers.shape())
              << " values=" << fixed_list(example.log_normalizers.values()) << '\n';
    std::cout << "row probability sums: " << fixed_list(row_sums.values()) << '\n';
    std::cout << "targets: " << llm::format_list(std::span<const std::size_t>(ch12::kTargets))
              << " losses=" << fixed_list(losses)
              << " mean_nll=" << llm::format_fixed(example.mean_nll) << '\n';
    std::cout << "naive ordinary [0, 1]: " << fixed_list(ordinary) << '\n';
    std::cout << "naive overflow [1000, 1001]: undefined=" << (all_nan(overflow) ? "true" : "false")
              << '\n';
    std::cout << "naive underflow [-1001, -1000]: undefined="
              << (all_nan(underflow) ? "true" : "false") << '\n';
    std::cout << "shift invariance: "
              << (rows_match ? "rows 0, 1, and 2 match exactly" : "the rows differ") << '\n';
    demo::print_rejections(std::cout, rejections);
    std::cout << "chapter 13 handoff: cross-check selected loss derivatives with a materially "
                 "separate finite-difference path\n";

    demo::write_trace(trace, trace_json(example, losses, rows_match, rejections));
    return 0;
  } catch (const std::exception& error) {
    std::cerr << "chapter 12 demo failed: " << error.what() << '\n';
    return 1;
  }
}
// endregion: learner-output
