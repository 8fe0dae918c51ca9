// The worked examples of chapter 32.
#include "fixtures.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <utility>

#include "demo_refusal.hpp"
#include "llm/autograd/model_ops.hpp"
#include "llm/nn/parameter_gradcheck.hpp"

namespace ch32 {

namespace {

using llm::Shape;
using llm::Tensor;
using llm::TensorValue;

Tensor value_of(const TensorValue& node) {
  return node.value().materialize();
}

bool same_bits(std::span<const double> a, std::span<const double> b) {
  return std::ranges::equal(a, b, [](double x, double y) {
    return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y);
  });
}

// The zero-layer model of the probes: the probe table, no blocks, the probe gain.
llm::DecoderModel probe_model() {
  return llm::DecoderModel(
      config(0),
      llm::Embedding(TensorValue::parameter(
          Tensor(Shape{kVocabulary, kModelWidth}, {kProbeTable.begin(), kProbeTable.end()}))),
      {},
      llm::RmsNorm(TensorValue::parameter(
                       Tensor(Shape{kModelWidth}, {kProbeGain.begin(), kProbeGain.end()})),
                   kEpsilon));
}

}  // namespace

// region: chapter-model
llm::DecoderConfig config(std::size_t layers, llm::HeadTying head) {
  return {.vocabulary_size = kVocabulary,
          .layers = layers,
          .block = {.model_width = kModelWidth,
                    .heads = kHeads,
                    .feed_forward_width = kFeedForwardWidth,
                    .context = kContext,
                    .rope_base = kRopeBase,
                    .epsilon = kEpsilon},
          .head = head};
}

llm::DecoderModel model(std::size_t layers, llm::HeadTying head) {
  llm::SplitMix64 generator(kSeed);
  return llm::DecoderModel::initialized(config(layers, head), generator);
}
// endregion: chapter-model

// region: forward-evidence
ForwardEvidence forward_evidence(const llm::DecoderModel& model) {
  const llm::DecoderPass pass = model.forward_with_intermediates(kTokenIds, {kBatch, kTokens});
  ForwardEvidence evidence;
  evidence.stage_names.push_back("embedding");
  evidence.stages.push_back(value_of(pass.embedding));
  for (std::size_t layer = 0; layer < pass.blocks.size(); ++layer) {
    evidence.stage_names.push_back("block_" + std::to_string(layer));
    evidence.stages.push_back(value_of(pass.blocks[layer].output));
  }
  evidence.stage_names.push_back("final_norm");
  evidence.stages.push_back(value_of(pass.final_norm));
  evidence.logits = value_of(pass.logits);
  evidence.mean_loss = model.loss(kTokenIds, {kBatch, kTokens}, kTargetIds).item();
  // endregion: forward-evidence
  // Each position's loss and prediction, from the logits with plain
  // arithmetic: -log softmax(row)[target], with the row's maximum shifted out.
  for (std::size_t t = 0; t < kTokens; ++t) {
    const auto row = evidence.logits.values().subspan(t * kVocabulary, kVocabulary);
    const double top = *std::ranges::max_element(row);
    double sum = 0.0;
    for (double z : row) sum += std::exp(z - top);
    evidence.position_nll.push_back(std::log(sum) + top - row[kTargetIds[t]]);
    evidence.predictions.push_back(
        static_cast<std::size_t>(std::ranges::max_element(row) - row.begin()));
  }
  return evidence;
}

