// The worked examples of chapter 30.
#include "fixtures.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <utility>

#include "demo_tape.hpp"
#include "llm/attention/heads.hpp"
#include "llm/attention/scaled_dot_product.hpp"
#include "llm/nn/init.hpp"

namespace ch30 {

namespace {

using llm::Shape;
using llm::Tensor;
using llm::TensorValue;

const Shape kInputShape{kBatch, kTokens, kModelWidth};

llm::Linear square(const Matrix& values) {
  return llm::Linear(TensorValue::parameter(
                         Tensor(Shape{kModelWidth, kModelWidth}, {values.begin(), values.end()})),
                     std::nullopt);
}

Tensor value_of(const TensorValue& node) {
  return node.value().materialize();
}

std::vector<std::uint64_t> bits(const Tensor& tensor) {
  std::vector<std::uint64_t> all;
  for (double value : tensor.values()) all.push_back(std::bit_cast<std::uint64_t>(value));
  return all;
}

bool close(std::span<const double> a, std::span<const double> b, double tolerance) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::abs(a[i] - b[i]) > tolerance) return false;
  }
  return true;
}

// sum(output * kUpstream): the loss every pass of the chapter reverses.
TensorValue weighted_loss(const TensorValue& output) {
  const Tensor upstream(kInputShape, {kUpstream.begin(), kUpstream.end()});
  return output.mul(TensorValue::constant(upstream)).sum_axis(2).sum_axis(1).sum_axis(0);
}

Tensor input_with_last_token(const std::array<double, kModelWidth>& last) {
  Tensor input = worked_input();
  for (std::size_t i = 0; i < kModelWidth; ++i) {
    input.mutable_values()[(kTokens - 1) * kModelWidth + i] = last[i];
  }
  return input;
}

}  // namespace

Tensor worked_input() {
  return Tensor(kInputShape, {1.0, 0.0, 1.0, 0.0,                         // position 0
                              std::cos(1.0), -std::sin(1.0), 0.0, 1.0,    // position 1
                              std::cos(2.0), -std::sin(2.0), 1.0, 1.0});  // position 2
}

llm::MultiHeadAttention layer_from(const Matrix& query, const Matrix& key, const Matrix& value,
                                   const Matrix& output) {
  return llm::MultiHeadAttention(llm::QkvProjections(square(query), square(key), square(value)),
                                 square(output), kHeads,
                                 llm::RotaryTable(kModelWidth / kHeads, kCapacity, kRopeBase));
}

