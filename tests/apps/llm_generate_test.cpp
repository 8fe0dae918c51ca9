// llm-generate (src/apps/llm_generate/), run as a reader runs it: on a
// chapter-40 checkpoint (one byte per token) and on a byte-pair checkpoint of
// chapter 39's kind, both written here, its text and token IDs equal what
// llm::generate yields from the same file through the full decoder; every
// refusal is one line on stderr naming the file, the reason and the error's
// kind, with exit status 1 and nothing on stdout, and the program's checkpoint
// view (checkpoint_text.hpp) throws that kind's own error type; usage errors
// exit 2.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/llm_generate/checkpoint_text.hpp"
#include "llm/autograd/tensor_value.hpp"
#include "llm/generation/generation.hpp"
#include "llm/generation/sampling_error.hpp"
#include "llm/text/bpe_tokenizer.hpp"
#include "llm/text/text_dataset.hpp"
#include "llm/training/decoder_checkpoint.hpp"
#include "llm/training/train_run.hpp"
#include "support/test_support.hpp"
#include "training/small_train_run.hpp"

namespace llm {
namespace {

namespace fs = std::filesystem;
using testing::capture_error;

// --- Running the program -------------------------------------------------

struct ProgramRun {
  int status = -1;
  std::string out;
  std::string err;
};

std::string quoted(const std::string& argument) {
  std::string text = "'";
  for (char c : argument) text += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return text + "'";
}

std::string file_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// A fresh directory for the running test (ctest runs the cases in parallel).
fs::path work_dir() {
  const fs::path dir = fs::path(LLM_GENERATE_WORK_DIR) /
                       ::testing::UnitTest::GetInstance()->current_test_info()->name();
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// llm-generate with `arguments`, its stdout and stderr kept apart.
ProgramRun run_generate(const std::vector<std::string>& arguments, const fs::path& dir) {
  std::string command = quoted(LLM_GENERATE_PROGRAM);
  for (const std::string& argument : arguments) command += " " + quoted(argument);
  const fs::path err = dir / "stderr.txt";
  command += " 2>" + quoted(err.string());
  ProgramRun run;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    run.out.append(buffer, n);
  const int status = pclose(pipe);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.err = file_text(err);
  return run;
}

// --- The checkpoints -----------------------------------------------------

std::shared_ptr<const TrainingText> shakespeare() {
  static const auto text = std::make_shared<const TrainingText>(
      TrainingText::from_text(read_verified_text(LLM_TINY_SHAKESPEARE, kTinyShakespeare), 0.9));
  return text;
}

/// A chapter-40 checkpoint: the run's tests' one-block decoder (context 16)
/// after 2 of its 8 updates.
fs::path literal_checkpoint(const fs::path& dir) {
  TrainRun run = TrainRun::start(testing::small_config(), shakespeare());
  run.update();
  run.update();
  const fs::path path = dir / "literal.llmcp";
  run.checkpoint().save(path.string());
  return path;
}

/// An untrained one-block tied decoder of `vocabulary` tokens and `context`
/// positions (seed 39) with `tokenizer`, saved at step 0 with `generator`.
fs::path untrained_checkpoint(const fs::path& path, CheckpointTokenizer tokenizer,
                              std::size_t context, std::uint64_t generator) {
  const DecoderConfig config{
      .vocabulary_size = tokenizer.vocabulary_size(),
      .layers = 1,
      .block = {.model_width = 8, .heads = 2, .feed_forward_width = 8, .context = context},
      .head = HeadTying::Tied};
  SplitMix64 init(39);
  const DecoderModel model = DecoderModel::initialized(config, init);
  const AdamW optimizer(
      AdamWConfig::create(0.01, 0.9, 0.999, 1e-8, 0.0),
      AdamWParameterGroups::partition(model.parameters(), [](std::string_view) { return true; }));
  Checkpoint::create(std::move(tokenizer), checkpoint_model_config(config),
                     model.parameters().named_values(), optimizer.state(), 0, generator)
      .save(path.string());
  return path;
}

/// A chapter-39-kind checkpoint: two byte-pair merges ("th", then "the"), an
/// untrained decoder of context 8 over their 260 token IDs, generator 38.
fs::path byte_pair_checkpoint(const fs::path& dir) {
  const std::vector<TokenPair> merges = {{'t', 'h'}, {256, 'e'}};
  return untrained_checkpoint(dir / "byte-pair.llmcp", CheckpointTokenizer::byte_pair(merges), 8,
                              38);
}

// --- What the library generates from the same file ----------------------

/// The full decoder's last row on the last `context` tokens of `prefix`,
/// with no cache: the reference the program's cached path must equal.
std::vector<double> full_decoder_logits(const DecoderModel& model,
                                        std::span<const TokenId> prefix) {
  const NoGradScope no_graph;
  const std::size_t context = model.config().block.context;
  const std::span<const TokenId> window = prefix.size() > context ? prefix.last(context) : prefix;
  const SharedTensor logits = model.forward(window, Shape{1, window.size()}).value();
  const std::span<const double> values = logits.contiguous_values();
  return {values.end() - static_cast<std::ptrdiff_t>(model.config().vocabulary_size), values.end()};
}

std::string id_list(const std::vector<TokenId>& ids) {
  std::string text = "[";
  for (std::size_t i = 0; i < ids.size(); ++i) text += (i ? "," : "") + std::to_string(ids[i]);
  return text + "]";
}

/// What the program must print for `result`: the prompt, every generated
/// token's bytes, a newline, and the --ids line.
std::string expected_output(const std::string& prompt, const std::string& continuation,
                            const GenerationResult& result) {
  return prompt + continuation + "\nprompt_ids:" + id_list(result.prompt) +
         " generated:" + id_list(result.generated) +
         " stop:" + std::string(generation_stop_name(result.stop)) + "\n";
}

GenerationResult byte_pair_generation(const Checkpoint& checkpoint, const std::string& prompt,
                                      std::size_t tokens, double temperature, std::size_t top_k,
                                      std::uint64_t seed) {
  const DecoderModel model = restore_decoder(checkpoint);
  const std::vector<TokenId> ids = checkpoint.tokenizer().bpe()->encode_content(prompt);
  const std::size_t v = checkpoint.model_config().vocabulary_size;
  SplitMix64 generator(seed);
  return generate(v, ids.size() + tokens, ids,
                  {.policy = SamplingPolicy::temperature_top_k(temperature, std::min(top_k, v)),
                   .eos_token = kEosTokenId,
                   .max_new_tokens = tokens},
                  generator, [&](std::span<const TokenId> prefix) {
                    return full_decoder_logits(model, prefix);
                  });
}

std::string byte_pair_text(const Checkpoint& checkpoint, const GenerationResult& result) {
  std::vector<TokenId> content = result.generated;
  if (result.stop == GenerationStop::Eos) content.pop_back();
  const std::vector<std::uint8_t> bytes = checkpoint.tokenizer().bpe()->decode_content(content);
  return {bytes.begin(), bytes.end()};
}

// --- Generation ------------------------------------------------------------

TEST(LlmGenerate, HelpExitsZero) {
  const ProgramRun run = run_generate({"--help"}, work_dir());
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.out.rfind("usage: llm-generate [--checkpoint FILE]", 0), 0u) << run.out;
  EXPECT_NE(run.out.find("without it, from the sampling generator"), std::string::npos);
  EXPECT_EQ(run.err, "");
}

TEST(LlmGenerate, LiteralCheckpointGivesTheLibrarysTokens) {
  const fs::path dir = work_dir();
  const fs::path path = literal_checkpoint(dir);
  const TrainedDecoder decoder =
      TrainedDecoder::from_checkpoint(Checkpoint::load(path.string()), path.string());
  const std::string prompt = "ROMEO:";
  const std::vector<TokenId> ids = decoder.vocabulary.encode(prompt);
  // 40 tokens after 6: past the context of 16, so the program's cache hands
  // over to the cropped decoder on the way.
  SplitMix64 generator(1337);
  const GenerationResult expected = generate(
      decoder.vocabulary.size(), ids.size() + 40, ids,
      {.policy = SamplingPolicy::temperature_top_k(0.8, decoder.vocabulary.size()),
       .max_new_tokens = 40},
      generator, [&](std::span<const TokenId> prefix) { return decoder.next_logits(prefix); });
  ASSERT_EQ(expected.generated.size(), 40u);
  const ProgramRun run =
      run_generate({"--checkpoint", path.string(), "--prompt", prompt, "--tokens", "40",
                    "--temperature", "0.8", "--top-k", "200", "--seed", "1337", "--ids"},
                   dir);
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.err, "");
  EXPECT_EQ(run.out,
            expected_output(prompt, decoder.vocabulary.decode(expected.generated), expected));
}

TEST(LlmGenerate, WithoutSeedDrawsFromTheStoredGenerator) {
  const fs::path dir = work_dir();
  const fs::path path = literal_checkpoint(dir);
  const Checkpoint checkpoint = Checkpoint::load(path.string());
  const std::vector<std::string> common = {"--checkpoint", path.string(), "--prompt",
                                           "KING",         "--tokens",    "12"};
  std::vector<std::string> seeded = common;
  seeded.insert(seeded.end(), {"--seed", std::to_string(checkpoint.generator_state())});
  const ProgramRun stored = run_generate(common, dir);
  const ProgramRun explicit_seed = run_generate(seeded, dir);
  EXPECT_EQ(stored.status, 0) << stored.err;
  EXPECT_EQ(stored.out, explicit_seed.out);
  EXPECT_EQ(stored.out.size(), std::string("KING").size() + 12 + 1);
}

TEST(LlmGenerate, BytePairCheckpointGivesTheLibrarysTokensAndStopsAtEos) {
  const fs::path dir = work_dir();
  const fs::path path = byte_pair_checkpoint(dir);
  const Checkpoint checkpoint = Checkpoint::load(path.string());
  const std::string prompt = "the cat";  // "the" is one merge token
  // One seed whose draw ends on EOS, one that runs 20 tokens past the
  // context of 8: both found with the library, then asked of the program.
  // A top-k of 300 is above V = 260: both keep every token.
  std::optional<std::uint64_t> eos_seed, limit_seed;
  for (std::uint64_t seed = 0; seed < 400 && !(eos_seed && limit_seed); ++seed) {
    const GenerationResult result = byte_pair_generation(checkpoint, prompt, 20, 1.5, 300, seed);
    (result.stop == GenerationStop::Eos ? eos_seed : limit_seed) = seed;
  }
  ASSERT_TRUE(eos_seed && limit_seed);
  for (const std::uint64_t seed : {*eos_seed, *limit_seed}) {
    const GenerationResult expected = byte_pair_generation(checkpoint, prompt, 20, 1.5, 300, seed);
    EXPECT_EQ(expected.prompt, (std::vector<TokenId>{259, 34, 101, 99, 118}));
    const ProgramRun run = run_generate(
        {"--checkpoint", path.string(), "--prompt", prompt, "--tokens", "20", "--temperature",
         "1.5", "--top-k", "300", "--seed", std::to_string(seed), "--ids"},
        dir);
    EXPECT_EQ(run.status, 0) << run.err;
    EXPECT_EQ(run.err, "");
    EXPECT_EQ(run.out, expected_output(prompt, byte_pair_text(checkpoint, expected), expected))
        << "seed " << seed;
  }
}

// --- Refusals --------------------------------------------------------------

/// Expects exit status 1, nothing on stdout and exactly `line` on stderr.
void expect_refusal(const ProgramRun& run, const std::string& line) {
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.err, line + "\n");
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST(LlmGenerate, RefusesAMissingOrUnreadableFile) {
  const fs::path dir = work_dir();
  const std::string missing = (dir / "missing.llmcp").string();
  expect_refusal(run_generate({"--checkpoint", missing}, dir),
                 "llm-generate: " + missing +
                     ": cannot read the checkpoint: No such file or directory "
                     "[checkpoint/read-failed]");
  expect_refusal(run_generate({"--checkpoint", dir.string()}, dir),
                 "llm-generate: " + dir.string() +
                     ": cannot read the checkpoint: it is a directory [checkpoint/read-failed]");
}

TEST(LlmGenerate, RefusesACorruptFileWithItsKind) {
  const fs::path dir = work_dir();
  const std::string good = file_text(literal_checkpoint(dir));
  const fs::path path = dir / "corrupt.llmcp";
  const std::string prefix = "llm-generate: " + path.string() + ": ";

  write_bytes(path, "LLMCP35");  // shorter than the fixed header
  expect_refusal(
      run_generate({"--checkpoint", path.string()}, dir),
      prefix + "the checkpoint ends while reading the fixed header [checkpoint/truncated]");

  std::string bytes = good;
  bytes[0] = 'X';
  write_bytes(path, bytes);
  expect_refusal(run_generate({"--checkpoint", path.string()}, dir),
                 prefix +
                     "this is not a checkpoint: its first bytes are not LLMCP35 "
                     "[checkpoint/invalid-magic]");

  write_bytes(path, good.substr(0, good.size() / 2));
  expect_refusal(run_generate({"--checkpoint", path.string()}, dir),
                 prefix + "the header declares " + std::to_string(good.size()) +
                     " bytes in all, but the file holds " + std::to_string(good.size() / 2) +
                     ": it is truncated or has extra bytes [checkpoint/file-length-mismatch]");

  bytes = good;
  bytes.back() = static_cast<char>(bytes.back() ^ 0x01);  // one bit of the last parameter
  write_bytes(path, bytes);
  const ProgramRun flipped = run_generate({"--checkpoint", path.string()}, dir);
  EXPECT_EQ(flipped.status, 1);
  EXPECT_EQ(flipped.out, "");
  EXPECT_EQ(flipped.err.rfind(prefix + "checksum mismatch: the file stores fnv1a64:", 0), 0u)
      << flipped.err;
  EXPECT_TRUE(flipped.err.ends_with(" [checkpoint/checksum-mismatch]\n")) << flipped.err;
  EXPECT_EQ(std::count(flipped.err.begin(), flipped.err.end(), '\n'), 1);
}

/// The program's view of the tokenizer in `path`, for calling the library
/// the program calls and catching its exact error type.
llm_generate::CheckpointTokenizerView tokenizer_view(const fs::path& path) {
  return llm_generate::CheckpointTokenizerView::from_checkpoint(Checkpoint::load(path.string()),
                                                                path.string());
}

TEST(LlmGenerate, RefusesAPromptTheTokenizerCannotEncode) {
  const fs::path dir = work_dir();
  const std::string path = literal_checkpoint(dir).string();
  const auto tilde = capture_error<DatasetError>([&] { tokenizer_view(path).encode("ROMEO~"); });
  EXPECT_EQ(tilde->kind(), DatasetErrorKind::UnknownCharacter);
  EXPECT_EQ(tilde->evidence().position, 5u);
  EXPECT_EQ(tilde->evidence().value, static_cast<unsigned char>('~'));
  EXPECT_EQ(tilde->evidence().limit, 65u);
  expect_refusal(run_generate({"--checkpoint", path, "--prompt", "ROMEO~"}, dir),
                 "llm-generate: " + path +
                     ": byte 0x7e '~' at position 5 is not in the 65-byte vocabulary "
                     "[dataset/unknown-character]");
  expect_refusal(run_generate({"--checkpoint", path, "--prompt", "caf\xc3\xa9"}, dir),
                 "llm-generate: " + path +
                     ": byte 0xc3 at position 3 is not in the 65-byte vocabulary "
                     "[dataset/unknown-character]");
}

TEST(LlmGenerate, RefusesAnEmptyPrompt) {
  const fs::path dir = work_dir();
  for (const fs::path& path : {literal_checkpoint(dir), byte_pair_checkpoint(dir)}) {
    EXPECT_EQ(capture_error<SamplingError>([&] { tokenizer_view(path).encode(""); })->kind(),
              SamplingErrorKind::EmptyPrompt)
        << path;
    expect_refusal(run_generate({"--checkpoint", path.string(), "--prompt", ""}, dir),
                   "llm-generate: " + path.string() +
                       ": generation needs a prompt of at least one token "
                       "[sampling/empty-prompt]");
  }
}

TEST(LlmGenerate, RefusesLiteralPiecesLongerThanAByte) {
  const fs::path dir = work_dir();
  const fs::path path = untrained_checkpoint(
      dir / "words.llmcp", CheckpointTokenizer::literal({"to", "be", "or"}), 4, 1);
  const auto error = capture_error<CheckpointError>([&] { tokenizer_view(path); });
  EXPECT_EQ(error->kind(), CheckpointErrorKind::InvalidTokenizer);
  EXPECT_EQ(error->evidence().path, path.string());
  expect_refusal(run_generate({"--checkpoint", path.string(), "--prompt", "to"}, dir),
                 "llm-generate: " + path.string() +
                     ": invalid tokenizer: its 3 literal pieces are not single bytes in byte "
                     "order, so a prompt cannot be encoded byte by byte "
                     "[checkpoint/invalid-tokenizer]");
}

TEST(LlmGenerate, UsageErrorsExitTwo) {
  const fs::path dir = work_dir();
  for (const std::vector<std::string>& arguments :
       std::vector<std::vector<std::string>>{{"--temperature", "0"},
                                             {"--temperature", "warm"},
                                             {"--top-k", "0"},
                                             {"--tokens", "-3"},
                                             {"--seed"},
                                             {"--bogus"},
                                             {"extra"}}) {
    const ProgramRun run = run_generate(arguments, dir);
    EXPECT_EQ(run.status, 2) << arguments.front();
    EXPECT_EQ(run.out, "");
    EXPECT_EQ(run.err.rfind("llm-generate: ", 0), 0u) << run.err;
    // Two lines: the problem, then where the options are (not the whole help).
    EXPECT_TRUE(run.err.ends_with("\nTry 'llm-generate --help' for the options.\n")) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 2) << run.err;
  }
  const ProgramRun cold = run_generate({"--temperature", "0"}, dir);
  EXPECT_EQ(cold.err.substr(0, cold.err.find('\n')),
            "llm-generate: --temperature needs a finite number above 0, got '0'");
}

}  // namespace
}  // namespace llm