// region: tying-evidence
TyingEvidence tying_evidence(const llm::DecoderModel& model) {
  TyingEvidence evidence;
  evidence.name = model.parameters()[0].name;
  evidence.no_head_parameter = !model.head() && model.parameters().find("head.weight") == nullptr;
  // Rows 3 and 4 of the table are never looked up by [0, 1, 2]: only the
  // head can give them a gradient.
  model.loss(kTokenIds, {kBatch, kTokens}, kTargetIds).backward();
  const Tensor& gradient = *model.embedding().table().gradient();
  evidence.unread_rows_learn = true;
  for (std::size_t row = 3; row < kVocabulary; ++row) {
    bool nonzero = false;
    for (std::size_t i = 0; i < kModelWidth; ++i)
      nonzero = nonzero || gradient.values()[row * kModelWidth + i] != 0.0;
    evidence.unread_rows_learn = evidence.unread_rows_learn && nonzero;
  }
  model.embedding().table().zero_grad();

  // The probe: one table used as lookup and as head. detach() cuts one role
  // out of the graph, so each pass keeps the other role's share only.
  auto table_gradient = [](bool lookup, bool head) {
    const TensorValue table = TensorValue::parameter(
        Tensor(Shape{kVocabulary, kModelWidth}, {kProbeTable.begin(), kProbeTable.end()}));
    const TensorValue rows = llm::Embedding(table).forward(std::vector<llm::TokenId>{0, 1}, {1, 2});
    const TensorValue normalized =
        llm::RmsNorm::initialized(kModelWidth, kEpsilon).forward(lookup ? rows : rows.detach());
    const TensorValue head_table = head ? table : table.detach();
    normalized.matmul(head_table.transpose(0, 1))
        .indexed_mean_nll(2, std::vector<llm::TokenId>{1, 2})
        .backward();
    return *table.gradient();
  };
  evidence.full = table_gradient(true, true);
  evidence.lookup_role = table_gradient(true, false);
  evidence.head_role = table_gradient(false, true);
  for (std::size_t i = 0; i < evidence.full.size(); ++i) {
    evidence.decomposition_error =
        std::max(evidence.decomposition_error,
                 std::abs(evidence.full.values()[i] - evidence.lookup_role.values()[i] -
                          evidence.head_role.values()[i]));
  }
  return evidence;
}
// endregion: tying-evidence

ParameterEvidence parameter_evidence(const llm::DecoderModel& model) {
  ParameterEvidence evidence;
  for (const llm::NamedParameter& entry : model.parameters()) {
    evidence.names.push_back(entry.name);
    evidence.sizes.push_back(entry.parameter.value().size());
  }
  evidence.scalars = model.parameter_count();
  evidence.untied_scalars = ch32::model(kLayers, llm::HeadTying::Untied).parameter_count();
  evidence.bias_free = std::ranges::none_of(
      evidence.names, [](const std::string& name) { return name.find("bias") != name.npos; });
  // The documented order: the table, each block's nine in block order, the final gain.
  std::vector<std::string> expected = {"token_embedding.weight"};
  for (std::size_t layer = 0; layer < kLayers; ++layer) {
    for (const llm::NamedParameter& entry : model.blocks()[layer].parameters())
      expected.push_back("blocks." + std::to_string(layer) + "." + entry.name);
  }
  expected.push_back("final_norm.gain");
  evidence.stable_order = evidence.names == expected;
  return evidence;
}

bool depths_valid() {
  for (std::size_t layers = 0; layers <= 2; ++layers) {
    const llm::DecoderPass pass =
        model(layers).forward_with_intermediates(kTokenIds, {kBatch, kTokens});
    const Shape stream{kBatch, kTokens, kModelWidth};
    bool valid = pass.blocks.size() == layers && pass.embedding.shape() == stream &&
                 pass.final_norm.shape() == stream &&
                 pass.logits.shape() == Shape{kBatch, kTokens, kVocabulary};
    for (const llm::DecoderBlockPass& block : pass.blocks)
      valid = valid && block.output.shape() == stream;
    if (!valid) return false;
  }
  return true;
}

