// The worked examples of chapter 11: see fixtures.hpp.
#include "fixtures.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <utility>

#include "llm/tensor/matmul_kernel.hpp"

namespace ch11 {

using llm::Tensor;
using llm::TensorError;
using llm::TensorErrorKind;
using llm::TensorView;

// region: worked-products
WorkedExample worked_example() {
  WorkedExample example;
  example.token_rows = Tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  example.weights = Tensor({3, 2}, {1, 2, 0, 1, 2, 0});
  example.product = llm::matmul(example.token_rows, example.weights);

  // W stored the other way round; matrix_transpose() swaps the last two
  // strides, so the product reads it as [3, 2] without moving a value.
  example.stored_transpose = Tensor({2, 3}, {1, 0, 2, 2, 1, 0});
  example.transpose_product =
      llm::matmul(example.token_rows, example.stored_transpose.view().matrix_transpose());

  example.batched_token_rows = Tensor({2, 2, 3}, {1, 2, 3, 4, 5, 6, 0, 1, 2, 2, 1, 0});
  example.batched_weights = Tensor({1, 3, 2}, {1, 2, 0, 1, 2, 0});
  example.batched_product = llm::matmul(example.batched_token_rows, example.batched_weights);

  example.zero_inner = llm::matmul(Tensor({2, 0}, {}), Tensor({0, 2}, {}));
  return example;
}
// endregion: worked-products

// region: one-cell-loop
std::vector<CellTerm> cell_terms(const TensorView& left, const TensorView& right, std::size_t row,
                                 std::size_t column) {
  std::vector<CellTerm> terms;
  double sum = 0.0;
  const std::size_t depth = left.shape()[1];
  for (std::size_t k = 0; k < depth; ++k) {
    const std::size_t left_at[] = {row, k};
    const std::size_t right_at[] = {k, column};
    const double a = left.at(left_at);
    const double b = right.at(right_at);
    const double product = a * b;
    sum += product;
    terms.push_back({k, a, b, product, sum, left.offset_of(left_at), right.offset_of(right_at)});
  }
  return terms;
}
// endregion: one-cell-loop

namespace {

// Runs `request`, which must throw TensorError.
template <class Request>
RejectedProduct rejected(std::string label, Request&& request) {
  try {
    request();
  } catch (const TensorError& error) {
    return {std::move(label), error};
  }
  throw std::runtime_error("matmul accepted the " + label + " request");
}

}  // namespace

// region: rejected-products
std::vector<RejectedProduct> rejected_products(const WorkedExample& example) {
  const Tensor wrong_inner = Tensor::zeros({4, 2});     // K = 4 against A's 3
  const Tensor wrong_batch = Tensor::zeros({3, 3, 2});  // 3 batches against 2
  const Tensor rank_one({3}, {1, 2, 3});                // a vector, not a matrix
  std::vector<RejectedProduct> rejected_list;
  rejected_list.push_back(rejected("inner", [&] { llm::matmul(example.token_rows, wrong_inner); }));
  rejected_list.push_back(
      rejected("batch", [&] { llm::matmul(example.batched_token_rows, wrong_batch); }));
  rejected_list.push_back(rejected("rank", [&] { llm::matmul(rank_one, example.weights); }));
  return rejected_list;
}
// endregion: rejected-products

std::string printed_reason(const TensorError& error) {
  const llm::Shape& left = error.shape();
  const llm::Shape& right = error.other_shape();
  switch (error.kind()) {
    case TensorErrorKind::MatMulInnerMismatch:
      return "matmul inner dimensions do not match: left size " + std::to_string(left.back()) +
             ", right size " + std::to_string(right[right.size() - 2]);
    case TensorErrorKind::IncompatibleBroadcast: {
      // axis() counts from the right of the whole result [batch..., M, N];
      // the first edition counts batch axes from the left of the batch shape.
      const std::size_t from_right = error.axis();
      const std::size_t batch_rank = std::max(left.size(), right.size()) - 2;
      const auto extent = [from_right](const llm::Shape& shape) {
        return from_right < shape.size() ? shape[shape.size() - 1 - from_right] : 1;
      };
      return "cannot broadcast batch axis " + std::to_string(batch_rank - 1 - (from_right - 2)) +
             ": left size " + std::to_string(extent(left)) + ", right size " +
             std::to_string(extent(right));
    }
    case TensorErrorKind::MatMulRank: {
      const bool left_is_short = left.size() < 2;
      return std::string(left_is_short ? "left" : "right") +
             " matmul input must have rank at least 2, got " +
             std::to_string(left_is_short ? left.size() : right.size());
    }
    default:
      return error.what();
  }
}

namespace {

// Deterministic values in [-1, 1) with full 53-bit mantissas (a 64-bit LCG).
Tensor pseudo_random(llm::Shape shape, std::uint64_t seed) {
  std::vector<double> values(shape[0] * shape[1]);
  std::uint64_t state = seed;
  for (double& value : values) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    value = static_cast<double>(state >> 11) * 0x1p-52 - 1.0;
  }
  return Tensor(std::move(shape), std::move(values));
}

// The textbook loop with the inner sum run from k = K-1 down to 0, or with
// every step fused into one rounding (std::fma): the two changes the fast
// kernel must not make.
enum class Variant { Downwards, Fused };

Tensor variant_product(const Tensor& a, const Tensor& b, Variant variant) {
  const std::size_t rows = a.shape()[0], depth = a.shape()[1], columns = b.shape()[1];
  Tensor c = Tensor::zeros({rows, columns});
  const auto x = a.values();
  const auto y = b.values();
  auto out = c.mutable_values();
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < columns; ++j) {
      double sum = 0.0;
      for (std::size_t step = 0; step < depth; ++step) {
        if (variant == Variant::Downwards) {
          const std::size_t k = depth - 1 - step;
          sum += x[i * depth + k] * y[k * columns + j];
        } else {
          sum = std::fma(x[i * depth + step], y[step * columns + j], sum);
        }
      }
      out[i * columns + j] = sum;
    }
  }
  return c;
}

