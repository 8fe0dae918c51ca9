// Chapter 37 demo: three tokens through one attention layer with a key/value
// cache, each step compared with full causal attention over its prefix; the
// projection rows saved; reset and replay; eight refused requests. With
// --trace PATH it also writes every head's cached rows and weights, the
// refusals' error kinds, and the same steps through a layer of random
// weights for the figures.
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

Json steps_json(const std::vector<ch37::StepEvidence>& steps) {
  Json out = Json::array();
  for (const ch37::StepEvidence& step : steps) {
    Json heads = Json::array();
    for (const ch37::HeadStep& head : step.heads) {
      heads.push_back({{"appended_key", head.appended_key},
                       {"appended_value", head.appended_value},
                       {"keys", head.keys},
                       {"values", head.values},
                       {"weights", head.weights}});
    }
    out.push_back({{"position", step.position},
                   {"cache_before", step.cache_before},
                   {"cache_after", step.cache_after},
                   {"cache_shape", step.cache_shape},
                   {"input", step.input},
                   {"cached_output", step.cached_output},
                   {"full_output", step.full_output},
                   {"max_abs_difference", step.max_abs_difference},
                   {"bit_identical", step.bit_identical},
                   {"cache_matches_full", step.cache_matches_full},
                   {"heads", heads}});
  }
  return out;
}

}  // namespace

// region: learner-output
int main(int argc, char** argv) try {
  const auto trace_path = demo::trace_path(argc, argv);
  const llm::MultiHeadAttention layer = ch37::fixture_layer();
  llm::LayerKvCache cache = llm::LayerKvCache::create(layer, 1, ch37::kCapacity);
  const std::vector<ch37::StepEvidence> steps = ch37::collect_steps(layer, cache);
  const ch37::WorkEvidence work = ch37::work_evidence(steps);
  const ch37::ResetEvidence reset = ch37::reset_and_replay(layer, cache, steps);
  const std::vector<ch37::Refusal> refusals = ch37::refusals(layer);
  const ch37::HistoryEvidence history = ch37::history_evidence(steps);

  std::cout << "chapter=37-incremental-attention\n";
  std::cout << "config=batch:1 tokens:" << ch37::kTokens << " model_width:" << ch37::kModelWidth
            << " heads:" << ch37::kHeads << " head_width:" << ch37::kHeadWidth
            << " capacity:" << ch37::kCapacity << " rope_base:" << format_fixed(ch37::kRopeBase, 6)
            << " tolerance:" << format_fixed(ch37::kTolerance, 12) << '\n';
  for (const ch37::StepEvidence& step : steps) {
    std::cout << "step=position:" << step.position << " cache:" << step.cache_before << "->"
              << step.cache_after << " shape:" << demo::list_text(step.cache_shape, ",")
              << " max_abs_diff:" << format_fixed(step.max_abs_difference, 12)
              << " output:" << demo::fixed_list(step.cached_output, 9) << '\n';
  }
  std::cout << "work=full_rows_per_projection:" << work.full_rows_per_projection
            << " incremental_rows_per_projection:" << work.incremental_rows_per_projection
            << " reused_rows_per_kv_projection:" << work.reused_rows_per_kv_projection
            << " avoided_rows_across_kv:" << work.avoided_rows_across_kv << '\n';
  std::cout << "reset=before:" << reset.before << " after:" << reset.after
            << " allocation_reused:" << bool_text(reset.allocation_reused)
            << " storage_unchanged:" << bool_text(reset.storage_unchanged)
            << " replay_identical:" << bool_text(reset.replay_identical) << '\n';
  bool unchanged = true;
  std::cout << "errors=";
  for (const ch37::Refusal& refusal : refusals) {
    std::cout << refusal.label << ':' << bool_text(refusal.refused_unchanged) << ' ';
    unchanged = unchanged && refusal.refused_unchanged;
  }
  std::cout << "unchanged:" << bool_text(unchanged) << '\n';
  std::cout << "history=newest_query_key_rows:"
            << demo::list_text(history.newest_query_key_rows, ",")
            << " complete_prefix_rows_per_projection:"
            << history.complete_prefix_rows_per_projection
            << " incremental_rows_per_projection:" << history.incremental_rows_per_projection
            << " reused_key_rows:" << history.reused_key_rows
            << " reused_value_rows:" << history.reused_value_rows << '\n';
  std::cout << "next=thread one independent cache through every decoder block\n";
  // endregion: learner-output

  if (trace_path) {
    const llm::MultiHeadAttention random = ch37::random_layer();
    llm::LayerKvCache random_cache = llm::LayerKvCache::create(random, 1, ch37::kCapacity);
    Json errors = Json::array();
    for (const ch37::Refusal& refusal : refusals) {
      errors.push_back({{"label", refusal.label},
                        {"refused_unchanged", refusal.refused_unchanged},
                        {"error", refusal.error}});
    }
    demo::write_trace(trace_path,
                      {{"config",
                        {{"tokens", ch37::kTokens},
                         {"model_width", ch37::kModelWidth},
                         {"heads", ch37::kHeads},
                         {"head_width", ch37::kHeadWidth},
                         {"capacity", ch37::kCapacity},
                         {"context", ch37::kContext},
                         {"rope_base", ch37::kRopeBase}}},
                       {"steps", steps_json(steps)},
                       {"work",
                        {{"full_rows_per_projection", work.full_rows_per_projection},
                         {"incremental_rows_per_projection", work.incremental_rows_per_projection},
                         {"reused_rows_per_kv_projection", work.reused_rows_per_kv_projection},
                         {"avoided_rows_across_kv", work.avoided_rows_across_kv}}},
                       {"reset",
                        {{"before", reset.before},
                         {"after", reset.after},
                         {"allocation_reused", reset.allocation_reused},
                         {"storage_unchanged", reset.storage_unchanged},
                         {"replay_identical", reset.replay_identical}}},
                       {"errors", errors},
                       {"random",
                        {{"seed", ch37::kRandomLayerSeed},
                         {"steps", steps_json(ch37::collect_steps(random, random_cache))}}}});
  }
  return 0;
} catch (const std::exception& error) {
  std::cerr << "chapter 37 demo: " << error.what() << '\n';
  return 1;
}
