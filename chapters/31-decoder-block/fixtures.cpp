// The worked examples of chapter 31.
#include "fixtures.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <optional>
#include <utility>

#include "demo_refusal.hpp"
#include "llm/attention/attention_error.hpp"
#include "llm/autograd/gradcheck.hpp"
#include "llm/models/decoder_error.hpp"
#include "llm/nn/init.hpp"

namespace ch31 {

namespace {

using llm::Shape;
using llm::Tensor;
using llm::TensorValue;

const std::vector<double> kIdentityMatrix = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

Tensor block_input(const std::array<double, 12>& values) {
  return Tensor(Shape{kBatch, kTokens, kModelWidth}, {values.begin(), values.end()});
}

Tensor value_of(const TensorValue& node) {
  return node.value().materialize();
}

llm::Linear projection(const Tensor& weight) {
  return llm::Linear(TensorValue::parameter(weight), std::nullopt);
}

bool all_finite(const Tensor& tensor) {
  return std::ranges::all_of(tensor.values(), [](double v) { return std::isfinite(v); });
}

bool same_bits(std::span<const double> a, std::span<const double> b) {
  return a.size() == b.size() && std::ranges::equal(a, b, [](double x, double y) {
           return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y);
         });
}

double max_difference(const Tensor& a, const Tensor& b) {
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, std::abs(a.values()[i] - b.values()[i]));
  return worst;
}

// sum(output * kUpstream), written with plain arithmetic for the central
// differences, so the tape is not checked against itself.
double plain_loss(const Tensor& output) {
  double loss = 0.0;
  for (std::size_t i = 0; i < output.size(); ++i) loss += output.values()[i] * kUpstream[i];
  return loss;
}

// Unit-gain LayerNorm of every row of the last axis (the original
// Transformer's normalizer, without its learned gain and bias).
Tensor layer_norm_rows(const Tensor& input, double epsilon) {
  const std::size_t width = input.shape().back();
  std::vector<double> out(input.values().begin(), input.values().end());
  for (std::size_t row = 0; row < out.size(); row += width) {
    double mean = 0.0, variance = 0.0;
    for (std::size_t i = 0; i < width; ++i) mean += out[row + i];
    mean /= static_cast<double>(width);
    for (std::size_t i = 0; i < width; ++i)
      variance += (out[row + i] - mean) * (out[row + i] - mean);
    variance /= static_cast<double>(width);
    const double inverse_deviation = 1.0 / std::sqrt(variance + epsilon);
    for (std::size_t i = 0; i < width; ++i)
      out[row + i] = (out[row + i] - mean) * inverse_deviation;
  }
  return Tensor(input.shape(), std::move(out));
}

}  // namespace

BlockWeights identity_weights() {
  const Tensor gain(Shape{kModelWidth}, {1, 1, 1, 1});
  const Tensor square(Shape{kModelWidth, kModelWidth}, kIdentityMatrix);
  return {gain, square, square, square, square, gain, square, square, square};
}

BlockWeights asymmetric_weights() {
  llm::SplitMix64 generator(31);
  const llm::DecoderBlockConfig config{.model_width = kModelWidth,
                                       .heads = kHeads,
                                       .feed_forward_width = kFeedForwardWidth,
                                       .context = kContext,
                                       .rope_base = kRopeBase,
                                       .epsilon = kEpsilon};
  const llm::DecoderBlock block = llm::DecoderBlock::initialized(config, generator);
  BlockWeights weights;
  for (const llm::NamedParameter& entry : block.parameters())
    weights.push_back(value_of(entry.parameter));
  weights[0] = Tensor(Shape{kModelWidth}, {1.0, 0.5, 2.0, 1.5});
  weights[5] = Tensor(Shape{kModelWidth}, {0.75, 1.25, 1.0, 0.5});
  return weights;
}

