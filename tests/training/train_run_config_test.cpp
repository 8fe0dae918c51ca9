// Chapter 40's run configuration: nanoGPT's CPU defaults, a reader's JSON
// overrides refused with the key named, and nanoGPT's learning-rate schedule.
#include "llm/training/train_run_config.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;

TrainRunError config_error(const std::string& json) {
  return *capture_error<TrainRunError>([&] { TrainRunConfig::from_json(json, "my.json"); });
}

TEST(TrainRunConfig, DefaultsAreNanoGptsCpuRun) {
  const TrainRunConfig config;
  EXPECT_EQ(config.context, 64u);
  EXPECT_EQ(config.batch_size, 12u);
  EXPECT_EQ(config.layers, 4u);
  EXPECT_EQ(config.heads, 4u);
  EXPECT_EQ(config.model_width, 128u);
  EXPECT_EQ(config.iterations, 2000u);
  EXPECT_EQ(config.decay_iterations, 2000u);
  EXPECT_EQ(config.warmup_iterations, 100u);
  EXPECT_EQ(config.learning_rate, 1e-3);
  EXPECT_EQ(config.min_learning_rate, 1e-4);
  EXPECT_EQ(config.beta2, 0.99);
  EXPECT_EQ(config.weight_decay, 0.1);
  EXPECT_EQ(config.gradient_clip, 1.0);
  EXPECT_EQ(config.eval_interval, 250u);
  EXPECT_EQ(config.eval_batches, 20u);
  EXPECT_NO_THROW(config.validate());
}

TEST(TrainRunConfig, JsonOverridesOnlyTheKeysGiven) {
  const TrainRunConfig config =
      TrainRunConfig::from_json(R"({"layers": 2, "learning_rate": 0.002})", "my.json");
  TrainRunConfig expected;
  expected.layers = 2;
  expected.learning_rate = 0.002;
  EXPECT_EQ(config, expected);
  EXPECT_EQ(TrainRunConfig::from_json("{}", "empty.json"), TrainRunConfig{});
}

TEST(TrainRunConfig, ToJsonReadsBackEqual) {
  TrainRunConfig config;
  config.feed_forward_width = 512;
  config.data_seed = 18'446'744'073'709'551'615u;  // the largest seed survives JSON
  config.rms_epsilon = 1e-5;
  config.bpe_merges = 512;
  EXPECT_EQ(TrainRunConfig::from_json(config.to_json(), "log"), config);
  EXPECT_NE(config.to_json().find("\"bpe_merges\": 512"), std::string::npos);
}

TEST(TrainRunConfig, BpeMergesAreZeroOrABoundedCount) {
  EXPECT_EQ(TrainRunConfig{}.bpe_merges, 0u);  // the character-level run
  EXPECT_EQ(TrainRunConfig::from_json(R"({"bpe_merges": 512})", "bpe.json").bpe_merges, 512u);
  EXPECT_EQ(TrainRunConfig::from_json(R"({"bpe_merges": 4096})", "bpe.json").bpe_merges, 4096u);
  const TrainRunError above = config_error(R"({"bpe_merges": 4097})");
  EXPECT_EQ(above.kind(), TrainRunErrorKind::OutOfRange);
  EXPECT_EQ(above.evidence().key, "bpe_merges");
  EXPECT_EQ(std::string(above.what()),
            "my.json: \"bpe_merges\" must be at most 4096 (0: the text's bytes are the tokens), "
            "got 4097");
  const TrainRunError negative = config_error(R"({"bpe_merges": -1})");
  EXPECT_EQ(negative.kind(), TrainRunErrorKind::WrongType);
  EXPECT_EQ(std::string(negative.what()),
            "my.json: \"bpe_merges\" must be a non-negative integer, got -1");
  EXPECT_EQ(config_error(R"({"bpe_merges": "512"})").evidence().key, "bpe_merges");
}

