// llm-train: chapter 40's trainer behind `make train`. It trains the
// chapter-32 decoder on Tiny Shakespeare at nanoGPT's CPU configuration (or a
// reader's JSON configuration), prints a progress line every few updates,
// evaluates every eval_interval updates, saves a checkpoint atomically every
// checkpoint_interval updates, and resumes from the last checkpoint after
// Ctrl-C or a crash so that the run ends on the same bits as if nothing had
// happened. It writes a JSON log of everything it measured (run.json).
//
//   llm-train [--config FILE.json] [--data PATH] [--out DIR] [--restart]
//             [--stop-after N] [--abort-after N]
//
// Exit status: 0 finished, 1 an error (the message names it), 2 a usage
// error or a run directory that belongs to another configuration. Stopped by
// Ctrl-C (SIGINT) or SIGTERM, it saves the checkpoint (run the same command to
// continue) and then ends by that signal, as a program without a handler
// would: the shell reports 130 (143 for SIGTERM), and make says "Interrupt"
// rather than "Error 130".
#include <getopt.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "../command_line.hpp"
#include "llm/error.hpp"
#include "llm/text/text_dataset.hpp"
#include "llm/training/run_measurement.hpp"
#include "llm/training/token_cost.hpp"
#include "llm/training/train_run.hpp"
#include "train_log.hpp"

namespace {

namespace fs = std::filesystem;

struct Options {
  std::string config_path;  // empty: nanoGPT's CPU run (the defaults)
  std::string data = LLM_TINY_SHAKESPEARE;
  std::string out = "build/train/shakespeare-char";
  bool restart = false;
  std::size_t stop_after = 0;   // 0: never; else raise SIGINT once this many updates are made
  std::size_t abort_after = 0;  // 0: never; else abort() (a crash) once this many are made
};

[[noreturn]] void usage(const std::string& problem) {
  std::cerr
      << "llm-train: " << problem << "\n"
      << "usage: llm-train [--config FILE.json] [--data PATH] [--out DIR] [--restart]\n"
      << "                 [--stop-after N] [--abort-after N]\n"
      << "  --config FILE.json  settings that override nanoGPT's CPU run (docs/training-run.md)\n"
      << "  --data PATH         the Tiny Shakespeare text (default: the repository's copy)\n"
      << "  --out DIR           where the checkpoint and run.json live (default "
         "build/train/shakespeare-char)\n"
      << "  --restart           discard the run in DIR and start again\n"
      << "  --stop-after N      send itself SIGINT (as Ctrl-C does) once N updates are made\n"
      << "  --abort-after N     crash (abort, no checkpoint) once N updates are made\n";
  std::exit(2);
}

std::size_t count_argument(const char* option, const char* text) {
  const std::optional<unsigned long long> value = llm::apps::parse_whole_number(text);
  if (!value) usage(std::string(option) + " needs a non-negative integer, got '" + text + "'");
  return static_cast<std::size_t>(*value);
}

Options parse_options(int argc, char** argv) {
  Options options;
  const option long_options[] = {{"config", required_argument, nullptr, 'c'},
                                 {"data", required_argument, nullptr, 'd'},
                                 {"out", required_argument, nullptr, 'o'},
                                 {"restart", no_argument, nullptr, 'r'},
                                 {"stop-after", required_argument, nullptr, 's'},
                                 {"abort-after", required_argument, nullptr, 'a'},
                                 {"help", no_argument, nullptr, 'h'},
                                 {nullptr, 0, nullptr, 0}};
  opterr = 0;
  int c = 0;
  while ((c = getopt_long(argc, argv, "", long_options, nullptr)) != -1) {
    switch (c) {
      case 'c':
        options.config_path = optarg;
        break;
      case 'd':
        options.data = optarg;
        break;
      case 'o':
        options.out = optarg;
        break;
      case 'r':
        options.restart = true;
        break;
      case 's':
        options.stop_after = count_argument("--stop-after", optarg);
        break;
      case 'a':
        options.abort_after = count_argument("--abort-after", optarg);
        break;
      case 'h':
        usage("trains chapter 40's decoder on Tiny Shakespeare");
      default:
        usage(std::string("unknown option ") + argv[optind - 1]);
    }
  }
  if (optind != argc) usage(std::string("unexpected argument ") + argv[optind]);
  return options;
}

llm::TrainRunConfig read_config(const std::string& path) {
  if (path.empty()) return llm::TrainRunConfig{};
  std::ifstream file(path);
  if (!file) usage("cannot read the configuration " + path);
  std::stringstream text;
  text << file.rdbuf();
  return llm::TrainRunConfig::from_json(text.str(), path);
}

// The run's tokens as `config` asks for them. A BPE run first learns its
// merges from the training part, which takes a while on a megabyte (chapter
// 3's trainer recounts every pair of the text each round), so a line says
// when it starts and one when it ends; `preparation` gets both durations.
llm::TrainingText prepare_text(std::string_view text, const llm::TrainRunConfig& config,
                               llm::TextPreparation& preparation) {
  std::optional<llm::BpeTokenizer> byte_pair;
  if (config.bpe_merges > 0) {
    const llm::TextSplit split = llm::split_at_fraction(text, config.train_fraction);
    std::printf("llm-train: learning %zu byte-pair merges from the %zu training bytes\n",
                config.bpe_merges, split.train.size());
    std::fflush(stdout);
    const llm::RunClocks start = llm::RunClocks::now();
    byte_pair = llm::TrainingText::learn_byte_pair(text, config.train_fraction, config.bpe_merges);
    preparation.learning = llm::RunClocks::now() - start;
    std::printf("llm-train: learned %zu merges in %.1f s\n", byte_pair->merge_rules().size(),
                preparation.learning.wall);
  }
  const llm::RunClocks start = llm::RunClocks::now();
  llm::TrainingText encoded =
      llm::TrainingText::encode(text, config.train_fraction, std::move(byte_pair));
  preparation.encoding = llm::RunClocks::now() - start;
  if (encoded.byte_pair) {
    std::printf(
        "llm-train: encoded both partitions in %.1f s: %.3f bytes per token (train), %.3f "
        "(validation)\n",
        preparation.encoding.wall, encoded.bytes_per_token(encoded.train),
        encoded.bytes_per_token(encoded.validation));
  }
  std::fflush(stdout);
  return encoded;
}

// Ctrl-C (SIGINT) or SIGTERM: finish the current update, save, and stop. A
// second signal ends the process at once (the last saved checkpoint stays
// whole: saves are atomic).
std::atomic<int> stop_signal{0};

extern "C" void on_stop_signal(int signal_number) {
  stop_signal.store(signal_number);
  std::signal(signal_number, SIG_DFL);
}

}  // namespace