BitComparison compare(std::string method, const Tensor& result, const Tensor& reference) {
  BitComparison comparison{std::move(method), 0, reference.size(), 0.0};
  for (std::size_t e = 0; e < reference.size(); ++e) {
    const double value = result.values()[e];
    const double expected = reference.values()[e];
    if (std::bit_cast<std::uint64_t>(value) == std::bit_cast<std::uint64_t>(expected)) {
      ++comparison.equal_bits;
    }
    comparison.largest_difference =
        std::max(comparison.largest_difference, std::abs(value - expected));
  }
  return comparison;
}

}  // namespace

std::vector<BitComparison> compare_with_textbook() {
  const auto [rows, depth, columns] = kComparisonShape;
  const Tensor a = pseudo_random({rows, depth}, 11);
  const Tensor b = pseudo_random({depth, columns}, 12);
  const Tensor textbook = llm::matmul_textbook(a, b);

  std::vector<BitComparison> comparisons;
  const auto kernels = llm::matmul_detail::available_kernels();
  comparisons.push_back(
      compare("matmul (" + std::string(llm::matmul_detail::chosen_kernel().name) + " microkernel)",
              llm::matmul(a, b), textbook));
  for (const auto& kernel : kernels) {
    Tensor c = Tensor::zeros({rows, columns});
    llm::matmul_detail::multiply_matrices_with(
        kernel, rows, depth, columns, {a.values().data(), depth, 1},
        {b.values().data(), columns, 1}, c.mutable_values().data(), columns);
    comparisons.push_back(compare(std::string(kernel.name) + " microkernel, blocked", c, textbook));
  }
  comparisons.push_back(
      compare("textbook loop, k downwards", variant_product(a, b, Variant::Downwards), textbook));
  comparisons.push_back(compare("textbook loop, fused multiply-add",
                                variant_product(a, b, Variant::Fused), textbook));
  return comparisons;
}

FusedContrast fused_contrast() {
  const double a = 1.0 + 0x1p-30;
  const double b = 1.0 - 0x1p-30;
  const double c = -1.0;
  const double product = a * b;  // 1 - 2^-60, rounded to 1
  return {a, b, c, product + c, std::fma(a, b, c)};
}

}  // namespace ch11
