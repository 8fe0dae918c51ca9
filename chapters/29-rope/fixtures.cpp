// The worked examples of chapter 29.
#include "fixtures.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>

#include "demo_tape.hpp"
#include "llm/autograd/rotary.hpp"
#include "llm/tensor/matmul.hpp"

namespace ch29 {

namespace {

using llm::Shape;
using llm::Tensor;
using llm::TensorValue;

// A [T, D] tensor that repeats `row` at every position.
Tensor repeated(const std::array<double, kWidth>& row) {
  std::vector<double> values;
  for (std::size_t token = 0; token < kTokens; ++token)
    values.insert(values.end(), row.begin(), row.end());
  return Tensor(Shape{kTokens, kWidth}, std::move(values));
}

Tensor upstream_tensor(const std::array<double, kTokens * kWidth>& values) {
  return Tensor(Shape{kTokens, kWidth}, {values.begin(), values.end()});
}

std::vector<double> row_norms(const Tensor& rows) {
  std::vector<double> norms;
  const std::span<const double> x = rows.values();
  for (std::size_t row = 0; row < kTokens; ++row) {
    double square = 0.0;
    for (std::size_t i = 0; i < kWidth; ++i) square += x[row * kWidth + i] * x[row * kWidth + i];
    norms.push_back(std::sqrt(square));
  }
  return norms;
}

bool within(std::span<const double> a, std::span<const double> b, double tolerance) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::abs(a[i] - b[i]) > tolerance) return false;
  }
  return a.size() == b.size();
}

// sum(x * weights) over every element: the loss term of one rotated tensor.
TensorValue weighted_sum(const TensorValue& x, const Tensor& weights) {
  return x.mul(TensorValue::constant(weights)).sum_axis(1).sum_axis(0);
}

}  // namespace

// region: rope-fixture
RotationEvidence rotation_evidence(const std::array<double, kWidth>& query_row,
                                   const std::array<double, kWidth>& key_row) {
  const llm::RotaryTable table(kWidth, kCapacity, kBase);
  const TensorValue query = TensorValue::parameter(repeated(query_row));
  const TensorValue key = TensorValue::parameter(repeated(key_row));
  // Positions 0, 1, 2, then the same content at 3, 4, 5.
  const TensorValue rotated_query = table.rotate(query, 0);
  const TensorValue rotated_key = table.rotate(key, 0);
  const Tensor shifted_query = table.rotate(query, kShift).value().materialize();
  const Tensor shifted_key = table.rotate(key, kShift).value().materialize();

  RotationEvidence e;
  e.query = query.value().materialize();
  e.key = key.value().materialize();
  e.rotated_query = rotated_query.value().materialize();
  e.rotated_key = rotated_key.value().materialize();
  // grid[m][n] = rotated query row m . rotated key row n: Q K^T
  e.dot_grid = llm::matmul(e.rotated_query.view(), e.rotated_key.view().matrix_transpose());
  e.shifted_dot_grid = llm::matmul(shifted_query.view(), shifted_key.view().matrix_transpose());
  e.shifted_query = shifted_query;
  e.shifted_key = shifted_key;

  e.query_upstream = upstream_tensor(kQueryUpstream);
  e.key_upstream = upstream_tensor(kKeyUpstream);
  const TensorValue loss =
      weighted_sum(rotated_query, e.query_upstream).add(weighted_sum(rotated_key, e.key_upstream));
  e.loss = loss.item();
  const llm::TensorBackwardTrace pass = loss.backward_with_trace();
  e.query_gradient = *query.gradient();
  e.key_gradient = *key.gradient();
  e.tape_finite = demo::trace_is_finite(pass);
  // The printed tables, norms and checks follow.
  // endregion: rope-fixture

  e.inverse_frequencies = table.inverse_frequencies().materialize();
  e.cosines = table.cosines().slice(0, 0, kTokens).materialize();
  e.sines = table.sines().slice(0, 0, kTokens).materialize();
  e.angles = Tensor::zeros(Shape{kTokens, kWidth / 2});
  for (std::size_t t = 0; t < kTokens; ++t) {
    for (std::size_t p = 0; p < kWidth / 2; ++p) {
      e.angles.mutable_values()[t * (kWidth / 2) + p] =
          static_cast<double>(t) * e.inverse_frequencies.values()[p];
    }
  }
  e.input_norms = row_norms(e.query);
  e.rotated_norms = row_norms(e.rotated_query);
  e.shifted_norms = row_norms(e.shifted_query);
  e.norm_preserved = within(e.input_norms, e.rotated_norms, kInvariantTolerance) &&
                     within(e.input_norms, e.shifted_norms, kInvariantTolerance);
  e.common_shift_preserved =
      within(e.dot_grid.values(), e.shifted_dot_grid.values(), kInvariantTolerance);
  e.position_zero_identity = true;
  for (std::size_t i = 0; i < kWidth; ++i) {
    e.position_zero_identity =
        e.position_zero_identity && std::bit_cast<std::uint64_t>(e.rotated_query.values()[i]) ==
                                        std::bit_cast<std::uint64_t>(e.query.values()[i]);
  }
  return e;
}

