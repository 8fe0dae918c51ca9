// llm-sample: chapter 40's generator behind `make generate`. It reads the
// checkpoint `make train` wrote, and continues a prompt one byte at a time
// with temperature and top-k sampling (chapter 36), printing each character
// as soon as it is chosen. The decoder reads the last `context` bytes only,
// as nanoGPT's sample.py does.
//
//   llm-sample [--checkpoint FILE] [--prompt TEXT] [--tokens N]
//              [--temperature T] [--top-k K] [--seed S]
//
// Exit status: 0 done, 1 an error (the message names it), 2 a usage error.
#include <getopt.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "llm/error.hpp"
#include "llm/generation/generation.hpp"
#include "llm/training/train_run.hpp"

namespace {

struct Options {
  std::string checkpoint = "build/train/shakespeare-char/checkpoint.llmcp";
  std::string prompt = "\n";
  std::size_t tokens = 500;
  double temperature = 0.8;  // nanoGPT's sample.py default
  std::size_t top_k = 200;   // sample.py's default; above V = 65 it keeps every byte
  std::uint64_t seed = 1337;
};

[[noreturn]] void usage(const std::string& problem) {
  std::cerr << "llm-sample: " << problem << "\n"
            << "usage: llm-sample [--checkpoint FILE] [--prompt TEXT] [--tokens N]\n"
            << "                  [--temperature T] [--top-k K] [--seed S]\n"
            << "  --checkpoint FILE  a checkpoint of make train (default "
               "build/train/shakespeare-char/checkpoint.llmcp)\n"
            << "  --prompt TEXT      the text to continue (default: a newline)\n"
            << "  --tokens N         bytes to generate (default 500)\n"
            << "  --temperature T    > 0; lower is more conservative (default 0.8)\n"
            << "  --top-k K          keep the K likeliest bytes; larger than the vocabulary "
               "keeps all (default 200)\n"
            << "  --seed S           the SplitMix64 seed of the draws (default 1337)\n";
  std::exit(2);
}

unsigned long long whole_number(const char* option, const char* text) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || text[0] == '-') {
    usage(std::string(option) + " needs a non-negative integer, got '" + text + "'");
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
                                 {"help", no_argument, nullptr, 'h'},
                                 {nullptr, 0, nullptr, 0}};
  for (int c; (c = getopt_long(argc, argv, "", long_options, nullptr)) != -1;) {
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
      case 't': {
        char* end = nullptr;
        options.temperature = std::strtod(optarg, &end);
        if (end == optarg || *end != '\0') {
          usage(std::string("--temperature needs a number, got '") + optarg + "'");
        }
        break;
      }
      case 'k':
        options.top_k = whole_number("--top-k", optarg);
        break;
      case 's':
        options.seed = whole_number("--seed", optarg);
        break;
      case 'h':
        usage("samples text from chapter 40's checkpoint");
      default:
        usage(std::string("unknown option ") + argv[optind - 1]);
    }
  }
  if (optind != argc) usage(std::string("unexpected argument ") + argv[optind]);
  if (options.prompt.empty()) usage("--prompt needs at least one character");
  return options;
}

}  // namespace

int main(int argc, char** argv) try {
  const Options options = parse_options(argc, argv);
  const llm::TrainedDecoder decoder = llm::TrainedDecoder::from_checkpoint(
      llm::Checkpoint::load(options.checkpoint), options.checkpoint);
  const std::vector<llm::TokenId> prompt = decoder.vocabulary.encode(options.prompt);
  const std::size_t v = decoder.vocabulary.size();
  // Top-k above the vocabulary keeps every byte, as torch.topk(min(k, V)) does.
  const std::size_t k = options.top_k < v ? options.top_k : v;
  const llm::GenerationConfig config{
      .policy = llm::SamplingPolicy::temperature_top_k(options.temperature, k),
      .max_new_tokens = options.tokens};
  llm::SplitMix64 generator(options.seed);
  std::fwrite(options.prompt.data(), 1, options.prompt.size(), stdout);
  // The loop's context is the whole generation: the decoder crops to its own.
  llm::generate(
      v, prompt.size() + options.tokens, prompt, config, generator,
      [&](std::span<const llm::TokenId> prefix) { return decoder.next_logits(prefix); },
      [&](llm::TokenId token) {
        std::fputc(decoder.vocabulary.symbols()[token], stdout);
        std::fflush(stdout);
      });
  std::fputc('\n', stdout);
  return 0;
} catch (const llm::Error& error) {
  std::cerr << "llm-sample: " << error.what() << " [" << error.area() << "/" << error.kind_name()
            << "]\n";
  return 1;
} catch (const std::exception& error) {
  std::cerr << "llm-sample: " << error.what() << "\n";
  return 1;
}