TEST(TrainRunConfig, CommittedBytePairRunChangesOnlyTheTokenizer) {
  const std::filesystem::path path =
      std::filesystem::path(LLM_TINY_SHAKESPEARE).parent_path() / "bpe.json";
  std::ifstream file(path);
  ASSERT_TRUE(file) << path;
  std::stringstream text;
  text << file.rdbuf();
  TrainRunConfig expected;  // nanoGPT's CPU run, byte-pair tokens
  expected.bpe_merges = 512;
  EXPECT_EQ(TrainRunConfig::from_json(text.str(), path.string()), expected);
}

TEST(TrainRunConfig, UnknownKeyIsNamed) {
  const TrainRunError error = config_error(R"({"n_layer": 4})");
  EXPECT_EQ(error.kind(), TrainRunErrorKind::UnknownKey);
  EXPECT_EQ(error.evidence().key, "n_layer");
  EXPECT_EQ(std::string(error.what()),
            "my.json: \"n_layer\" is not a setting (docs/training-run.md lists them)");
}

TEST(TrainRunConfig, WrongTypesAreNamed) {
  const TrainRunError negative = config_error(R"({"layers": -1})");
  EXPECT_EQ(negative.kind(), TrainRunErrorKind::WrongType);
  EXPECT_EQ(std::string(negative.what()),
            "my.json: \"layers\" must be a non-negative integer, got -1");
  EXPECT_EQ(config_error(R"({"layers": 2.5})").kind(), TrainRunErrorKind::WrongType);
  EXPECT_EQ(config_error(R"({"learning_rate": "1e-3"})").evidence().key, "learning_rate");
}

TEST(TrainRunConfig, RulesNameTheKey) {
  EXPECT_EQ(config_error(R"({"heads": 3})").evidence().key, "model_width");  // 128 % 3
  EXPECT_EQ(config_error(R"({"heads": 128})").evidence().key, "heads");      // head width 1
  EXPECT_EQ(config_error(R"({"beta2": 1})").evidence().key, "beta2");
  EXPECT_EQ(config_error(R"({"min_learning_rate": 0.01})").evidence().key, "min_learning_rate");
  EXPECT_EQ(config_error(R"({"warmup_iterations": 2000})").evidence().key, "warmup_iterations");
  const TrainRunError zero = config_error(R"({"batch_size": 0})");
  EXPECT_EQ(zero.kind(), TrainRunErrorKind::OutOfRange);
  EXPECT_EQ(std::string(zero.what()), "my.json: \"batch_size\" must be at least 1, got 0");
}

TEST(TrainRunConfig, RefusesBadJsonRepeatedKeysAndNonObjects) {
  EXPECT_EQ(config_error("{\"layers\": 2,").kind(), TrainRunErrorKind::InvalidJson);
  const TrainRunError twice = config_error(R"({"layers": 2, "layers": 3})");
  EXPECT_EQ(twice.kind(), TrainRunErrorKind::InvalidJson);
  EXPECT_NE(twice.evidence().rule.find("\"layers\" appears twice"), std::string::npos);
  EXPECT_EQ(config_error("[1, 2]").kind(), TrainRunErrorKind::NotAnObject);
}

TEST(TrainRunConfig, LearningRateFollowsNanoGptGetLr) {
  const TrainRunConfig config;
  EXPECT_DOUBLE_EQ(config.learning_rate_at(0), 1e-3 / 101.0);  // warm-up starts above zero
  EXPECT_DOUBLE_EQ(config.learning_rate_at(99), 1e-3 * 100.0 / 101.0);
  EXPECT_EQ(config.learning_rate_at(100), 1e-3);            // cos(0) = 1: the peak exactly
  EXPECT_DOUBLE_EQ(config.learning_rate_at(1050), 5.5e-4);  // half way down the cosine
  EXPECT_DOUBLE_EQ(config.learning_rate_at(2000), 1e-4);
  EXPECT_EQ(config.learning_rate_at(2001), 1e-4);
  EXPECT_GT(config.learning_rate_at(575), config.learning_rate_at(576));
}

}  // namespace
}  // namespace llm