// region: block-from-parts
llm::DecoderBlock block_from(const BlockWeights& w) {
  using llm::RmsNorm;
  const llm::QkvProjections qkv(projection(w[1]), projection(w[2]), projection(w[3]));
  llm::MultiHeadAttention attention(qkv, projection(w[4]), kHeads,
                                    llm::RotaryTable(kModelWidth / kHeads, kContext, kRopeBase));
  llm::SwiGlu feed_forward(projection(w[6]), projection(w[7]), projection(w[8]));
  return llm::DecoderBlock(RmsNorm(TensorValue::parameter(w[0]), kEpsilon), std::move(attention),
                           RmsNorm(TensorValue::parameter(w[5]), kEpsilon),
                           std::move(feed_forward));
}
// endregion: block-from-parts

// region: block-run
BlockRun run_block(const BlockWeights& weights, const std::array<double, 12>& input_values) {
  const llm::DecoderBlock block = block_from(weights);
  const TensorValue input = TensorValue::parameter(block_input(input_values));
  const llm::DecoderBlockPass pass = block.forward_with_intermediates(input);
  const TensorValue probe_weight = TensorValue::constant(
      Tensor(Shape{kModelWidth, 3}, {kProbeWeight.begin(), kProbeWeight.end()}));
  const TensorValue upstream = TensorValue::constant(
      Tensor(Shape{kBatch, kTokens, kModelWidth}, {kUpstream.begin(), kUpstream.end()}));
  // loss = sum(output * upstream): the reverse pass starts with a different
  // seed at every output coordinate.
  const TensorValue loss = pass.output.mul(upstream).sum_axis(2).sum_axis(1).sum_axis(0);
  const llm::TensorBackwardTrace trace = loss.backward_with_trace(llm::Retention::Retain);
  // endregion: block-run

  BlockRun run{value_of(input),
               value_of(pass.attention_norm),
               value_of(pass.attention.attention.weights),
               value_of(pass.attention.output),
               value_of(pass.after_attention),
               value_of(pass.feed_forward_norm),
               value_of(pass.feed_forward.output),
               value_of(pass.output),
               value_of(pass.output.matmul(probe_weight)),
               loss.item(),
               *input.gradient(),
               {},
               true};
  for (const llm::NamedParameter& entry : block.parameters())
    run.parameter_gradients.push_back(*entry.parameter.gradient());
  for (const llm::TensorTraceNode& node : trace.nodes) {
    run.tape_finite = run.tape_finite && all_finite(node.value) &&
                      (!node.pass_adjoint || all_finite(*node.pass_adjoint));
  }
  for (const llm::TensorTraceEdge& edge : trace.edges) {
    run.tape_finite = run.tape_finite && all_finite(edge.upstream) &&
                      (!edge.contribution || all_finite(*edge.contribution));
  }
  run.tape_finite = run.tape_finite && all_finite(run.input_gradient);
  for (const Tensor& gradient : run.parameter_gradients)
    run.tape_finite = run.tape_finite && all_finite(gradient);
  return run;
}

