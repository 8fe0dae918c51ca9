// Chapter 40 demo: Tiny Shakespeare as the run sees it (bytes, vocabulary,
// split), nanoGPT's CPU configuration, the decoder's parameters and the cost
// of one token, then a short deterministic slice of the real run: four
// updates of the full-size decoder, and the same four made as two, a
// checkpoint through its bytes, and two more, which end on the same bits.
// With --trace PATH it also writes these numbers for the page's tables.
#include <cmath>
#include <cstdio>
#include <exception>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "demo_trace.hpp"
#include "llm/format.hpp"
#include "llm/training/token_cost.hpp"
#include "llm/training/train_run.hpp"

namespace {

using demo::Json;
using llm::format_fixed;

// The symbols of the vocabulary, a newline as \n.
std::string visible(std::string_view symbols) {
  std::string text;
  for (char symbol : symbols) text += symbol == '\n' ? std::string("\\n") : std::string(1, symbol);
  return text;
}

// The first segment of a parameter name, with blocks.i folded into "blocks".
std::string part_of(const std::string& name) {
  const std::string head = name.substr(0, name.find('.'));
  if (head != "blocks") return head;
  const std::size_t second = name.find('.', name.find('.') + 1);
  const std::string rest = name.substr(second + 1);
  return "blocks." + rest.substr(0, rest.find('.'));
}

// region: demo-slice
// Four updates of the full-size run, each line as make train logs it.
std::vector<llm::UpdateReport> straight_slice(llm::TrainRun& run, std::size_t updates) {
  std::vector<llm::UpdateReport> reports;
  for (std::size_t i = 0; i < updates; ++i) reports.push_back(run.update());
  return reports;
}
// endregion: demo-slice

}  // namespace

