// llm-generate: the book's generator, for both checkpoints the book makes:
// chapter 39's (byte-pair tokenizer, `make book`) and chapter 40's (one byte
// per token, `make train`, behind `make generate`; or byte pairs with
// CONFIG=data/tinyshakespeare/bpe.json). It loads the checkpoint
// through the library (chapter 35), restores its decoder, encodes the prompt
// with the checkpoint's own tokenizer, and continues it with temperature and
// top-k sampling (chapter 36), writing each token's bytes as soon as it is
// chosen. A byte-pair model stops at its EOS token.
//
//   llm-generate [--checkpoint FILE] [--prompt TEXT] [--tokens N]
//                [--temperature T] [--top-k K] [--seed S] [--ids]
//
// Exit status: 0 done, 1 an error (one line on stderr: the file, the reason
// and the error's [area/kind]; nothing on stdout), 2 a usage error.
#include <getopt.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "../command_line.hpp"
#include "checkpoint_text.hpp"
#include "llm/error.hpp"
#include "llm/generation/generation.hpp"
#include "llm/training/decoder_checkpoint.hpp"

namespace {

using llm::TokenId;

struct Options {
  std::string checkpoint = "build/train/shakespeare-char/checkpoint.llmcp";
  std::string prompt = "\n";
  std::size_t tokens = 500;
  double temperature = 0.8;  // nanoGPT's sample.py default
  std::size_t top_k = 200;   // sample.py's default; above V it keeps every token
  std::optional<std::uint64_t> seed;
  bool ids = false;
};

constexpr const char* kUsage =
    "usage: llm-generate [--checkpoint FILE] [--prompt TEXT] [--tokens N]\n"
    "                    [--temperature T] [--top-k K] [--seed S] [--ids]\n"
    "Continues TEXT with the decoder of a checkpoint (chapter 35's format), writing each\n"
    "token's bytes as it is chosen. Reads both checkpoints the book makes:\n"
    "  chapter 39 (make book): build/chapters/39-end-to-end-llm/checkpoint.llmcp,\n"
    "    a byte-pair tokenizer; generation stops early at its end-of-text token\n"
    "  chapter 40 (make train): build/train/shakespeare-char/checkpoint.llmcp,\n"
    "    one token per byte of its 65-character vocabulary, or byte pairs with\n"
    "    make train CONFIG=data/tinyshakespeare/bpe.json (its TRAIN_OUT folder)\n"
    "  --checkpoint FILE  the checkpoint (default build/train/shakespeare-char/checkpoint.llmcp)\n"
    "  --prompt TEXT      the text to continue, encoded with the checkpoint's tokenizer\n"
    "                     (default: a newline)\n"
    "  --tokens N         tokens to generate at most (default 500)\n"
    "  --temperature T    > 0; lower is more conservative (default 0.8)\n"
    "  --top-k K          keep the K likeliest tokens; above the vocabulary keeps all\n"
    "                     (default 200)\n"
    "  --seed S           draw from SplitMix64(S); without it, from the sampling generator\n"
    "                     state the checkpoint stores (chapter 35), so the same file and\n"
    "                     options give the same text. Chapter 40's checkpoint stores its\n"
    "                     training-window stream there; make generate passes SEED=1337.\n"
    "  --ids              after the text, one line: the prompt's and the generated token\n"
    "                     IDs and why generation stopped\n"
    "Exit status: 0 done, 1 an error (stderr names the file, the reason and its kind),\n"
    "2 a usage error.\n";

[[noreturn]] void usage_error(const std::string& problem) {
  // One line and a pointer, as GNU tools do; --help prints the whole text.
  std::cerr << "llm-generate: " << problem << "\nTry 'llm-generate --help' for the options.\n";
  std::exit(2);
}

unsigned long long whole_number(const char* option, const char* text) {
  const std::optional<unsigned long long> value = llm::apps::parse_whole_number(text);
  if (!value)
    usage_error(std::string(option) + " needs a non-negative integer, got '" + text + "'");
  return *value;
}

double positive_number(const char* option, const char* text) {
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (end == text || *end != '\0' || !std::isfinite(value) || !(value > 0.0)) {
    usage_error(std::string(option) + " needs a finite number above 0, got '" + text + "'");
  }
  return value;
}

Options parse_options(int argc, char** argv) {
  Options options;
  const option long_options[] = {{"checkpoint", required_argument, nullptr, 'c'},
                                 {"prompt", required_argument, nullptr, 'p'},
                                 {"tokens", required_argument, nullptr, 'n'},
                                 {"temperature", required_argument, nullptr, 't'},
                                 {"top-k", required_argument, nullptr, 'k'},
                                 {"seed", required_argument, nullptr, 's'},
                                 {"ids", no_argument, nullptr, 'i'},
                                 {"help", no_argument, nullptr, 'h'},
                                 {nullptr, 0, nullptr, 0}};
  opterr = 0;  // usage_error words getopt's complaints
  for (int c; (c = getopt_long(argc, argv, ":", long_options, nullptr)) != -1;) {
    switch (c) {
      case 'c':
        options.checkpoint = optarg;
        break;
      case 'p':
        options.prompt = optarg;
        break;
      case 'n':
        options.tokens = whole_number("--tokens", optarg);
        break;
      case 't':
        options.temperature = positive_number("--temperature", optarg);
        break;
      case 'k':
        options.top_k = whole_number("--top-k", optarg);
        if (options.top_k == 0) usage_error("--top-k needs at least 1");
        break;
      case 's':
        options.seed = whole_number("--seed", optarg);
        break;
      case 'i':
        options.ids = true;
        break;
      case 'h':
        std::cout << kUsage;
        std::exit(0);
      case ':':
        usage_error(std::string(argv[optind - 1]) + " needs a value");
      default:
        usage_error(std::string("unknown option ") + argv[optind - 1]);
    }
  }
  if (optind != argc) usage_error(std::string("unexpected argument ") + argv[optind]);
  return options;
}

std::string id_list(const std::vector<TokenId>& ids) {
  std::string text = "[";
  for (std::size_t i = 0; i < ids.size(); ++i) text += (i ? "," : "") + std::to_string(ids[i]);
  return text + "]";
}

void write_bytes(const std::string& bytes) {
  std::fwrite(bytes.data(), 1, bytes.size(), stdout);
  std::fflush(stdout);
}

// region: generate-from-checkpoint
/// Loads, encodes, generates and streams; every refusal is an llm::Error
/// thrown before the first byte is written.
void generate_text(const Options& options) {
  const llm::Checkpoint checkpoint = llm::Checkpoint::load(options.checkpoint);
  const llm_generate::CheckpointTokenizerView tokenizer =
      llm_generate::CheckpointTokenizerView::from_checkpoint(checkpoint, options.checkpoint);
  const llm::DecoderModel model = llm::restore_decoder(checkpoint);
  const std::vector<TokenId> prompt = tokenizer.encode(options.prompt);
  const std::size_t v = tokenizer.vocabulary_size();
  const llm::GenerationConfig config{
      // Top-k above V keeps every token, as torch.topk(min(k, V)) does.
      .policy = llm::SamplingPolicy::temperature_top_k(options.temperature,
                                                       options.top_k < v ? options.top_k : v),
      .eos_token = tokenizer.stop_token(),
      .max_new_tokens = options.tokens};
  llm::SplitMix64 generator(options.seed.value_or(checkpoint.generator_state()));
  llm_generate::CroppedCachedLogits next_logits(model);
  write_bytes(options.prompt);
  // The loop's own context is the whole text (saturated, for a huge
  // --tokens): the logits crop to the model's.
  const std::size_t whole_text =
      options.tokens > std::numeric_limits<std::size_t>::max() - prompt.size()
          ? std::numeric_limits<std::size_t>::max()
          : prompt.size() + options.tokens;
  const llm::GenerationResult result = llm::generate(
      v, whole_text, prompt, config, generator,
      [&](std::span<const TokenId> prefix) { return next_logits(prefix); },
      [&](TokenId token) { write_bytes(tokenizer.bytes_of(token)); });
  std::fputc('\n', stdout);
  if (options.ids) {
    std::printf("prompt_ids:%s generated:%s stop:%s\n", id_list(result.prompt).c_str(),
                id_list(result.generated).c_str(),
                std::string(llm::generation_stop_name(result.stop)).c_str());
  }
}
// endregion: generate-from-checkpoint

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  try {
    generate_text(options);
    return 0;
  } catch (const llm::Error& error) {
    // Checkpoint::load's errors start with the path; the others get it here.
    const std::string message = error.what();
    const std::string prefix = options.checkpoint + ": ";
    std::cerr << "llm-generate: " << (message.rfind(prefix, 0) == 0 ? "" : prefix) << message
              << " [" << error.area() << "/" << error.kind_name() << "]\n";
  } catch (const std::exception& error) {
    std::cerr << "llm-generate: " << options.checkpoint << ": " << error.what() << "\n";
  }
  return 1;
}
