// Chapter 39 demo: the end-to-end run on the book's corpus, one line per
// stage: data, tokenizer, the chosen model, its training with selection, the one test
// opening (decoder against the tuned bigram on the same window slots), the
// checkpoint round trip and a cached continuation from the loaded model.
// With --trace PATH it also writes every number the page and figures use,
// including every grid candidate's validation losses and the alpha = 1
// bigram on the same slots.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"

namespace {

using llm::format_fixed;

template <class T>
std::string list(std::span<const T> values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += ',';
    if constexpr (std::is_same_v<T, std::string>)
      text += values[i];
    else
      text += std::to_string(values[i]);
  }
  return text + "]";
}
template <class T>
std::string list(const std::vector<T>& values) {
  return list(std::span<const T>(values));
}

std::string hex(std::uint64_t value) {
  char text[19];
  std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(value));
  return text;
}

const char* flag(bool value) {
  return value ? "true" : "false";
}

/// The text in double quotes, with quotes and control bytes escaped.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char code[8];
      std::snprintf(code, sizeof code, "\\u{%x}", static_cast<unsigned>(c));
      out += code;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string multiplicities(const std::vector<std::size_t>& counts) {
  std::string text = "[";
  for (std::size_t i = 0; i < counts.size(); ++i)
    text += (i == 0 ? "" : ",") + std::to_string(i + 1) + "x" + std::to_string(counts[i]);
  return text + "]";
}

std::string checkpoint_summary(const ch39::Evidence& e) {
  std::string text;
  for (const ch39::TrainingCheckpoint& c : e.checkpoints)
    text += (text.empty() ? "" : ";") + std::to_string(c.step) + ":" +
            format_fixed(c.train_loss, 9) + "/" + format_fixed(c.validation_loss, 9) + "/" +
            (c.selected ? "selected" : "candidate");
  return text;
}

demo::Json checkpoints_json(const std::vector<ch39::TrainingCheckpoint>& checkpoints) {
  demo::Json json = demo::Json::array();
  for (const ch39::TrainingCheckpoint& c : checkpoints)
    json.push_back({{"step", c.step},
                    {"train", c.train_loss},
                    {"validation", c.validation_loss},
                    {"selected", c.selected}});
  return json;
}

demo::Json trace_json(const ch39::Evidence& e) {
  demo::Json grid = demo::Json::array();
  for (const ch39::CandidateResult& result : e.grid)
    grid.push_back({{"width", result.candidate.model_width},
                    {"feed_forward", result.candidate.feed_forward},
                    {"learning_rate", result.candidate.learning_rate},
                    {"parameters", result.parameters},
                    {"checkpoints", checkpoints_json(result.checkpoints)},
                    {"selected_step", result.selected_step},
                    {"selected_validation", result.selected_validation}});
  const auto score = [](const llm::ModelScore& s) {
    return demo::Json{{"mean_nll", s.mean_nll},
                      {"perplexity", s.perplexity},
                      {"total_nll", s.total_nll},
                      {"targets", s.target_count}};
  };
  return {{"documents", {e.train_ids.size(), e.validation_ids.size(), e.test_ids.size()}},
          {"update_batch", ch39::kUpdateBatch},
          {"context", ch39::kContext},
          {"updates", ch39::kUpdates},
          {"grid", grid},
          {"chosen", e.chosen},
          {"vocabulary", e.vocabulary},
          {"encoded_tokens", e.encoded_tokens},
          {"windows", e.windows},
          {"parameters", e.parameters},
          {"update_losses", e.update_losses},
          {"checkpoints", checkpoints_json(e.checkpoints)},
          {"selected_step", e.selected_step},
          {"tuned_alpha", e.tuned_alpha},
          {"tuned_validation", e.tuned_validation},
          {"gate_openings", {e.gate_openings_before, e.gate_openings_after}},
          {"decoder", score(e.report.model)},
          {"tuned_bigram", score(e.report.baseline)},
          {"add_one_bigram", score(e.add_one)},
          {"gap_tuned", e.report.gap()},
          {"gap_add_one", e.add_one.mean_nll - e.report.model.mean_nll},
          {"slots", e.report.target_count},
          {"transitions", e.report.document_transition_count},
          {"multiplicities", e.report.transition_multiplicity_counts},
          {"checkpoint",
           {{"bytes", e.checkpoint_bytes}, {"header", e.header_bytes}, {"records", e.records}}},
          {"generation",
           {{"prompt", ch39::kPrompt},
            {"temperature", ch39::kTemperature},
            {"top_k", ch39::kTopK},
            {"seed", ch39::kGenerationSeed},
            {"prompt_ids", e.prompt_ids},
            {"generated", e.cached.generated},
            {"text", e.text},
            {"cached_scores", e.cached_scores},
            {"complete_prefix_scores", e.complete_prefix_scores}}}};
}

}  // namespace