// region: multi-head-fixture
AttentionEvidence attention_evidence() {
  const llm::MultiHeadAttention layer = layer_from(kIdentity, kIdentity, kIdentity, kBlockSwap);
  const TensorValue input = TensorValue::parameter(worked_input());
  const llm::MultiHeadAttentionPass pass = layer.forward_with_intermediates(input, 0);
  const TensorValue loss = weighted_loss(pass.output);

  AttentionEvidence e;
  e.input = value_of(input);
  e.query_heads = value_of(pass.query_heads);  // [1, 2, 3, 2]
  e.key_heads = value_of(pass.key_heads);
  e.value_heads = value_of(pass.value_heads);
  e.rotated_query_heads = value_of(pass.rotated_query_heads);
  e.rotated_key_heads = value_of(pass.rotated_key_heads);
  e.weights = value_of(pass.attention.weights);      // [1, 2, 3, 3]
  e.head_outputs = value_of(pass.attention.output);  // [1, 2, 3, 2]
  e.merged = value_of(pass.merged);                  // [1, 3, 4]
  e.output_weight = value_of(layer.output().weight());
  e.output = value_of(pass.output);
  e.upstream = Tensor(kInputShape, {kUpstream.begin(), kUpstream.end()});
  e.loss = loss.item();
  e.tape_finite = demo::trace_is_finite(loss.backward_with_trace());
  e.input_gradient = *input.gradient();
  for (const llm::NamedParameter& entry : layer.parameters()) {
    e.weight_gradients.push_back(*entry.parameter.gradient());
  }
  // endregion: multi-head-fixture

  // Head 0's rows are uniform over the visible keys; head 1's are not.
  const std::span<const double> w = e.weights.values();
  const std::array<double, 9> uniform = {1, 0, 0, 0.5, 0.5, 0, 1.0 / 3, 1.0 / 3, 1.0 / 3};
  e.head_0_uniform = close(w.subspan(0, 9), uniform, kInvariantTolerance);
  e.head_1_distinct = !close(w.subspan(0, 9), w.subspan(9, 9), kInvariantTolerance);
  e.future_probabilities_zero = true;
  for (std::size_t head = 0; head < kHeads; ++head) {
    for (std::size_t query = 0; query < kTokens; ++query) {
      for (std::size_t key = query + 1; key < kTokens; ++key) {
        e.future_probabilities_zero =
            e.future_probabilities_zero && w[(head * kTokens + query) * kTokens + key] == 0.0;
      }
    }
  }
  // region: multi-head-invariants
  // A later token cannot reach an earlier output: change the last token only.
  e.prefix_perturbed_output =
      value_of(layer.forward(TensorValue::constant(input_with_last_token(kChangedLastToken)), 0));
  const auto row = [](const Tensor& t, std::size_t token) {
    const std::vector<std::uint64_t> all = bits(t);
    return std::vector<std::uint64_t>(all.begin() + token * kModelWidth,
                                      all.begin() + (token + 1) * kModelWidth);
  };
  e.position_0_unchanged = row(e.output, 0) == row(e.prefix_perturbed_output, 0);
  e.position_1_unchanged = row(e.output, 1) == row(e.prefix_perturbed_output, 1);
  e.position_2_changed = row(e.output, 2) != row(e.prefix_perturbed_output, 2);
  // Split then merge is a layout round trip: the same bits.
  e.split_merge_bitwise =
      bits(value_of(llm::merge_heads(llm::split_heads(input, kHeads)))) == bits(e.input);
  // A head-0 feature reaches head 0's outputs only, until W_O mixes the heads.
  Tensor nudged = worked_input();
  nudged.mutable_values()[0] += 0.25;
  const Tensor nudged_heads =
      value_of(layer.forward_with_intermediates(TensorValue::constant(nudged), 0).attention.output);
  const std::size_t half = e.head_outputs.size() / kHeads;
  const std::vector<std::uint64_t> before = bits(e.head_outputs), after = bits(nudged_heads);
  e.head_isolation_before_output =
      !std::equal(before.begin(), before.begin() + half, after.begin()) &&
      std::equal(before.begin() + half, before.end(), after.begin() + half);
  // The same tokens kShift positions later: the same weights (RoPE sees differences).
  const Tensor shifted_weights =
      value_of(layer.forward_with_intermediates(TensorValue::constant(worked_input()), kShift)
                   .attention.weights);
  e.common_offset_weights_preserved =
      close(e.weights.values(), shifted_weights.values(), kInvariantTolerance);
  // endregion: multi-head-invariants
  return e;
}

ParameterEvidence parameter_evidence() {
  const llm::MultiHeadAttention layer = layer_from(kIdentity, kIdentity, kIdentity, kBlockSwap);
  llm::ParameterSet set;
  set.add_all("attention", layer.parameters());
  ParameterEvidence evidence;
  for (const llm::NamedParameter& entry : set) {
    evidence.names.push_back(entry.name);
    evidence.shapes.push_back(entry.parameter.shape());
  }
  evidence.count = layer.parameter_count();
  evidence.bias_free = !layer.projections().query().bias() && !layer.projections().key().bias() &&
                       !layer.projections().value().bias() && !layer.output().bias();
  evidence.node_distinct = true;
  for (std::size_t i = 0; i < set.size(); ++i) {
    for (std::size_t j = i + 1; j < set.size(); ++j) {
      evidence.node_distinct =
          evidence.node_distinct && !set[i].parameter.is_same_node(set[j].parameter);
    }
  }
  return evidence;
}

ShapeEvidence shape_evidence() {
  const llm::MultiHeadAttention layer = layer_from(kIdentity, kIdentity, kIdentity, kBlockSwap);
  const llm::MultiHeadAttentionPass empty = layer.forward_with_intermediates(
      TensorValue::constant(Tensor::zeros({0, kTokens, kModelWidth})), 0);
  const llm::MultiHeadAttentionPass single = layer.forward_with_intermediates(
      TensorValue::constant(Tensor(Shape{1, 1, kModelWidth}, {1.0, 2.0, 3.0, 4.0})), 2);
  return {empty.attention.weights.shape(), empty.output.shape(), single.attention.weights.shape()};
}

