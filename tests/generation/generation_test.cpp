// The generation loop of chapters 36 and 38 with a stand-in model whose
// logits depend only on the newest token: its stop rules, its checks, and a
// generator left unchanged by every failure.
#include "llm/generation/generation.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;

// Five tokens; the next token is strongly (newest + 1) mod 5.
std::vector<double> successor_logits(std::span<const TokenId> prefix) {
  std::vector<double> logits(5, 0.0);
  logits[(prefix.back() + 1) % 5] = 4.0;
  return logits;
}

TEST(Generate, GreedyFollowsTheModelUntilTheTokenLimit) {
  SplitMix64 generator(1);
  const std::vector<TokenId> prompt = {0};
  std::vector<TokenId> streamed;
  const GenerationResult result =
      generate(5, 8, prompt, {.policy = SamplingPolicy::greedy(), .max_new_tokens = 3}, generator,
               successor_logits, [&](TokenId token) { streamed.push_back(token); });
  EXPECT_EQ(result.generated, (std::vector<TokenId>{1, 2, 3}));
  EXPECT_EQ(streamed, result.generated);
  EXPECT_EQ(result.stop, GenerationStop::TokenLimit);
  EXPECT_EQ(result.model_calls, 3u);
  EXPECT_EQ(result.steps[2].prefix_length, 3u);
  EXPECT_EQ(generator.state(), 1u);  // greedy draws nothing
}

// Context 2, prompt of one: prefixes of 1 and 2 tokens can be read; after
// the second token the prefix has 3 > 2 tokens and the loop stops.
TEST(Generate, StopsWhenThePrefixOutgrowsTheContext) {
  SplitMix64 generator(2);
  const std::vector<TokenId> prompt = {0};
  const GenerationResult result =
      generate(5, 2, prompt, {.policy = SamplingPolicy::greedy(), .max_new_tokens = 4}, generator,
               successor_logits);
  EXPECT_EQ(result.generated, (std::vector<TokenId>{1, 2}));
  EXPECT_EQ(result.stop, GenerationStop::ContextLimit);
  EXPECT_EQ(result.steps[0].prefix_length, 1u);
  EXPECT_EQ(result.steps[1].prefix_length, 2u);
  EXPECT_EQ(generation_stop_name(result.stop), "context-limit");
}

TEST(Generate, StopsRightAfterTheEndOfSequenceToken) {
  SplitMix64 generator(3);
  const std::vector<TokenId> prompt = {2};
  const GenerationResult result = generate(
      5, 8, prompt, {.policy = SamplingPolicy::greedy(), .eos_token = 4, .max_new_tokens = 9},
      generator, successor_logits);
  EXPECT_EQ(result.generated, (std::vector<TokenId>{3, 4}));
  EXPECT_EQ(result.stop, GenerationStop::Eos);
}

TEST(Generate, ZeroNewTokensNeverCallsTheModel) {
  SplitMix64 generator(4);
  const std::vector<TokenId> prompt = {1};
  const GenerationResult result = generate(5, 8, prompt, {.max_new_tokens = 0}, generator,
                                           [](std::span<const TokenId>) -> std::vector<double> {
                                             throw std::logic_error("not called");
                                           });
  EXPECT_EQ(result.model_calls, 0u);
  EXPECT_TRUE(result.generated.empty());
}

TEST(Generate, SampledRunsReplayFromTheSameSeed) {
  const auto policy = SamplingPolicy::temperature_top_k(2.0, 3);
  const std::vector<TokenId> prompt = {0, 1};
  SplitMix64 first(99), second(99);
  const auto a =
      generate(5, 16, prompt, {.policy = policy, .max_new_tokens = 10}, first, successor_logits);
  const auto b =
      generate(5, 16, prompt, {.policy = policy, .max_new_tokens = 10}, second, successor_logits);
  EXPECT_EQ(a, b);
  EXPECT_EQ(first.state(), second.state());
  EXPECT_NE(first.state(), 99u);  // ten draws were taken
}

TEST(Generate, EveryRefusedRequestLeavesTheGeneratorUnchanged) {
  SplitMix64 generator(5);
  const auto policy = SamplingPolicy::temperature_top_k(1.0, 2);
  struct Case {
    std::vector<TokenId> prompt;
    GenerationConfig config;
    SamplingErrorKind kind;
  };
  const std::vector<Case> cases = {
      {{}, {.policy = policy, .max_new_tokens = 1}, SamplingErrorKind::EmptyPrompt},
      {{0, 1, 2}, {.policy = policy, .max_new_tokens = 1}, SamplingErrorKind::PromptTooLong},
      {{0, 5}, {.policy = policy, .max_new_tokens = 1}, SamplingErrorKind::PromptTokenOutOfRange},
      {{0},
       {.policy = policy, .eos_token = 9, .max_new_tokens = 1},
       SamplingErrorKind::StopTokenOutOfRange},
      {{0},
       {.policy = SamplingPolicy::temperature_top_k(1.0, 6), .max_new_tokens = 1},
       SamplingErrorKind::InvalidTopK},
  };
  for (const Case& c : cases) {
    const auto error = capture_error<SamplingError>(
        [&] { generate(5, 2, c.prompt, c.config, generator, successor_logits); });
    EXPECT_EQ(error->kind(), c.kind) << error->what();
    EXPECT_EQ(generator.state(), 5u);
  }
  // A model that fails on its third call: two draws were taken, none kept.
  int calls = 0;
  const std::vector<TokenId> prompt = {0};
  EXPECT_THROW(generate(5, 8, prompt, {.policy = policy, .max_new_tokens = 5}, generator,
                        [&](std::span<const TokenId> prefix) {
                          if (++calls == 3) throw std::runtime_error("model failed");
                          return successor_logits(prefix);
                        }),
               std::runtime_error);
  EXPECT_EQ(generator.state(), 5u);
  // A row of the wrong length.
  EXPECT_EQ(capture_error<SamplingError>([&] {
              generate(5, 8, prompt, {.policy = policy, .max_new_tokens = 1}, generator,
                       [](std::span<const TokenId>) { return std::vector<double>(4, 0.0); });
            })->kind(),
            SamplingErrorKind::LogitCountMismatch);
}

}  // namespace
}  // namespace llm
