// Chapter 38 demo: a two-block decoder with one key/value cache per block;
// a prefill of the prompt and one decode step, each against the full
// decoder; the work counters; cached and uncached generation from chapter
// 35's checkpoint, to the context limit and to a stop token; reset and
// replay; five refused requests. With --trace PATH it also writes every
// phase, the generation steps and the refusals' error kinds for the figures.
#include <exception>
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "demo_lists.hpp"
#include "demo_text.hpp"
#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"

namespace {

using demo::Json;
using llm::format_fixed;

const char* bool_text(bool value) {
  return value ? "true" : "false";
}

std::string hex64(std::uint64_t value) {
  static const char digits[] = "0123456789abcdef";
  std::string text = "0x";
  for (int shift = 60; shift >= 0; shift -= 4) text += digits[(value >> shift) & 0xf];
  return text;
}

void print_phase(const ch38::PhaseEvidence& phase) {
  std::cout << " cache:" << phase.cache_before << "->" << phase.cache_after
            << " layer_lengths:" << demo::list_text(phase.layer_lengths, ",")
            << " shape:" << demo::list_text(phase.cache_shape, ",")
            << " cached_scores:" << phase.cached_scores
            << " complete_prefix_scores:" << phase.full_scores
            << " max_abs_diff:" << format_fixed(phase.max_abs_difference, 12)
            << " logits:" << demo::fixed_list(phase.cached_logits, 9) << '\n';
}

std::vector<std::size_t> prefix_lengths(const llm::GenerationResult& result) {
  std::vector<std::size_t> lengths;
  for (const llm::GenerationStep& step : result.steps) lengths.push_back(step.prefix_length);
  return lengths;
}

Json phase_json(const ch38::PhaseEvidence& phase) {
  return {{"position", phase.position},          {"cache_before", phase.cache_before},
          {"cache_after", phase.cache_after},    {"layer_lengths", phase.layer_lengths},
          {"cache_shape", phase.cache_shape},    {"cached_logits", phase.cached_logits},
          {"full_logits", phase.full_logits},    {"cached_scores", phase.cached_scores},
          {"full_scores", phase.full_scores},    {"max_abs_difference", phase.max_abs_difference},
          {"bit_identical", phase.bit_identical}};
}

Json generation_json(const ch38::LoadedGeneration& loaded) {
  Json steps = Json::array();
  for (const llm::GenerationStep& step : loaded.cached.steps) {
    steps.push_back({{"prefix_length", step.prefix_length},
                     {"token", step.token_id},
                     {"unit_draw", step.unit_draw ? Json(*step.unit_draw) : Json()},
                     {"interval", {step.interval_start, step.interval_end}}});
  }
  return {{"generated", loaded.cached.generated},
          {"stop", llm::generation_stop_name(loaded.cached.stop)},
          {"steps", steps},
          {"final_cache", loaded.final_cache},
          {"cached_scores", loaded.work.attention_scores},
          {"full_scores", loaded.full_scores},
          {"model_calls", loaded.cached.model_calls},
          {"tokens_match", loaded.tokens_match},
          {"generator_match", loaded.generator_match}};
}

}  // namespace