// region: end-to-end-output
int main(int argc, char** argv) try {
  const auto trace_path = demo::trace_path(argc, argv);
  // Under make book the checkpoint stays beside the trace, where
  // build/llm-generate reads it; a bare run keeps it in the temporary directory.
  const std::filesystem::path checkpoint =
      trace_path ? std::filesystem::path(*trace_path).parent_path() / "checkpoint.llmcp"
                 : std::filesystem::temp_directory_path() / "llm-chapter39-checkpoint.llmcp";
  const ch39::Evidence e = ch39::run(checkpoint);
  const llm::FinalEvaluationReport& r = e.report;
  const ch39::Candidate& chosen = ch39::kGrid[e.chosen];
  const bool isolated = e.gate_openings_before == 0 && e.gate_openings_after == 1 &&
                        r.recorded_graphs == 0 && r.parameters_unchanged && r.gradients_unchanged;
  std::vector<std::size_t> lengths;
  for (std::size_t t = 1; t <= ch39::kContext; ++t) lengths.push_back(t);
  std::vector<std::size_t> prefixes;
  for (const llm::GenerationStep& step : e.cached.steps) prefixes.push_back(step.prefix_length);

  std::cout << "chapter=39-end-to-end-llm\n";
  std::cout << "data=checksum:" << e.corpus_checksum << " split:" << e.split_strategy
            << " documents:" << e.train_ids.size() << '/' << e.validation_ids.size() << '/'
            << e.test_ids.size() << " train_ids:" << list(e.train_ids)
            << " validation_ids:" << list(e.validation_ids) << " test_ids:" << list(e.test_ids)
            << '\n';
  std::cout << "tokenizer=layout:" << e.layout_version << " requested:" << e.requested_merges
            << " learned:" << e.learned_merges
            << " training_only:" << flag(e.tokenizer_training_only)
            << " vocabulary:" << e.vocabulary << " encoded_tokens:" << list(e.encoded_tokens)
            << '\n';
  std::cout << "model=layers:" << ch39::kLayers << " heads:" << ch39::kHeads
            << " width:" << chosen.model_width << " feed_forward:" << chosen.feed_forward
            << " context:" << ch39::kContext << " parameters:" << e.parameters
            << " update_batch_size:" << ch39::kUpdateBatch
            << " evaluation_batch_size:" << ch39::kEvaluationBatch << " windows:" << list(e.windows)
            << " evaluation_batches:" << list(e.batches) << '\n';
  std::cout << "training=updates:" << ch39::kUpdates << " seed:" << ch39::kSeed
            << " checkpoints:" << checkpoint_summary(e) << " selected:" << e.selected_step
            << " validation:" << format_fixed(e.selected_validation, 9)
            << " optimizer:" << e.optimizer_step << " replay_bitwise:" << flag(e.replay_bitwise)
            << '\n';
  std::cout << "test=access:" << e.gate_openings_after << " documents:" << list(r.document_ids)
            << " stride:" << ch39::kStride << " windows:" << r.window_count
            << " batches:" << r.batch_count << " window_target_slots:" << r.target_count
            << " document_transition_occurrences:" << r.document_transition_count
            << " transition_multiplicity_counts:"
            << multiplicities(r.transition_multiplicity_counts)
            << " window_slot_fingerprint:" << r.window_slot_fingerprint
            << " no_grad:" << flag(r.recorded_graphs == 0)
            << " unchanged:" << flag(r.parameters_unchanged && r.gradients_unchanged) << '\n';
  std::cout << "slot_metric=unit:overlapping-window-target-slot decoder_window_slot_mean_nll_nats:"
            << format_fixed(r.model.mean_nll, 9)
            << " decoder_window_slot_perplexity:" << format_fixed(r.model.perplexity, 9)
            << " bigram_window_slot_mean_nll_nats:" << format_fixed(r.baseline.mean_nll, 9)
            << " bigram_window_slot_perplexity:" << format_fixed(r.baseline.perplexity, 9)
            << " window_slot_gap_nats:" << format_fixed(r.gap(), 9)
            << " comparison_slot_set:shared-ordered-window-slots decoder_lower_on_fixture:"
            << flag(r.gap() > 0.0) << '\n';
  std::cout << "transition_metric=unit:within-document-next-token-transition count:"
            << r.document_transition_count
            << " context_policy:longest-available-causal-prefix-up-to-" << ch39::kContext
            << " newest_position_only:true reported:false mean_nll:not-reported"
               " perplexity:not-reported\n";
  std::cout
      << "evidence=scope:fixed-fixture-regression within_run_selection_isolated:" << flag(isolated)
      << " independent_generalization_estimate:false architecture_superiority_evidence:false\n";
  std::cout << "checkpoint=bytes:" << e.checkpoint_bytes << " header:" << e.header_bytes
            << " records:" << e.records << " checksum:" << e.checksum
            << " selected:" << e.stored_step << " optimizer:" << e.stored_optimizer_step
            << " rng:" << hex(e.stored_generator) << " bytes_roundtrip:" << flag(e.bytes_roundtrip)
            << " model_bits_exact:" << flag(e.model_bits_exact)
            << " optimizer_bits_exact:" << flag(e.optimizer_exact)
            << " tokenizer_exact:" << flag(e.tokenizer_exact)
            << " logit_probe:" << ch39::kLogitProbe << " logit_probe_ids:" << list(e.probe_ids)
            << " prompt_logits_bitwise:" << flag(e.probe_logits_bitwise) << '\n';
  std::cout << "generation=prompt:" << ch39::kPrompt << " prompt_ids:" << list(e.prompt_ids)
            << " temperature:" << format_fixed(ch39::kTemperature, 1) << " top_k:" << ch39::kTopK
            << " seed:" << ch39::kGenerationSeed << " generated:" << list(e.cached.generated)
            << " text:" << quoted(e.text) << " prefixes:" << list(prefixes)
            << " stop:" << llm::generation_stop_name(e.cached.stop)
            << " prefill:" << e.prefill_tokens << " decode:" << e.decode_tokens
            << " final_cache:" << e.final_cache << " cached_scores:" << e.cached_scores
            << " calculated_complete_prefix_scores:" << e.complete_prefix_scores
            << " rng_initial:" << hex(e.stored_generator) << " rng_final:" << hex(e.generator_final)
            << " tokens_exact:" << flag(e.tokens_exact)
            << " decisions_bitwise:" << flag(e.decisions_exact)
            << " rng_exact:" << flag(e.generator_exact) << '\n';
  std::cout << "history=window_slot_unit:overlapping-window-target-slot window_target_slots:"
            << r.target_count << " document_transition_occurrences:" << r.document_transition_count
            << " bigram_context_tokens:1 decoder_context_capacity:" << ch39::kContext
            << " decoder_window_slot_context_lengths:" << list(lengths)
            << " bigram_window_slot_mean_nll_nats:" << format_fixed(r.baseline.mean_nll, 9)
            << " decoder_window_slot_mean_nll_nats:" << format_fixed(r.model.mean_nll, 9)
            << " window_slot_gap_nats:" << format_fixed(r.gap(), 9) << '\n';
  std::cout << "next=inspect, modify, test, and extend the complete decoder\n";
  demo::write_trace(trace_path, trace_json(e));
  return 0;
} catch (const std::exception& error) {
  std::cerr << "chapter 39 demo failed: " << error.what() << '\n';
  return 1;
}
// endregion: end-to-end-output