// region: multi-head-refusals
RefusalEvidence refusal_evidence() {
  using Error = llm::AttentionError;
  const auto text = [](const llm::Error& error) { return std::string(error.what()); };
  const llm::MultiHeadAttention layer = layer_from(kIdentity, kIdentity, kIdentity, kBlockSwap);
  const double nan = std::numeric_limits<double>::quiet_NaN();  // never read: refused before
  const std::size_t last_offset = std::numeric_limits<std::size_t>::max();
  llm::SplitMix64 generator(5);
  const auto build = [&](std::size_t width, std::size_t heads) {
    return [&generator, width, heads, nan] {
      llm::MultiHeadAttention::initialized(width, heads, 0, nan, generator);
    };
  };
  const auto run = [&](const Shape& shape, std::size_t offset) {
    return [&layer, shape, offset] {
      layer.forward(TensorValue::constant(Tensor::zeros(shape)), offset);
    };
  };
  // A graph a backward() has released: the layer records on it, and the
  // pass that reaches it refuses.
  const TensorValue released =
      TensorValue::parameter(worked_input()).add(TensorValue::constant(Tensor(Shape{}, {0.0})));
  released.sum_axis(2).sum_axis(1).sum_axis(0).backward();
  auto released_refusal = demo::rejection<llm::TensorAutodiffError>(
      "released_input", "backward through the layer applied to a released input",
      [&] { weighted_loss(layer.forward(released, 0)).backward(); }, text);
  std::vector<demo::Rejection<Error>> refusals{
      demo::rejection<Error>("zero_model_width", "initialized(D = 0, H = 0)", build(0, 0), text),
      demo::rejection<Error>("zero_heads", "initialized(D = 4, H = 0)", build(4, 0), text),
      demo::rejection<Error>("nondivisible", "initialized(D = 6, H = 4)", build(6, 4), text),
      demo::rejection<Error>("odd_head_width", "initialized(D = 4, H = 4)", build(4, 4), text),
      demo::rejection<Error>("input_rank", "forward a [4] vector", run({4}, last_offset), text),
      demo::rejection<Error>("input_width", "forward a [1, 2, 2] input",
                             run({1, 2, 2}, last_offset), text),
      demo::rejection<Error>("empty_tokens", "forward a [1, 0, 4] input", run({1, 0, 4}, 0), text),
      demo::rejection<Error>("offset_overflow", "forward 1 token from the largest size_t offset",
                             run({1, 1, 4}, last_offset), text),
      demo::rejection<Error>("position_range", "forward 2 tokens from position 5 of 6",
                             run({1, 2, 4}, 5), text)};
  return {std::move(refusals), std::move(released_refusal)};
}
// endregion: multi-head-refusals

// region: multi-head-gradcheck
GradientCheckEvidence gradient_check_evidence(const AttentionEvidence& printed) {
  // The loss as a plain function of one input or weight, the others fixed:
  // a fresh layer, a constant input, no tape kept.
  const auto loss_of = [](const Tensor& input, const std::array<Matrix, 4>& weights) {
    const llm::MultiHeadAttention layer =
        layer_from(weights[0], weights[1], weights[2], weights[3]);
    return weighted_loss(layer.forward(TensorValue::constant(input), 0)).item();
  };
  const std::array<Matrix, 4> base = {kIdentity, kIdentity, kIdentity, kBlockSwap};
  GradientCheckEvidence evidence;
  Tensor input_probe = printed.input;
  evidence.checks.push_back(llm::sampled_tensor_gradient_check(
      input_probe, printed.input_gradient.view(), kGradcheckStep, kGradcheckTolerance,
      input_probe.size(), [&](const Tensor& probe) { return loss_of(probe, base); }));
  for (std::size_t which = 0; which < 4; ++which) {
    Tensor weight_probe(Shape{kModelWidth, kModelWidth}, {base[which].begin(), base[which].end()});
    evidence.checks.push_back(llm::sampled_tensor_gradient_check(
        weight_probe, printed.weight_gradients[which].view(), kGradcheckStep, kGradcheckTolerance,
        weight_probe.size(), [&](const Tensor& probe) {
          std::array<Matrix, 4> weights = base;
          std::copy(probe.values().begin(), probe.values().end(), weights[which].begin());
          return loss_of(printed.input, weights);
        }));
  }
  evidence.passed = true;
  for (const llm::TensorGradientCheck& check : evidence.checks) {
    evidence.total += check.checks.size();
    evidence.passed = evidence.passed && check.passed;
  }
  return evidence;
}
// endregion: multi-head-gradcheck