// region: learner-output
int main(int argc, char** argv) try {
  const auto trace_path = demo::trace_path(argc, argv);
  const llm::DecoderModel model = ch38::fixture_model();
  const llm::DecoderConfig& config = model.config();
  llm::DecoderKvCache cache = llm::DecoderKvCache::create(model);

  const llm::CachedLogits prefill_call = cache.prefill(model, ch38::kPrompt);
  const ch38::PhaseEvidence prefill =
      ch38::phase_evidence(model, cache, prefill_call, 0, ch38::kPrompt);
  const llm::CachedLogits decode_call = cache.decode(model, ch38::kDecodeToken);
  const ch38::PhaseEvidence decode = ch38::phase_evidence(
      model, cache, decode_call, prefill.cache_after, {0, 1, ch38::kDecodeToken});
  const llm::DecoderKvWork work = cache.work();
  const bool distinct = !cache.layers()[0].shares_storage_with(cache.layers()[1].keys()) &&
                        !cache.layers()[0].shares_storage_with(cache.layers()[1].values());
  const ch38::LoadedGeneration loaded = ch38::loaded_generation(std::nullopt);
  const ch38::LoadedGeneration eos = ch38::loaded_generation(loaded.cached.generated.front());
  const ch38::ResetEvidence reset = ch38::reset_and_replay(model, cache, decode.cached_logits);
  const std::vector<ch38::Refusal> refusals = ch38::refusals(model);

  // Scores per call: H x L lanes, each one query row per token (cached) or
  // a whole T x T grid (full).
  const std::size_t lanes = config.layers * config.block.heads;
  const std::vector<std::size_t> cached_lengths{1, prefill.cache_after, decode.cache_after};
  const std::vector<std::size_t> full_lengths{prefill.cache_after, decode.cache_after};
  const std::size_t full_scores = prefill.full_scores + decode.full_scores;

  std::cout << "chapter=38-cached-generation\n";
  std::cout << "config=layers:" << config.layers << " heads:" << config.block.heads
            << " model_width:" << config.block.model_width << " context:" << config.block.context
            << " tolerance:" << format_fixed(ch38::kTolerance, 12) << '\n';
  std::cout << "prefill=prompt:" << demo::list_text(ch38::kPrompt, ",");
  print_phase(prefill);
  std::cout << "decode=token:" << ch38::kDecodeToken << " position:" << decode.position;
  print_phase(decode);
  std::cout << "work=prefill_tokens:" << work.prefill_tokens
            << " decode_tokens:" << work.decode_tokens << " layer_caches:" << cache.layers().size()
            << " cache_appends:" << work.cache_appends << " qkv_rows:" << work.qkv_rows
            << " cached_scores:" << work.attention_scores
            << " complete_prefix_scores:" << full_scores
            << " layer_storage_distinct:" << bool_text(distinct) << '\n';
  std::cout << "loaded=checkpoint_bytes:" << loaded.checkpoint_bytes
            << " context_capacity:" << loaded.context
            << " rng_state:" << hex64(loaded.generator_state)
            << " prompt:" << demo::list_text(loaded.prompt, ",")
            << " generated:" << demo::list_text(loaded.cached.generated, ",")
            << " text:" << loaded.text
            << " prefixes:" << demo::list_text(prefix_lengths(loaded.cached), ",")
            << " stop:" << llm::generation_stop_name(loaded.cached.stop)
            << " final_cache:" << loaded.final_cache
            << " prefill_tokens:" << loaded.work.prefill_tokens
            << " decode_tokens:" << loaded.work.decode_tokens
            << " cached_scores:" << loaded.work.attention_scores
            << " complete_prefix_scores:" << loaded.full_scores
            << " tokens_match:" << bool_text(loaded.tokens_match)
            << " rng_match:" << bool_text(loaded.generator_match) << '\n';
  std::cout << "eos=token:" << eos.cached.generated.front()
            << " generated:" << demo::list_text(eos.cached.generated, ",")
            << " stop:" << llm::generation_stop_name(eos.cached.stop)
            << " final_cache:" << eos.final_cache << " decode_tokens:" << eos.work.decode_tokens
            << " tokens_match:" << bool_text(eos.tokens_match)
            << " rng_match:" << bool_text(eos.generator_match) << '\n';
  std::cout << "reset=before:" << reset.before << " after:" << reset.after
            << " allocation_reused:" << bool_text(reset.allocation_reused)
            << " storage_unchanged:" << bool_text(reset.storage_unchanged)
            << " work_zeroed:" << bool_text(reset.work_zeroed)
            << " replay_identical:" << bool_text(reset.replay_identical) << '\n';
  bool unchanged = true;
  std::cout << "errors=";
  for (const ch38::Refusal& refusal : refusals) {
    std::cout << refusal.label << ':' << bool_text(refusal.refused_unchanged) << ' ';
    unchanged = unchanged && refusal.refused_unchanged;
  }
  std::cout << "unchanged:" << bool_text(unchanged) << '\n';
  std::cout << "history=lanes:" << lanes
            << " cached_lengths:" << demo::list_text(cached_lengths, ",")
            << " cached_scores:" << work.attention_scores
            << " complete_prefix_lengths:" << demo::list_text(full_lengths, ",")
            << " complete_prefix_scores:" << full_scores
            << " avoided_scores:" << full_scores - work.attention_scores << '\n';
  std::cout << "next=assemble the complete end-to-end LLM pipeline\n";
  // endregion: learner-output

  Json errors = Json::array();
  for (const ch38::Refusal& refusal : refusals) {
    errors.push_back({{"label", refusal.label},
                      {"refused_unchanged", refusal.refused_unchanged},
                      {"error", refusal.error}});
  }
  demo::write_trace(trace_path, {{"config",
                                  {{"vocabulary_size", config.vocabulary_size},
                                   {"layers", config.layers},
                                   {"heads", config.block.heads},
                                   {"model_width", config.block.model_width},
                                   {"context", config.block.context},
                                   {"seed", ch38::kModelSeed}}},
                                 {"prompt", ch38::kPrompt},
                                 {"decode_token", ch38::kDecodeToken},
                                 {"prefill", phase_json(prefill)},
                                 {"decode", phase_json(decode)},
                                 {"work",
                                  {{"prefill_tokens", work.prefill_tokens},
                                   {"decode_tokens", work.decode_tokens},
                                   {"cache_appends", work.cache_appends},
                                   {"qkv_rows", work.qkv_rows},
                                   {"cached_scores", work.attention_scores},
                                   {"full_scores", full_scores}}},
                                 {"loaded", generation_json(loaded)},
                                 {"loaded_context", loaded.context},
                                 {"loaded_text", loaded.text},
                                 {"eos", generation_json(eos)},
                                 {"errors", errors}});
  return 0;
} catch (const std::exception& error) {
  std::cerr << "chapter 38 demo: " << error.what() << '\n';
  return 1;
}