TableEvidence table_evidence() {
  const llm::RotaryTable table(kWidth, kCapacity, kBase);
  return {table.inverse_frequencies().materialize(), table.cosines().materialize(),
          table.sines().materialize()};
}

// region: rope-pair-fixture
std::vector<PairDot> pair_evidence() {
  const llm::RotaryTable one_pair(2, kCapacity, kBase);  // w_0 = base^0 = 1
  const TensorValue q = TensorValue::constant(Tensor(Shape{1, 2}, {1.0, 0.0}));
  const TensorValue k = TensorValue::constant(Tensor(Shape{1, 2}, {0.0, 1.0}));
  std::vector<PairDot> dots;
  for (const auto& [m, n] :
       std::vector<std::pair<std::size_t, std::size_t>>{{0, 0}, {1, 0}, {3, 2}, {0, 1}}) {
    const Tensor rq = one_pair.rotate(q, m).value().materialize();
    const Tensor rk = one_pair.rotate(k, n).value().materialize();
    const double dot = rq.values()[0] * rk.values()[0] + rq.values()[1] * rk.values()[1];
    dots.push_back({m,
                    n,
                    {rq.values().begin(), rq.values().end()},
                    {rk.values().begin(), rk.values().end()},
                    dot});
  }
  return dots;
}
// endregion: rope-pair-fixture

ShapeEvidence shape_evidence() {
  const llm::RotaryTable table(kWidth, kCapacity, kBase);
  const auto rotated_shape = [&](const Shape& shape, std::size_t offset) {
    return table.rotate(TensorValue::constant(Tensor::zeros(shape)), offset).shape();
  };
  return {rotated_shape({2, 3, kWidth}, 1), rotated_shape({2, 2, 3, kWidth}, 1),
          rotated_shape({0, 3, kWidth}, 1), rotated_shape({2, 0, kWidth}, kCapacity)};
}