// region: multi-head-history
HistoryEvidence history_evidence(const AttentionEvidence& printed) {
  HistoryEvidence evidence;
  // One alignment distribution [0.25, 0.75] over two source annotations [1, 0], [0, 1].
  evidence.earlier_weighted_context = {0.25 * 1.0 + 0.75 * 0.0, 0.25 * 0.0 + 0.75 * 1.0};
  // One causal head over all four features: one [3, 3] table instead of two.
  const TensorValue x = TensorValue::constant(printed.input);
  const llm::AttentionPass single =
      llm::scaled_dot_product_attention(x, x, x, llm::Masking::Causal);
  evidence.single_head_weights = value_of(single.weights);
  evidence.single_head_shape = single.weights.shape();
  evidence.multi_head_shape = printed.weights.shape();
  evidence.single_head_tables = evidence.single_head_weights.size() / (kTokens * kTokens);
  evidence.multi_head_tables = printed.weights.size() / (kTokens * kTokens);
  evidence.rows_normalized = true;
  for (const Tensor* table : {&std::as_const(evidence.single_head_weights), &printed.weights}) {
    for (std::size_t row = 0; row < table->size() / kTokens; ++row) {
      double sum = 0.0;
      for (std::size_t key = 0; key < kTokens; ++key) sum += table->values()[row * kTokens + key];
      evidence.rows_normalized =
          evidence.rows_normalized && std::abs(sum - 1.0) <= kInvariantTolerance;
    }
  }
  return evidence;
}
// endregion: multi-head-history

// region: multi-head-swap
SwapEvidence swap_evidence() {
  llm::SplitMix64 generator(kAsymmetricSeed);
  const llm::MultiHeadAttention seeded =
      llm::MultiHeadAttention::initialized(kModelWidth, kHeads, kCapacity, kRopeBase, generator);
  // The same parts with the query and key projections exchanged.
  const auto swapped = [](const llm::MultiHeadAttention& layer) {
    const llm::QkvProjections& p = layer.projections();
    return llm::MultiHeadAttention(llm::QkvProjections(p.key(), p.query(), p.value()),
                                   layer.output(), layer.heads(), layer.rotary());
  };
  const TensorValue input = TensorValue::constant(worked_input());
  const llm::MultiHeadAttentionPass pass = seeded.forward_with_intermediates(input, 0);
  SwapEvidence evidence{value_of(seeded.projections().query().weight()),
                        value_of(seeded.projections().key().weight()),
                        value_of(pass.attention.weights),
                        value_of(pass.output),
                        value_of(swapped(seeded).forward(input, 0)),
                        false,
                        0.0};
  for (std::size_t i = 0; i < evidence.output.size(); ++i) {
    evidence.swap_max_difference =
        std::max(evidence.swap_max_difference,
                 std::abs(evidence.output.values()[i] - evidence.swapped_output.values()[i]));
  }
  const llm::MultiHeadAttention printed = layer_from(kIdentity, kIdentity, kIdentity, kBlockSwap);
  evidence.printed_swap_identical = bits(value_of(printed.forward(input, 0))) ==
                                    bits(value_of(swapped(printed).forward(input, 0)));
  return evidence;
}
// endregion: multi-head-swap

bool attention_replays_bitwise() {
  const auto all_bits = [](const AttentionEvidence& e) {
    std::vector<std::uint64_t> all{std::bit_cast<std::uint64_t>(e.loss)};
    for (const Tensor* t : {&e.rotated_query_heads, &e.weights, &e.head_outputs, &e.output,
                            &e.input_gradient, &e.prefix_perturbed_output}) {
      const std::vector<std::uint64_t> b = bits(*t);
      all.insert(all.end(), b.begin(), b.end());
    }
    for (const Tensor& g : e.weight_gradients) {
      const std::vector<std::uint64_t> b = bits(g);
      all.insert(all.end(), b.begin(), b.end());
    }
    return all;
  };
  return all_bits(attention_evidence()) == all_bits(attention_evidence());
}

}  // namespace ch30