// region: order-evidence
OrderEvidence order_evidence(const BlockRun& run) {
  OrderEvidence evidence;
  // Pre-norm order: each residual sum is the stream that entered the branch
  // plus the branch's output, to the last bit.
  std::vector<double> first(run.input.size()), second(run.input.size());
  for (std::size_t i = 0; i < first.size(); ++i) {
    first[i] = run.input.values()[i] + run.attention_branch.values()[i];
    second[i] = run.after_attention.values()[i] + run.feed_forward_branch.values()[i];
  }
  evidence.first_residual_exact = same_bits(first, run.after_attention.values());
  evidence.second_residual_exact = same_bits(second, run.output.values());

  // The original order on the same parts: attention reads x itself, and the
  // normalizer comes after the merge, LayerNorm(x + MHA(x)).
  const llm::DecoderBlock block = block_from(identity_weights());
  const TensorValue x = TensorValue::constant(run.input);
  evidence.post_norm_first_stage =
      layer_norm_rows(value_of(x.add(block.attention().forward(x))), kLayerNormEpsilon);
  evidence.post_norm_differs =
      !same_bits(evidence.post_norm_first_stage.values(), run.after_attention.values());
  // endregion: order-evidence
  evidence.post_norm_rows_normalized = true;
  const auto& rows = evidence.post_norm_first_stage.values();
  for (std::size_t row = 0; row < rows.size(); row += kModelWidth) {
    double mean = 0.0, square = 0.0;
    for (std::size_t i = 0; i < kModelWidth; ++i) mean += rows[row + i] / kModelWidth;
    for (std::size_t i = 0; i < kModelWidth; ++i)
      square += (rows[row + i] - mean) * (rows[row + i] - mean) / kModelWidth;
    evidence.post_norm_rows_normalized = evidence.post_norm_rows_normalized &&
                                         std::abs(mean) < 1e-12 && std::abs(square - 1.0) < 1e-4;
  }

  // region: causality-evidence
  // Replace the last token: rows 0 and 1 of the output must keep their bits.
  std::array<double, 12> perturbed = kInput;
  std::ranges::copy(kPerturbedLastToken, perturbed.begin() + 2 * kModelWidth);
  evidence.perturbed_output =
      value_of(block.forward(TensorValue::constant(block_input(perturbed))));
  const auto before = run.output.values(), after = evidence.perturbed_output.values();
  for (std::size_t token = 0; token < 2; ++token) {
    evidence.prefix_unchanged[token] = same_bits(before.subspan(token * kModelWidth, kModelWidth),
                                                 after.subspan(token * kModelWidth, kModelWidth));
  }
  evidence.suffix_changed = !same_bits(before.subspan(2 * kModelWidth, kModelWidth),
                                       after.subspan(2 * kModelWidth, kModelWidth));
  // Every weight on a later key is exactly zero, in every head.
  evidence.future_probabilities_zero = true;
  for (std::size_t head = 0; head < kHeads; ++head)
    for (std::size_t query = 0; query < kTokens; ++query)
      for (std::size_t key = query + 1; key < kTokens; ++key)
        evidence.future_probabilities_zero =
            evidence.future_probabilities_zero &&
            run.attention_weights.values()[(head * kTokens + query) * kTokens + key] == 0.0;
  // endregion: causality-evidence
  return evidence;
}

ParameterEvidence parameter_evidence() {
  const llm::DecoderBlock block = block_from(identity_weights());
  llm::ParameterSet set;
  set.add_all("decoder.block.0", block.parameters());  // refuses a node listed twice
  ParameterEvidence evidence;
  for (const llm::NamedParameter& entry : set) {
    evidence.names.push_back(entry.name);
    evidence.shapes.push_back(entry.parameter.shape());
  }
  evidence.tensors = set.size();
  evidence.scalars = block.parameter_count();
  const llm::Linear* projections[] = {&block.attention().projections().query(),
                                      &block.attention().projections().key(),
                                      &block.attention().projections().value(),
                                      &block.attention().output(),
                                      &block.feed_forward().gate(),
                                      &block.feed_forward().up(),
                                      &block.feed_forward().down()};
  evidence.bias_free =
      std::ranges::none_of(projections, [](const llm::Linear* p) { return p->bias().has_value(); });
  evidence.stable_order =
      evidence.names ==
      std::vector<std::string>{
          "decoder.block.0.attention_norm.gain",     "decoder.block.0.attention.query.weight",
          "decoder.block.0.attention.key.weight",    "decoder.block.0.attention.value.weight",
          "decoder.block.0.attention.output.weight", "decoder.block.0.ffn_norm.gain",
          "decoder.block.0.ffn.gate.weight",         "decoder.block.0.ffn.up.weight",
          "decoder.block.0.ffn.down.weight"};
  evidence.distinct = true;
  for (std::size_t i = 0; i < set.size(); ++i)
    for (std::size_t j = i + 1; j < set.size(); ++j)
      evidence.distinct = evidence.distinct && !set[i].parameter.is_same_node(set[j].parameter);
  return evidence;
}