int main(int argc, char** argv) try {
  const auto trace_path = demo::trace_path(argc, argv);
  Json trace;

  // The data.
  const std::string text = llm::read_verified_text(LLM_TINY_SHAKESPEARE, llm::kTinyShakespeare);
  llm::TrainRunConfig config;  // nanoGPT's CPU run
  config.eval_batches = 4;     // the demo evaluates on 4 fixed batches, the run on 20
  const auto data =
      std::make_shared<const llm::TrainingText>(llm::TrainingText::from_text(text, 0.9));
  const std::string_view symbols = data->vocabulary.symbols();
  std::cout << "data: " << LLM_TINY_SHAKESPEARE << ", " << text.size() << " bytes, sha256 "
            << llm::kTinyShakespeare.sha256.substr(0, 16) << "... verified\n";
  std::cout << "vocabulary: " << symbols.size() << " bytes: " << visible(symbols) << '\n';
  std::cout << "split: train " << data->train.size() << " tokens, validation "
            << data->validation.size() << " tokens (first 90% / last 10%)\n";
  std::cout << "first 40 training tokens: [";
  for (std::size_t i = 0; i < 40; ++i) std::cout << (i ? "," : "") << data->train[i];
  std::cout << "]\n";
  trace["data"] = {{"bytes", text.size()},
                   {"vocabulary", symbols.size()},
                   {"symbols", visible(symbols)},
                   {"train_tokens", data->train.size()},
                   {"validation_tokens", data->validation.size()}};

  // The configuration and the model.
  std::cout << "config: layers " << config.layers << ", heads " << config.heads << ", width "
            << config.model_width << ", feed-forward " << config.feed_forward_width << ", context "
            << config.context << ", batch " << config.batch_size << ", iterations "
            << config.iterations << ", peak rate " << llm::format_shortest(config.learning_rate)
            << ", warm-up " << config.warmup_iterations << ", clip "
            << llm::format_shortest(config.gradient_clip) << '\n';
  llm::TrainRun run = llm::TrainRun::start(config, data);
  std::map<std::string, std::size_t> parts;
  for (const llm::NamedValue& value : run.model().parameters().named_values()) {
    parts[part_of(value.name)] += value.value.size();
  }
  std::cout << "parameters: " << run.model().parameter_count() << " =";
  Json parts_json = Json::object();
  bool first = true;
  for (const auto& [part, count] : parts) {
    std::cout << (first ? " " : " + ") << part << ' ' << count;
    parts_json[part] = count;
    first = false;
  }
  std::cout << '\n';

  // The cost of a token.
  const llm::TokenCost cost = llm::token_cost(config, symbols.size());
  const std::size_t tokens_per_update = config.batch_size * config.context;
  std::cout << "multiply-adds per token (forward): projections " << cost.projections
            << ", feed-forward " << cost.feed_forward << ", attention " << cost.attention
            << ", head " << cost.head << "; total " << cost.multiply_adds() << '\n';
  std::cout << "FLOPs per token: forward " << cost.forward_flops() << ", training "
            << cost.training_flops() << " (6 x parameters = " << 6 * run.model().parameter_count()
            << ")\n";
  std::cout << "FLOPs per update (" << tokens_per_update
            << " tokens): " << cost.training_flops() * tokens_per_update << '\n';
  trace["config"] = Json::parse(config.to_json());
  trace["parameters"] = {{"total", run.model().parameter_count()}, {"parts", parts_json}};
  trace["cost"] = {{"projections", cost.projections},
                   {"feed_forward", cost.feed_forward},
                   {"attention", cost.attention},
                   {"head", cost.head},
                   {"multiply_adds", cost.multiply_adds()},
                   {"forward_flops", cost.forward_flops()},
                   {"training_flops", cost.training_flops()},
                   {"tokens_per_update", tokens_per_update},
                   {"flops_per_update", cost.training_flops() * tokens_per_update}};

  // The slice: evaluation, four updates, evaluation.
  const llm::EvaluationReport before = run.evaluate();
  std::cout << "step 0: train loss " << format_fixed(before.train_loss, 6) << ", val loss "
            << format_fixed(before.validation_loss, 6)
            << " (ln 65 = " << format_fixed(std::log(static_cast<double>(symbols.size())), 6)
            << ")\n";
  Json updates = Json::array();
  for (const llm::UpdateReport& update : straight_slice(run, 4)) {
    std::cout << "update " << update.iteration << ": loss " << format_fixed(update.loss, 6)
              << ", rate " << llm::format_scientific(update.learning_rate, 3) << ", gradient norm "
              << format_fixed(update.clip.norm_before, 6)
              << (config.gradient_clip > 0.0 && update.clip.norm_before > config.gradient_clip
                      ? " (clipped to " + llm::format_shortest(config.gradient_clip) + ")"
                      : std::string())
              << '\n';
    updates.push_back({{"iteration", update.iteration},
                       {"loss", update.loss},
                       {"learning_rate", update.learning_rate},
                       {"gradient_norm", update.clip.norm_before}});
  }
  const llm::EvaluationReport after = run.evaluate();
  std::cout << "step 4: train loss " << format_fixed(after.train_loss, 6) << ", val loss "
            << format_fixed(after.validation_loss, 6) << '\n';
  trace["evaluations"] = {
      {{"iteration", 0}, {"train", before.train_loss}, {"validation", before.validation_loss}},
      {{"iteration", 4}, {"train", after.train_loss}, {"validation", after.validation_loss}}};
  trace["updates"] = updates;

  // region: demo-resume
  // The same four updates with a stop after two: the checkpoint goes through
  // its bytes, as a new process would read the file.
  llm::TrainRun interrupted = llm::TrainRun::start(config, data);
  interrupted.update();
  interrupted.update();
  const llm::EncodedCheckpoint saved = interrupted.checkpoint().encode();
  llm::TrainRun resumed =
      llm::TrainRun::resume(config, data, llm::Checkpoint::decode(saved.bytes), "in memory");
  resumed.update();
  resumed.update();
  const llm::EncodedCheckpoint straight_end = run.checkpoint().encode();
  const llm::EncodedCheckpoint resumed_end = resumed.checkpoint().encode();
  // endregion: demo-resume
  std::cout << "checkpoint after 2 updates: " << saved.bytes.size() << " bytes, "
            << saved.checksum_text() << '\n';
  std::cout << "resumed after 4: " << resumed_end.checksum_text()
            << ", straight after 4: " << straight_end.checksum_text()
            << ", identical: " << (resumed_end.bytes == straight_end.bytes ? "yes" : "no") << '\n';
  trace["checkpoint"] = {{"bytes", saved.bytes.size()},
                         {"identical", resumed_end.bytes == straight_end.bytes}};

  demo::write_trace(trace_path, trace);
  return 0;
} catch (const std::exception& error) {
  std::cerr << "chapter 40 demo: " << error.what() << '\n';
  return 1;
}