// region: rope-refusals
RefusalEvidence refusal_evidence() {
  using Error = llm::DecoderOpError;
  const auto text = [](const Error& error) { return std::string(error.what()); };
  const llm::RotaryTable short_table(kWidth, 3, kBase);  // positions 0, 1, 2
  const auto zeros = [](const Shape& shape) { return TensorValue::constant(Tensor::zeros(shape)); };
  const std::size_t last_offset = std::numeric_limits<std::size_t>::max();
  // A node whose graph a backward() has released: rotating it records a node,
  // and the pass through that node refuses.
  const TensorValue source = TensorValue::parameter(Tensor(Shape{1, kWidth}, {1.0, 0.0, 1.0, 0.0}));
  const TensorValue released = source.add(TensorValue::constant(Tensor(Shape{}, {0.0})));
  released.sum_axis(1).sum_axis(0).backward();  // releases the graph by default
  auto released_refusal = demo::rejection<llm::TensorAutodiffError>(
      "released", "backward through a rotation of a released node",
      [&] { short_table.rotate(released, 0).sum_axis(1).sum_axis(0).backward(); },
      [](const llm::TensorAutodiffError& error) { return std::string(error.what()); });
  std::vector<demo::Rejection<Error>> refusals{
      demo::rejection<Error>(
          "zero_width", "RotaryTable(0, 6, 100)", [] { llm::RotaryTable(0, kCapacity, kBase); },
          text),
      demo::rejection<Error>(
          "odd_width", "RotaryTable(3, 6, 100)", [] { llm::RotaryTable(3, kCapacity, kBase); },
          text),
      demo::rejection<Error>(
          "invalid_base", "RotaryTable(4, 6, 0)", [] { llm::RotaryTable(kWidth, kCapacity, 0.0); },
          text),
      demo::rejection<Error>(
          "rank", "rotate a [4] vector", [&] { short_table.rotate(zeros({kWidth}), 0); }, text),
      demo::rejection<Error>(
          "width_mismatch", "rotate a [1, 2] tensor with a width-4 table",
          [&] {
            short_table.rotate(zeros({1, 2}), 0);
          },
          text),
      demo::rejection<Error>(
          "range", "rotate 2 tokens from position 2 of a 3-position table",
          [&] {
            short_table.rotate(zeros({2, kWidth}), 2);
          },
          text),
      demo::rejection<Error>(
          "overflow", "rotate 1 token from the largest size_t offset",
          [&] {
            short_table.rotate(zeros({1, kWidth}), last_offset);
          },
          text)};
  return {std::move(refusals), std::move(released_refusal)};
}
// endregion: rope-refusals

// region: rope-gradcheck
GradientCheckEvidence gradient_check_evidence(const RotationEvidence& printed) {
  const llm::RotaryTable table(kWidth, kCapacity, kBase);
  // The loss term of one input as a plain function of its values: rotate a
  // constant (no tape) and weight the result.
  const auto objective = [&](const Tensor& weights) {
    return [&table, weights](const Tensor& probe) {
      const Tensor rotated = table.rotate(TensorValue::constant(probe), 0).value().materialize();
      double sum = 0.0;
      for (std::size_t i = 0; i < rotated.size(); ++i)
        sum += rotated.values()[i] * weights.values()[i];
      return sum;
    };
  };
  Tensor query_probe = printed.query;
  Tensor key_probe = printed.key;
  GradientCheckEvidence evidence;
  evidence.query = llm::sampled_tensor_gradient_check(
      query_probe, printed.query_gradient.view(), kGradcheckStep, kGradcheckTolerance,
      printed.query.size(), objective(printed.query_upstream));
  evidence.key = llm::sampled_tensor_gradient_check(
      key_probe, printed.key_gradient.view(), kGradcheckStep, kGradcheckTolerance,
      printed.key.size(), objective(printed.key_upstream));
  evidence.passed = evidence.query.passed && evidence.key.passed;
  return evidence;
}
// endregion: rope-gradcheck

bool rotation_replays_bitwise() {
  const auto bits = [](const RotationEvidence& e) {
    std::vector<std::uint64_t> all{std::bit_cast<std::uint64_t>(e.loss)};
    for (const Tensor* t : {&e.rotated_query, &e.rotated_key, &e.shifted_query, &e.shifted_key,
                            &e.dot_grid, &e.shifted_dot_grid, &e.query_gradient, &e.key_gradient}) {
      for (double value : t->values()) all.push_back(std::bit_cast<std::uint64_t>(value));
    }
    return all;
  };
  return bits(rotation_evidence(kRow, kRow)) == bits(rotation_evidence(kRow, kRow));
}

}  // namespace ch29
