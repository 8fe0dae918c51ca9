// Proof of resume (chapter 35): a run of N updates straight, against N/2
// updates, a checkpoint saved by one process, and N/2 more updates in another
// process that knows the first only through the file. The final parameters
// and optimizer state (compared as checkpoint bytes, so bit for bit) and the
// tokens generated afterwards from the stored sampling generator are
// identical. Both processes are forked before any training, so nothing but
// the checkpoint passes between them.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "llm/generation/generation.hpp"
#include "llm/training/checkpoint.hpp"
#include "support/test_support.hpp"
#include "training/tiny_language_model.hpp"

namespace llm {
namespace {

namespace fs = std::filesystem;
using testing::epoch_of;
using testing::TinyLanguageModel;

constexpr std::size_t kUpdates = 12;
constexpr std::uint64_t kModelSeed = 35;
constexpr std::uint64_t kSamplingSeed = 36;

const std::vector<std::vector<TokenId>> kTrain = {{0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1},
                                                  {2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3}};

double rate(std::size_t step) {
  return 0.05 / static_cast<double>(1 + step / 4);
}

MiniBatchEpoch updates() {
  return epoch_of(Partition::Train, kTrain, 3, BatchOrder::shuffled(7));
}

AdamW fresh_optimizer(const ParameterSet& parameters) {
  return AdamW(AdamWConfig::create(0.05, 0.9, 0.999, 1e-8, 0.01),
               AdamWParameterGroups::partition(
                   parameters, [](std::string_view name) { return name.ends_with(".weight"); }));
}

// Updates first..last (inclusive), exactly as a whole run makes them.
void train(const TinyLanguageModel& model, AdamW& optimizer, std::size_t first, std::size_t last) {
  const MiniBatchEpoch epoch = updates();
  const TrainableModel trainable = model.trainable(2);
  for (std::size_t step = first; step <= last; ++step) {
    update_step(trainable, optimizer, epoch.batches()[(step - 1) % epoch.batches().size()], step,
                rate(step), 0.5);
  }
}

Checkpoint checkpoint_of(const TinyLanguageModel& model, const AdamW& optimizer,
                         std::uint64_t generator_state) {
  return Checkpoint::create(CheckpointTokenizer::literal({"0", "1", "2", "3", "4"}),
                            CheckpointModelConfig{5, 4, 1, 4, 0, 2, 10000.0, 1e-6},
                            model.parameters.named_values(), optimizer.state(),
                            optimizer.step_count(), generator_state);
}

std::vector<TokenId> generate_from(const TinyLanguageModel& model, std::uint64_t generator_state) {
  SplitMix64 generator(generator_state);
  const std::vector<TokenId> prompt = {0};
  const GenerationConfig config{.policy = SamplingPolicy::temperature_top_k(0.8, 4),
                                .max_new_tokens = 16};
  return generate(5, 64, prompt, config, generator,
                  [&](std::span<const TokenId> prefix) {
                    const NoGradScope no_graph;
                    const Tensor logits = model.logits(prefix, 1).value().materialize();
                    const auto row = logits.values().last(5);
                    return std::vector<double>(row.begin(), row.end());
                  })
      .generated;
}

// Runs `body` in a child process; the test fails if it does not exit 0.
template <class Body>
void in_child_process(Body&& body) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int code = 1;
    try {
      body();
      code = 0;
    } catch (const std::exception& error) {
      std::fprintf(stderr, "child failed: %s\n", error.what());
    }
    ::_exit(code);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
}

std::vector<std::uint8_t> read_bytes(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

TEST(Resume, AResumedRunEqualsTheUninterruptedRunBitForBit) {
  const fs::path directory =
      fs::temp_directory_path() / ("llm-resume-test-" + std::to_string(::getpid()));
  fs::remove_all(directory);
  fs::create_directories(directory);
  const std::string half = (directory / "half.llmcp").string();
  const std::string resumed = (directory / "resumed.llmcp").string();
  const fs::path tokens = directory / "resumed.tokens";

  // Process 1: the first half, then a checkpoint with the sampling generator's state.
  in_child_process([&] {
    const TinyLanguageModel model = TinyLanguageModel::initialized(5, 4, kModelSeed);
    AdamW optimizer = fresh_optimizer(model.parameters);
    train(model, optimizer, 1, kUpdates / 2);
    checkpoint_of(model, optimizer, SplitMix64(kSamplingSeed).state()).save(half);
  });
  // Process 2: a model of another seed, restored from the file only.
  in_child_process([&] {
    const Checkpoint saved = Checkpoint::load(half);
    const TinyLanguageModel model = TinyLanguageModel::initialized(5, 4, 999);
    saved.restore_parameters(model.parameters);
    AdamW optimizer = AdamW::from_state(saved.optimizer_state());
    train(model, optimizer, kUpdates / 2 + 1, kUpdates);
    checkpoint_of(model, optimizer, saved.generator_state()).save(resumed);
    std::ofstream out(tokens);
    for (TokenId token : generate_from(model, saved.generator_state())) out << token << ' ';
  });

  // This process: all updates straight.
  const TinyLanguageModel model = TinyLanguageModel::initialized(5, 4, kModelSeed);
  AdamW optimizer = fresh_optimizer(model.parameters);
  train(model, optimizer, 1, kUpdates);
  const std::uint64_t generator_state = SplitMix64(kSamplingSeed).state();
  const EncodedCheckpoint straight = checkpoint_of(model, optimizer, generator_state).encode();

  EXPECT_EQ(read_bytes(resumed), straight.bytes);  // parameters, moments, powers, step: all bits
  EXPECT_EQ(Checkpoint::load(resumed).optimizer_state(), optimizer.state());
  std::string expected_tokens;
  for (TokenId token : generate_from(model, generator_state)) {
    expected_tokens += std::to_string(token) + ' ';
  }
  std::ifstream in(tokens);
  const std::string resumed_tokens((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  EXPECT_EQ(resumed_tokens, expected_tokens);
  EXPECT_EQ(expected_tokens.size(), 32u);  // sixteen tokens were generated

  // Without the optimizer state (a fresh AdamW at the second half) the run differs.
  const TinyLanguageModel restarted = TinyLanguageModel::initialized(5, 4, 999);
  restarted.parameters.load(Checkpoint::load(half).parameters());
  AdamW forgetful = fresh_optimizer(restarted.parameters);
  const MiniBatchEpoch epoch = updates();
  for (std::size_t step = kUpdates / 2 + 1; step <= kUpdates; ++step) {
    update_step(restarted.trainable(2), forgetful,
                epoch.batches()[(step - 1) % epoch.batches().size()], step - kUpdates / 2,
                rate(step), 0.5);
  }
  EXPECT_NE(testing::bits_of(restarted.parameters[0].parameter.value()),
            testing::bits_of(model.parameters[0].parameter.value()));

  // A model of another layout refuses the checkpoint and keeps its values.
  const TinyLanguageModel wider = TinyLanguageModel::initialized(5, 6, 1);
  const auto before = testing::bits_of(wider.parameters[0].parameter.value());
  const auto refused = testing::capture_error<CheckpointError>(
      [&] { Checkpoint::load(resumed).restore_parameters(wider.parameters); });
  EXPECT_EQ(refused->kind(), CheckpointErrorKind::ModelMismatch);
  EXPECT_EQ(refused->evidence().name, "token_embedding.weight");
  EXPECT_EQ(testing::bits_of(wider.parameters[0].parameter.value()), before);
  fs::remove_all(directory);
}

}  // namespace
}  // namespace llm