int main(int argc, char** argv) try {
  const Options options = parse_options(argc, argv);
  const llm::TrainRunConfig config = read_config(options.config_path);
  const fs::path out(options.out);
  const fs::path checkpoint_path = out / "checkpoint.llmcp";
  const fs::path log_path = out / "run.json";
  std::printf("llm-train: data %s, output %s\n", options.data.c_str(), options.out.c_str());
  std::fflush(stdout);

  const std::string data_text = llm::read_verified_text(options.data, llm::kTinyShakespeare);

  // A run directory holds one run: resume it unless told to restart. The
  // configurations are compared before the text is encoded, so a refused
  // run does not first wait for merges it will not use.
  std::optional<llm::TrainRun> run;
  llm::TrainLog log;
  if (options.restart) {
    fs::remove(checkpoint_path);
    fs::remove(log_path);
  }
  const bool resuming = fs::exists(checkpoint_path);
  if (resuming) {
    log = llm::TrainLog::read(log_path.string());
    if (const auto difference = log.config_difference(config)) {
      std::cerr
          << "llm-train: " << options.out << " holds a run with another configuration ("
          << *difference
          << "); pass --restart to discard it, or --out DIR to train elsewhere (through make: "
             "TRAIN_ARGS=--restart, or TRAIN_OUT=DIR)\n";
      return 2;
    }
  }
  llm::TextPreparation preparation;
  const auto text =
      std::make_shared<const llm::TrainingText>(prepare_text(data_text, config, preparation));
  if (resuming) {
    const llm::Checkpoint checkpoint = llm::Checkpoint::load(checkpoint_path.string());
    run.emplace(llm::TrainRun::resume(config, text, checkpoint, checkpoint_path.string()));
    log.truncate_after_resume(run->iteration());
    std::printf("llm-train: resuming at update %zu of %zu from %s\n", run->iteration(),
                config.iterations, checkpoint_path.string().c_str());
  } else {
    fs::create_directories(out);
    run.emplace(llm::TrainRun::start(config, text));
    log = llm::TrainLog::start(config, *run, options.data, preparation);
  }
  std::printf(
      "llm-train: %zu layers, width %zu, %zu heads, context %zu, %zu parameters; "
      "vocabulary %zu; %zu training and %zu validation tokens\n",
      config.layers, config.model_width, config.heads, config.context,
      run->model().parameter_count(), text->vocabulary_size(), text->train.size(),
      text->validation.size());
  std::fflush(stdout);

  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  if (!log.has_final()) {
    // Our matrix product's rate on the run's largest product ([B T, D] x
    // [D, F]), measured now, beside the load: the peak the step is compared with.
    const llm::MatmulRate peak = llm::measure_matmul(
        config.batch_size * config.context, config.model_width, config.feed_forward_width, 1.0);
    log.begin_session(run->iteration(), peak);
    std::printf(
        "llm-train: llm::matmul [%zu, %zu] x [%zu, %zu]: %.2f GFLOP/s (thread CPU, "
        "kernel %s)\n",
        peak.rows, peak.depth, peak.depth, peak.columns, peak.gflops_thread_cpu,
        peak.kernel.c_str());
  }
  const auto save = [&](const char* reason) {
    log.end_session(run->iteration(), reason);
    log.write(log_path.string());
    run->checkpoint().save(checkpoint_path.string());
  };

  const double tokens_per_update = static_cast<double>(config.batch_size * config.context);
  const std::size_t first = run->iteration();
  while (!run->finished()) {
    const std::size_t i = run->iteration();
    if (i % config.eval_interval == 0) {
      const llm::EvaluationReport evaluation = run->evaluate();
      log.add_evaluation(evaluation);
      std::printf("step %zu: train loss %.4f, val loss %.4f\n", i, evaluation.train_loss,
                  evaluation.validation_loss);
    }
    const llm::RunClocks start = llm::RunClocks::now();
    const llm::UpdateReport update = run->update();
    log.add_update_time(llm::RunClocks::now() - start);
    if (i % config.log_interval == 0 || run->finished()) {
      log.add_update(update);
      const double seconds = log.session_training().wall;
      const double done = static_cast<double>(run->iteration() - first);
      std::printf("iter %zu/%zu: loss %.4f, lr %.2e, %.0f tok/s, ETA %s\n", i, config.iterations,
                  update.loss, update.learning_rate, tokens_per_update * done / seconds,
                  llm::duration_text(seconds / done *
                                     static_cast<double>(config.iterations - run->iteration()))
                      .c_str());
      std::fflush(stdout);
    }
    const std::size_t made = run->iteration();
    if (options.abort_after != 0 && made == options.abort_after) {
      std::fprintf(stderr, "llm-train: aborting after update %zu (--abort-after)\n", made);
      std::abort();
    }
    if (config.checkpoint_interval != 0 && made % config.checkpoint_interval == 0 &&
        !run->finished()) {
      save("checkpoint");
    }
    // --stop-after sends the process a real SIGINT, so the test of resumption
    // goes through the same handler as a reader's Ctrl-C.
    if (options.stop_after != 0 && made == options.stop_after) std::raise(SIGINT);
    if (stop_signal.load() != 0) {
      save("interrupted");
      std::printf(
          "llm-train: stopped after update %zu; checkpoint %s. Run the same command to "
          "continue.\n",
          made, checkpoint_path.string().c_str());
      std::fflush(stdout);
      // The handler has put the signal's default action back: raising it
      // again ends the process by that signal, so a caller (the shell, make)
      // sees an interruption, not a failure. 130 is 128 + SIGINT, for the
      // case the signal cannot end the process.
      std::raise(stop_signal.load());
      return 130;
    }
  }

  if (!log.has_final()) {
    const llm::EvaluationReport evaluation = run->evaluate();
    log.add_evaluation(evaluation);
    std::printf("step %zu: train loss %.4f, val loss %.4f\n", run->iteration(),
                evaluation.train_loss, evaluation.validation_loss);
    const llm::RunClocks start = llm::RunClocks::now();
    const llm::FullValidationReport full = run->full_validation();
    log.set_final(evaluation, full, llm::RunClocks::now() - start);
    save("finished");
  }
  std::printf("%s\n", log.final_line().c_str());
  std::printf("llm-train: checkpoint %s, log %s\n", checkpoint_path.string().c_str(),
              log_path.string().c_str());
  return 0;
} catch (const llm::Error& error) {
  std::cerr << "llm-train: " << error.what() << " [" << error.area() << "/" << error.kind_name()
            << "]\n";
  return 1;
} catch (const std::exception& error) {
  std::cerr << "llm-train: " << error.what() << "\n";
  return 1;
}