// region: gradient-evidence
GradientEvidence gradient_evidence(const BlockRun& run) {
  GradientEvidence evidence;
  evidence.passed = true;
  const BlockWeights weights = identity_weights();
  // One check of every coordinate of `values` against `analytic`, where
  // `loss_at(probe)` rebuilds the block around the probed tensor.
  auto check = [&](Tensor values, const Tensor& analytic,
                   const std::function<double(const Tensor&)>& loss_at) {
    const llm::TensorGradientCheck report = llm::sampled_tensor_gradient_check(
        values, analytic.view(), kStep, kTolerance, values.size(), loss_at);
    for (const llm::CoordinateGradientCheck& c : report.checks)
      evidence.worst_abs_difference =
          std::max(evidence.worst_abs_difference, c.comparison.absolute_error);
    evidence.passed = evidence.passed && report.passed;
    return report.checks.size();
  };
  const llm::DecoderBlock block = block_from(weights);
  evidence.input_checks = check(run.input, run.input_gradient, [&](const Tensor& probe) {
    return plain_loss(value_of(block.forward(TensorValue::constant(probe))));
  });
  for (std::size_t index = 0; index < weights.size(); ++index) {
    const std::size_t checks =
        check(weights[index], run.parameter_gradients[index], [&](const Tensor& probe) {
          BlockWeights probed = weights;
          probed[index] = probe;
          return plain_loss(value_of(block_from(probed).forward(TensorValue::constant(run.input))));
        });
    evidence.parameter_checks.push_back(checks);
    evidence.parameter_total += checks;
  }
  return evidence;
}
// endregion: gradient-evidence

// region: refusals
std::vector<Refusal> refusals() {
  std::vector<Refusal> out;
  // Runs `call`, which must throw `Error` (demo::refused stops the demo otherwise).
  auto expect = [&]<class Error>(const std::string& label, const std::function<void()>& call) {
    const Error error = demo::refused<Error>(label, call);
    out.push_back({label, std::string(error.kind_name()), error.what()});
  };
  using llm::AttentionError;
  using llm::DecoderError;
  const llm::DecoderBlockConfig good{.model_width = 4,
                                     .heads = 2,
                                     .feed_forward_width = 4,
                                     .context = 6,
                                     .rope_base = 100.0,
                                     .epsilon = 1e-5};
  for (const auto& [label, config] :
       {std::pair{"configuration epsilon NaN",
                  llm::DecoderBlockConfig{good.model_width, good.heads, good.feed_forward_width,
                                          good.context, good.rope_base, std::nan("")}},
        std::pair{"configuration zero heads", llm::DecoderBlockConfig{4, 0, 4, 6, 100.0, 1e-5}},
        std::pair{"configuration zero feed-forward width",
                  llm::DecoderBlockConfig{4, 2, 0, 6, 100.0, 1e-5}}}) {
    const llm::DecoderBlockConfig& requested = config;  // clang 14 cannot capture a binding
    expect.operator()<DecoderError>(label, [&] {
      llm::SplitMix64 generator(31);
      llm::DecoderBlock::initialized(requested, generator);
    });
  }
  const BlockWeights w = identity_weights();
  expect.operator()<DecoderError>("component width", [&] {
    // A down projection [4, 3]: the feed-forward branch would return width 3.
    const Tensor narrow(Shape{4, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0});
    const llm::DecoderBlock good_block = block_from(w);
    llm::DecoderBlock(good_block.attention_norm(), good_block.attention(),
                      good_block.feed_forward_norm(),
                      llm::SwiGlu(projection(w[6]), projection(w[7]), projection(narrow)));
  });
  const llm::DecoderBlock block = block_from(w);
  auto forward = [&](Shape shape, std::size_t offset = 0) {
    std::vector<double> values(llm::Tensor::zeros(shape).size(), 1.0);
    block.forward(TensorValue::constant(Tensor(shape, values)), offset);
  };
  expect.operator()<DecoderError>("input rank", [&] { forward({4}); });
  expect.operator()<DecoderError>("input width", [&] { forward({1, 1, 3}); });
  expect.operator()<AttentionError>("empty tokens", [&] { forward({1, 0, 4}); });
  expect.operator()<AttentionError>("position range", [&] {
    forward({kBatch, kTokens, kModelWidth}, kContext - 1);
  });
  // An input whose graph an earlier pass released: this tape records the
  // block on it, and the reverse pass through it refuses.
  expect.operator()<llm::TensorAutodiffError>("released input", [&] {
    const TensorValue leaf = TensorValue::parameter(block_input(kInput));
    const TensorValue released = leaf.add(TensorValue::constant(Tensor(Shape{}, {0.0})));
    released.sum_axis(2).sum_axis(1).sum_axis(0).backward();  // releases by default
    block.forward(released).sum_axis(2).sum_axis(1).sum_axis(0).backward();
  });
  return out;
}
// endregion: refusals

