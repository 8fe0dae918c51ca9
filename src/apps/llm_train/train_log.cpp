// The JSON log of one `make train` run: what it holds and how a resumed run
// keeps it consistent with its checkpoint.
#include "train_log.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "llm/tensor/parallel.hpp"
#include "llm/training/token_cost.hpp"

namespace llm {

namespace {

using Json = nlohmann::json;

Json clocks_json(const RunClocks& clocks) {
  return {{"wall_seconds", clocks.wall},
          {"thread_cpu_seconds", clocks.thread_cpu},
          {"process_cpu_seconds", clocks.process_cpu}};
}

Json load_json() {
  const auto loads = load_average();
  if (!loads) return nullptr;
  return Json::array({(*loads)[0], (*loads)[1], (*loads)[2]});
}

// Keeps the entries of `array` whose "iteration" is below `iteration`.
void keep_before(Json& array, std::size_t iteration) {
  Json kept = Json::array();
  for (const Json& entry : array) {
    if (entry.at("iteration").get<std::size_t>() < iteration) kept.push_back(entry);
  }
  array = std::move(kept);
}

}  // namespace

TrainLog TrainLog::start(const TrainRunConfig& config, const TrainRun& run,
                         const std::string& data_path, const TextPreparation& preparation) {
  const TrainingText& text = run.text();
  TrainLog log;
  log.json_ = {{"program", "llm-train"},
               {"precision", "float64"},
               {"cpu_model_name", cpuinfo_field("model name")},
               {"cpu_family", cpuinfo_field("cpu family")},
               {"cpu_model", cpuinfo_field("model")},
               {"data", data_path},
               {"config", Json::parse(config.to_json())},
               {"tokenizer", text.byte_pair ? "bpe" : "bytes"},
               {"tokenizer_merges", text.merge_count()},
               {"learn_merges", clocks_json(preparation.learning)},
               {"encode_text", clocks_json(preparation.encoding)},
               {"train_bytes_per_token", text.bytes_per_token(text.train)},
               {"validation_bytes_per_token", text.bytes_per_token(text.validation)},
               {"vocabulary_size", text.vocabulary_size()},
               {"train_tokens", run.text().train.size()},
               {"validation_tokens", run.text().validation.size()},
               {"parameters", run.model().parameter_count()},
               {"tokens_per_iteration", config.batch_size * config.context},
               {"train_log", Json::array()},
               {"evaluations", Json::array()},
               {"sessions", Json::array()}};
  return log;
}

TrainLog TrainLog::read(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error("cannot read the run log " + path);
  TrainLog log;
  try {
    log.json_ = Json::parse(file);
  } catch (const Json::exception& error) {
    throw std::runtime_error(path + " is not a run log: " + error.what());
  }
  for (const char* key : {"config", "train_log", "evaluations", "sessions"}) {
    if (!log.json_.is_object() || !log.json_.contains(key)) {
      throw std::runtime_error(path + " is not a run log: it has no \"" + std::string(key) + "\"");
    }
  }
  return log;
}

std::optional<std::string> TrainLog::config_difference(const TrainRunConfig& config) const {
  const Json given = Json::parse(config.to_json());
  const Json defaults = Json::parse(TrainRunConfig{}.to_json());
  const Json& logged = json_.at("config");
  for (const auto& [key, value] : given.items()) {
    const Json there = logged.contains(key) ? logged.at(key) : defaults.at(key);
    if (there != value) return key + ": " + there.dump() + " there, " + value.dump() + " here";
  }
  return std::nullopt;
}

void TrainLog::truncate_after_resume(std::size_t iteration) {
  // A finished run's checkpoint is saved after its final record: nothing to drop.
  if (has_final() && json_.at("final").at("iteration").get<std::size_t>() == iteration) return;
  keep_before(json_["train_log"], iteration);
  keep_before(json_["evaluations"], iteration);
  json_.erase("final");
}

void TrainLog::begin_session(std::size_t iteration, const MatmulRate& matmul) {
  session_training_ = {};
  json_["sessions"].push_back({{"start_iteration", iteration},
                               {"end_iteration", iteration},
                               {"reason", "running"},
                               {"load_average_start", load_json()},
                               // LLM_THREADS: the kernels' thread count in this session
                               // (thread CPU then undercounts; compare wall times).
                               {"threads", thread_count()},
                               {"matmul",
                                {{"rows", matmul.rows},
                                 {"depth", matmul.depth},
                                 {"columns", matmul.columns},
                                 {"repetitions", matmul.repetitions},
                                 {"gflops_thread_cpu", matmul.gflops_thread_cpu},
                                 {"gflops_wall", matmul.gflops_wall},
                                 {"kernel", matmul.kernel}}}});
}

void TrainLog::add_update_time(const RunClocks& elapsed) {
  session_training_ += elapsed;
}

void TrainLog::end_session(std::size_t iteration, const std::string& reason) {
  Json& session = json_["sessions"].back();
  session["end_iteration"] = iteration;
  session["reason"] = reason;
  session["training"] = clocks_json(session_training_);
  session["load_average_end"] = load_json();
}

void TrainLog::add_update(const UpdateReport& update) {
  json_["train_log"].push_back({{"iteration", update.iteration},
                                {"loss", update.loss},
                                {"learning_rate", update.learning_rate},
                                {"gradient_norm", update.clip.norm_before},
                                {"session_training_wall_seconds", session_training_.wall}});
}

void TrainLog::add_evaluation(const EvaluationReport& evaluation) {
  json_["evaluations"].push_back({{"iteration", evaluation.iteration},
                                  {"train_loss", evaluation.train_loss},
                                  {"validation_loss", evaluation.validation_loss},
                                  {"load_average", load_json()}});
}

void TrainLog::set_final(const EvaluationReport& evaluation,
                         const FullValidationReport& full_validation, const RunClocks& full_pass) {
  // The training time of the whole run is the sum over its sessions; the
  // current session's is not yet in its entry.
  RunClocks training = session_training_;
  const Json& sessions = json_.at("sessions");
  for (std::size_t s = 0; s + 1 < sessions.size(); ++s) {
    if (!sessions[s].contains("training")) continue;
    const Json& t = sessions[s].at("training");
    training += {t.at("wall_seconds").get<double>(), t.at("thread_cpu_seconds").get<double>(),
                 t.at("process_cpu_seconds").get<double>()};
  }
  const TrainRunConfig config = TrainRunConfig::from_json(json_.at("config").dump(), "run.json");
  const double tokens =
      static_cast<double>(config.batch_size * config.context * evaluation.iteration);
  const double flops_per_token = static_cast<double>(
      token_cost(config, json_.at("vocabulary_size").get<std::size_t>()).training_flops());
  json_["final"] = {
      {"iteration", evaluation.iteration},
      {"validation_loss_estimate", evaluation.validation_loss},
      {"train_loss_estimate", evaluation.train_loss},
      {"validation_loss_full_pass", full_validation.loss},
      {"validation_full_pass_windows", full_validation.windows},
      {"validation_nats_per_byte_full_pass", full_validation.nats_per_byte},
      {"validation_full_pass_target_bytes", full_validation.target_bytes},
      {"training", clocks_json(training)},
      {"full_pass", clocks_json(full_pass)},
      {"sessions", sessions.size()},
      {"tokens_per_second_wall", tokens / training.wall},
      {"tokens_per_second_thread_cpu", tokens / training.thread_cpu},
      {"training_flops_per_token", flops_per_token},
      {"model_gflops_thread_cpu", flops_per_token * tokens / training.thread_cpu * 1e-9},
      {"milliseconds_per_iteration_wall",
       1e3 * training.wall / static_cast<double>(evaluation.iteration)}};
}

std::string TrainLog::final_line() const {
  const Json& final = json_.at("final");
  const Json& training = final.at("training");
  const double wall = training.at("wall_seconds").get<double>();
  // A byte run's nats per byte are its loss, so its line stays as it was.
  std::string per_byte;
  if (json_.value("tokenizer", "bytes") == "bpe") {
    char text[64];
    std::snprintf(text, sizeof text, ", %.4f nats per byte (full pass)",
                  final.at("validation_nats_per_byte_full_pass").get<double>());
    per_byte = text;
  }
  char line[576];
  std::snprintf(line, sizeof line,
                "final: val loss %.4f (estimate, %zu batches), %.4f (full pass, %zu windows)%s; "
                "training %s wall in %zu session(s), %.1f s thread CPU, %.0f tok/s (wall), "
                "%.0f tok/s and %.2f GFLOP/s (thread CPU)",
                final.at("validation_loss_estimate").get<double>(),
                json_.at("config").at("eval_batches").get<std::size_t>(),
                final.at("validation_loss_full_pass").get<double>(),
                final.at("validation_full_pass_windows").get<std::size_t>(), per_byte.c_str(),
                duration_text(wall).c_str(), final.at("sessions").get<std::size_t>(),
                training.at("thread_cpu_seconds").get<double>(),
                final.at("tokens_per_second_wall").get<double>(),
                final.at("tokens_per_second_thread_cpu").get<double>(),
                final.at("model_gflops_thread_cpu").get<double>());
  return line;
}

void TrainLog::write(const std::string& path) const {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream file(temporary, std::ios::trunc);
    file << json_.dump(2) << "\n";
    file.flush();
    if (!file) throw std::runtime_error("cannot write the run log " + temporary);
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    throw std::runtime_error("cannot rename " + temporary + " to " + path + ": " + error.message());
  }
}

}  // namespace llm