// region: refusals
std::vector<Refusal> refusals() {
  std::vector<Refusal> out;
  // Runs `call`, which must throw `Error` (demo::refused stops the demo otherwise).
  auto expect = [&]<class Error>(const std::string& request, const std::function<void()>& call) {
    const Error error = demo::refused<Error>(request, call);
    out.push_back({request, std::string(error.kind_name()), error.what()});
  };
  expect.operator()<llm::DecoderError>("a vocabulary of 0 tokens", [] {
    llm::DecoderConfig empty = config(0);
    empty.vocabulary_size = 0;
    llm::SplitMix64 generator(kSeed);
    llm::DecoderModel::initialized(empty, generator);
  });
  const llm::DecoderModel zero_layers = model(0);
  expect.operator()<llm::DecoderError>("5 tokens in a context of 4", [&] {
    zero_layers.forward(std::vector<llm::TokenId>(kContext + 1, 0), {1, kContext + 1});
  });
  expect.operator()<llm::ModelOpError>("token ID 5 in a vocabulary of 5", [&] {
    zero_layers.forward(std::vector<llm::TokenId>{0, kVocabulary}, {1, 2});
  });
  expect.operator()<llm::DecoderError>("target 5 in a vocabulary of 5", [&] {
    zero_layers.loss(std::vector<llm::TokenId>{0, 1}, {1, 2},
                     std::vector<llm::TokenId>{1, kVocabulary});
  });
  return out;
}
// endregion: refusals

// region: causality-evidence
CausalityEvidence causality_evidence(const llm::DecoderModel& model) {
  CausalityEvidence evidence;
  const Tensor original = value_of(model.forward(kTokenIds, {kBatch, kTokens}));
  evidence.changed_logits =
      value_of(model.forward(std::vector<llm::TokenId>{0, 1, 4}, {kBatch, kTokens}));
  const auto before = original.values(), after = evidence.changed_logits.values();
  for (std::size_t t = 0; t < 2; ++t)
    evidence.prefix_unchanged[t] = same_bits(before.subspan(t * kVocabulary, kVocabulary),
                                             after.subspan(t * kVocabulary, kVocabulary));
  evidence.suffix_changed = !same_bits(before.subspan(2 * kVocabulary, kVocabulary),
                                       after.subspan(2 * kVocabulary, kVocabulary));
  return evidence;
}
// endregion: causality-evidence

// region: gradient-evidence
GradientEvidence gradient_evidence(const llm::DecoderModel& model) {
  GradientEvidence evidence;
  // The zero-layer probe, every coordinate of its table and gain.
  const llm::DecoderModel probe = probe_model();
  const auto probe_loss = [&] {
    return probe.loss(std::vector<llm::TokenId>{0, 1}, {1, 2}, std::vector<llm::TokenId>{1, 2});
  };
  const llm::TensorGradientCheck table = llm::check_parameter_gradient(
      probe.parameters(), "token_embedding.weight", probe_loss, kStep, kTolerance, 20);
  const llm::TensorGradientCheck gain = llm::check_parameter_gradient(
      probe.parameters(), "final_norm.gain", probe_loss, kStep, kTolerance, 4);
  evidence.table_checks = table.checks.size();
  evidence.gain_checks = gain.checks.size();
  evidence.probe_passed = table.passed && gain.passed;

  // The two-layer model: one reverse pass reaches every tensor.
  model.loss(kTokenIds, {kBatch, kTokens}, kTargetIds).backward();
  for (const llm::NamedParameter& entry : model.parameters()) {
    const auto& gradient = entry.parameter.gradient();
    ++evidence.tensors;
    if (gradient &&
        std::ranges::all_of(gradient->values(), [](double v) { return std::isfinite(v); }))
      ++evidence.finite_gradients;
  }
  // endregion: gradient-evidence
  // And the whole two-layer model, six sampled coordinates of every tensor
  // (the library's test does the same with a tighter tolerance).
  const auto loss = [&] { return model.loss(kTokenIds, {kBatch, kTokens}, kTargetIds); };
  evidence.model_passed = true;
  for (const llm::NamedParameter& entry : model.parameters()) {
    const llm::TensorGradientCheck check =
        llm::check_parameter_gradient(model.parameters(), entry.name, loss, kStep, kTolerance, 6);
    evidence.model_checks += check.checks.size();
    evidence.model_passed = evidence.model_passed && check.passed;
  }
  return evidence;
}

}  // namespace ch32