std::pair<Shape, Shape> edge_shapes() {
  const llm::DecoderBlock block = block_from(identity_weights());
  const TensorValue empty = TensorValue::constant(Tensor::zeros({0, kTokens, kModelWidth}));
  const TensorValue single = TensorValue::constant(Tensor(Shape{1, 1, kModelWidth}, {2, 0, 0, 0}));
  return {block.forward(empty).shape(), block.forward(single, 2).shape()};
}

// region: recurrent-contrast
std::vector<double> recurrent_states(const std::vector<double>& inputs) {
  std::vector<double> states;
  double state = 0.0;  // one number carried from step to step: no step can start early
  for (double input : inputs) {
    state = std::tanh(0.5 * input + 0.75 * state);
    states.push_back(state);
  }
  return states;
}
// endregion: recurrent-contrast

// region: wiring-probes
std::vector<WiringProbe> wiring_probes() {
  // Each bug rewires the same weights; `post-norm` moves both normalizers
  // after their merges instead.
  const std::vector<std::pair<std::string, std::function<BlockWeights(BlockWeights)>>> bugs = {
      {"norm gains swapped",
       [](BlockWeights w) {
         std::swap(w[0], w[5]);
         return w;
       }},
      {"gate and up swapped",
       [](BlockWeights w) {
         std::swap(w[6], w[7]);
         return w;
       }},
      {"query weight transposed", [](BlockWeights w) {
         std::vector<double> t(16);
         for (std::size_t i = 0; i < 4; ++i)
           for (std::size_t j = 0; j < 4; ++j) t[j * 4 + i] = w[1].values()[i * 4 + j];
         w[1] = Tensor(Shape{4, 4}, std::move(t));
         return w;
       }}};
  std::vector<WiringProbe> probes;
  for (const auto& [name, rewire] : bugs) {
    WiringProbe probe{name};
    for (bool asymmetric : {false, true}) {
      const BlockWeights weights = asymmetric ? asymmetric_weights() : identity_weights();
      const std::array<double, 12>& input = asymmetric ? kAsymmetricInput : kInput;
      const Tensor right = run_block(weights, input).output;
      const Tensor wrong = run_block(rewire(weights), input).output;
      const bool detects = !same_bits(right.values(), wrong.values());
      (asymmetric ? probe.asymmetric_fixture_detects : probe.identity_fixture_detects) = detects;
      (asymmetric ? probe.asymmetric_max_difference : probe.identity_max_difference) =
          max_difference(right, wrong);
    }
    probes.push_back(std::move(probe));
  }
  return probes;
}
// endregion: wiring-probes

}  // namespace ch31
