// Chapter 38's worked examples (see fixtures.hpp).
#include "fixtures.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <string_view>
#include <utility>

#include "llm/error.hpp"

namespace ch38_fixture {
std::string_view chapter_35_checkpoint_hex();  // generated from tests/training/fixtures/
}

namespace ch38 {
namespace {

using llm::CachedLogits;
using llm::DecoderKvCache;
using llm::DecoderModel;
using llm::TokenId;

std::vector<double> values_of(const llm::SharedTensor& tensor) {
  const llm::Tensor contiguous = tensor.materialize();
  return {contiguous.values().begin(), contiguous.values().end()};
}

std::vector<std::uint8_t> checkpoint_bytes() {
  std::string digits;
  for (char c : ch38_fixture::chapter_35_checkpoint_hex()) {
    if (!std::isspace(static_cast<unsigned char>(c))) digits += c;
  }
  std::vector<std::uint8_t> bytes;
  for (std::size_t i = 0; i + 1 < digits.size(); i += 2) {
    bytes.push_back(static_cast<std::uint8_t>(std::stoul(digits.substr(i, 2), nullptr, 16)));
  }
  return bytes;
}

// The checkpoint's decoder: its configuration, a tied head unless it stores
// `head.weight`, and its parameters loaded by name.
DecoderModel restored_model(const llm::Checkpoint& checkpoint) {
  const llm::CheckpointModelConfig& stored = checkpoint.model_config();
  const bool untied = std::any_of(checkpoint.parameters().begin(), checkpoint.parameters().end(),
                                  [](const llm::NamedValue& p) { return p.name == "head.weight"; });
  const llm::DecoderConfig config{.vocabulary_size = stored.vocabulary_size,
                                  .layers = stored.layers,
                                  .block = {.model_width = stored.model_width,
                                            .heads = stored.heads,
                                            .feed_forward_width = stored.feed_forward_width,
                                            .context = stored.context,
                                            .rope_base = stored.rope_base,
                                            .epsilon = stored.rms_epsilon},
                                  .head = untied ? llm::HeadTying::Untied : llm::HeadTying::Tied};
  llm::SplitMix64 unused(0);  // every value is overwritten by the checkpoint's
  DecoderModel model = DecoderModel::initialized(config, unused);
  checkpoint.restore_parameters(model.parameters());
  return model;
}

double max_abs_difference(const std::vector<double>& left, const std::vector<double>& right) {
  double largest = 0.0;
  for (std::size_t i = 0; i < left.size(); ++i) {
    largest = std::max(largest, std::abs(left[i] - right[i]));
  }
  return largest;
}

}  // namespace

llm::DecoderConfig fixture_config(double epsilon) {
  return {.vocabulary_size = 5,
          .layers = 2,
          .block = {.model_width = 4,
                    .heads = 2,
                    .feed_forward_width = 4,
                    .context = 4,
                    .rope_base = 10000.0,
                    .epsilon = epsilon},
          .head = llm::HeadTying::Tied};
}

DecoderModel fixture_model() {
  llm::SplitMix64 generator(kModelSeed);
  return DecoderModel::initialized(fixture_config(), generator);
}

// region: complete-prefix
CompletePrefix complete_prefix(const DecoderModel& model, const std::vector<TokenId>& prefix) {
  const llm::NoGradScope inference;
  const llm::DecoderPass pass = model.forward_with_intermediates(prefix, {1, prefix.size()});
  CompletePrefix out;
  const std::vector<double> all = values_of(pass.logits.value());
  out.logits.assign(all.end() - static_cast<std::ptrdiff_t>(model.config().vocabulary_size),
                    all.end());
  for (const llm::DecoderBlockPass& block : pass.blocks) {  // H x T x T weights per block
    out.attention_scores += block.attention.attention.weights.value().size();
  }
  return out;
}
// endregion: complete-prefix

PhaseEvidence phase_evidence(const DecoderModel& model, const DecoderKvCache& cache,
                             const CachedLogits& call, std::size_t cache_before,
                             const std::vector<TokenId>& prefix) {
  PhaseEvidence phase;
  phase.position = call.position;
  phase.cache_before = cache_before;
  phase.cache_after = call.cache_length;
  for (const llm::LayerKvCache& layer : cache.layers())
    phase.layer_lengths.push_back(layer.length());
  const llm::Shape shape = cache.layers().front().keys().shape();
  phase.cache_shape.assign(shape.begin(), shape.end());
  phase.cached_logits = call.logits;
  phase.cached_scores = call.attention_scores;
  const CompletePrefix full = complete_prefix(model, prefix);
  phase.full_logits = full.logits;
  phase.full_scores = full.attention_scores;
  phase.max_abs_difference = max_abs_difference(phase.cached_logits, phase.full_logits);
  phase.bit_identical = phase.cached_logits == phase.full_logits;
  return phase;
}

// region: loaded-generation
LoadedGeneration loaded_generation(std::optional<TokenId> eos) {
  const std::vector<std::uint8_t> bytes = checkpoint_bytes();
  const llm::Checkpoint checkpoint = llm::Checkpoint::decode(bytes);
  const DecoderModel model = restored_model(checkpoint);
  LoadedGeneration out;
  out.checkpoint_bytes = bytes.size();
  out.context = model.config().block.context;
  out.generator_state = checkpoint.generator_state();
  out.prompt = {0};
  const llm::GenerationConfig config{.policy = llm::SamplingPolicy::temperature_top_k(1.0, 3),
                                     .eos_token = eos,
                                     .max_new_tokens = 4};
  // Without the cache: the whole prefix through the decoder at every step.
  llm::SplitMix64 uncached_generator(out.generator_state);
  out.uncached = llm::generate(
      model.config().vocabulary_size, out.context, out.prompt, config, uncached_generator,
      [&](std::span<const TokenId> prefix) {
        const CompletePrefix full = complete_prefix(model, {prefix.begin(), prefix.end()});
        out.full_scores += full.attention_scores;
        return full.logits;
      });
  // With it: the same loop, the same generator state.
  llm::SplitMix64 cached_generator(out.generator_state);
  DecoderKvCache cache = DecoderKvCache::create(model);
  out.cached = llm::generate_cached(model, cache, out.prompt, config, cached_generator);
  out.final_cache = cache.length();
  out.work = cache.work();
  out.tokens_match = out.cached == out.uncached;
  out.generator_match = cached_generator.state() == uncached_generator.state();
  for (const TokenId token : out.cached.generated) {
    out.text += checkpoint.tokenizer().literal_pieces().at(token);
  }
  return out;
}
// endregion: loaded-generation

// region: cache-reset
ResetEvidence reset_and_replay(const DecoderModel& model, DecoderKvCache& cache,
                               const std::vector<double>& decode_logits) {
  ResetEvidence evidence;
  evidence.before = cache.length();
  {
    std::vector<llm::SharedTensor> handles;  // every layer's rows, to look at after the reset
    std::vector<std::vector<double>> stored;
    for (const llm::LayerKvCache& layer : cache.layers()) {
      for (const llm::SharedTensor& rows : {layer.keys(), layer.values()}) {
        handles.push_back(rows);
        stored.push_back(values_of(rows));
      }
    }
    cache.reset();
    evidence.after = cache.length();
    evidence.work_zeroed = cache.work() == llm::DecoderKvWork{};
    evidence.allocation_reused = true;
    evidence.storage_unchanged = true;
    for (std::size_t i = 0; i < handles.size(); ++i) {
      evidence.allocation_reused =
          evidence.allocation_reused && cache.layers()[i / 2].shares_storage_with(handles[i]);
      evidence.storage_unchanged = evidence.storage_unchanged && values_of(handles[i]) == stored[i];
    }
  }  // the handles go: the replay may write over the old rows
  cache.prefill(model, kPrompt);
  evidence.replay_identical = cache.decode(model, kDecodeToken).logits == decode_logits;
  return evidence;
}
// endregion: cache-reset

// region: cache-errors
std::vector<Refusal> refusals(const DecoderModel& model) {
  // Runs `request`: refused, and the cache's lengths, rows and work as before?
  const auto state_of = [](const DecoderKvCache& cache) {
    std::vector<std::vector<double>> rows;
    for (const llm::LayerKvCache& layer : cache.layers()) {
      rows.push_back(values_of(layer.keys()));
      rows.push_back(values_of(layer.values()));
    }
    return std::make_pair(cache.work(), rows);
  };
  const auto refuse = [&](std::string label, DecoderKvCache& cache,
                          const std::function<void()>& request) {
    const auto before = state_of(cache);
    Refusal refusal{std::move(label), false, ""};
    try {
      request();
    } catch (const llm::Error& error) {
      refusal.refused_unchanged = state_of(cache) == before;
      refusal.error = std::string(error.area()) + "/" + std::string(error.kind_name());
    }
    return refusal;
  };
  std::vector<Refusal> out;
  DecoderKvCache cache = DecoderKvCache::create(model);
  out.push_back(refuse("decode_before_prefill", cache, [&] { cache.decode(model, 0); }));
  cache.prefill(model, kPrompt);
  const std::vector<TokenId> one{0};
  out.push_back(refuse("prefill_nonempty", cache, [&] { cache.prefill(model, one); }));
  cache.decode(model, 2);
  cache.decode(model, 3);  // 4 of 4 positions
  out.push_back(refuse("overflow", cache, [&] { cache.decode(model, 4); }));

  // Equal values in other tensors: another model.
  DecoderKvCache fresh = DecoderKvCache::create(model);
  const DecoderModel rebuilt = fixture_model();
  out.push_back(refuse("rebuilt_model", fresh, [&] { fresh.prefill(rebuilt, kPrompt); }));
  // The same tensors under another configuration (epsilon 2e-6).
  std::vector<llm::DecoderBlock> blocks;
  for (const llm::DecoderBlock& block : model.blocks()) {
    blocks.emplace_back(llm::RmsNorm(block.attention_norm().gain(), 2e-6), block.attention(),
                        llm::RmsNorm(block.feed_forward_norm().gain(), 2e-6), block.feed_forward());
  }
  const DecoderModel changed(fixture_config(2e-6), model.embedding(), std::move(blocks),
                             llm::RmsNorm(model.final_norm().gain(), 2e-6));
  out.push_back(refuse("changed_config", fresh, [&] { fresh.prefill(changed, kPrompt); }));
  return out;
}
// endregion: cache-errors

}  // namespace ch38
