// Chapter 40's training run: the decoder trained on Tiny Shakespeare's
// windows, a checkpoint from which the run continues bit for bit, and the
// refusals of a checkpoint that belongs to another run.
#include "llm/training/train_run.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "support/test_support.hpp"
#include "training/small_train_run.hpp"

namespace llm {
namespace {

using testing::capture_error;
using testing::small_config;

std::shared_ptr<const TrainingText> shakespeare() {
  static const auto text = std::make_shared<const TrainingText>(
      TrainingText::from_text(read_verified_text(LLM_TINY_SHAKESPEARE, kTinyShakespeare), 0.9));
  return text;
}

std::vector<std::uint8_t> bytes_of(const TrainRun& run) {
  return run.checkpoint().encode().bytes;
}

TEST(TrainRun, ResumedRunEndsOnTheSameBits) {
  TrainRun straight = TrainRun::start(small_config(), shakespeare());
  std::vector<double> straight_losses;
  while (!straight.finished()) straight_losses.push_back(straight.update().loss);

  TrainRun first_half = TrainRun::start(small_config(), shakespeare());
  for (int i = 0; i < 3; ++i) first_half.update();
  // Through the file's bytes, as a new process would read them.
  const Checkpoint saved = Checkpoint::decode(bytes_of(first_half));
  TrainRun resumed = TrainRun::resume(small_config(), shakespeare(), saved, "saved");
  EXPECT_EQ(resumed.iteration(), 3u);
  EXPECT_EQ(resumed.data_stream_state(), first_half.data_stream_state());
  std::vector<double> resumed_losses;
  while (!resumed.finished()) resumed_losses.push_back(resumed.update().loss);

  EXPECT_EQ(resumed_losses,
            std::vector<double>(straight_losses.begin() + 3, straight_losses.end()));
  EXPECT_EQ(bytes_of(resumed), bytes_of(straight));  // parameters, moments, step, stream
  EXPECT_EQ(resumed.evaluate().validation_loss, straight.evaluate().validation_loss);
}

TEST(TrainRun, UpdatesFollowTheScheduleAndLowerTheLoss) {
  TrainRun run = TrainRun::start(small_config(), shakespeare());
  const double before = run.evaluate().train_loss;
  std::vector<UpdateReport> reports;
  while (!run.finished()) reports.push_back(run.update());
  ASSERT_EQ(reports.size(), 8u);
  for (const UpdateReport& report : reports) {
    EXPECT_EQ(report.learning_rate, small_config().learning_rate_at(report.iteration));
  }
  EXPECT_LT(run.evaluate().train_loss, before);
  EXPECT_EQ(run.checkpoint().selected_step(), 8u);
  const auto past_end = capture_error<TrainRunError>([&] { run.update(); });
  EXPECT_EQ(past_end->kind(), TrainRunErrorKind::RunFinished);
  EXPECT_EQ(past_end->evidence().iteration, 8u);
}

TEST(TrainRun, EvaluationDoesNotMoveTheRun) {
  TrainRun evaluated = TrainRun::start(small_config(), shakespeare());
  TrainRun plain = TrainRun::start(small_config(), shakespeare());
  evaluated.full_validation_loss();
  for (int i = 0; i < 4; ++i) {
    evaluated.evaluate();
    evaluated.update();
    plain.update();
  }
  EXPECT_EQ(bytes_of(evaluated), bytes_of(plain));
}

TEST(TrainRun, GainsDoNotDecay) {
  const TrainRun run = TrainRun::start(small_config(), shakespeare());
  const AdamWState state = run.checkpoint().optimizer_state();
  ASSERT_TRUE(state.groups.has_value());
  const std::vector<std::string> no_decay = state.groups->no_decay_names();
  EXPECT_EQ(no_decay, (std::vector<std::string>{"blocks.0.attention_norm.gain",
                                                "blocks.0.ffn_norm.gain", "final_norm.gain"}));
  EXPECT_EQ(state.groups->decay_names().size(), 8u);  // embedding, q k v o, gate up down
}

TEST(TrainRun, RefusesACheckpointOfAnotherRun) {
  TrainRun run = TrainRun::start(small_config(), shakespeare());
  run.update();
  const Checkpoint saved = run.checkpoint();
  TrainRunConfig wider = small_config();
  wider.feed_forward_width = 32;
  const auto error = capture_error<TrainRunError>(
      [&] { TrainRun::resume(wider, shakespeare(), saved, "run/checkpoint.llmcp"); });
  EXPECT_EQ(error->kind(), TrainRunErrorKind::CheckpointMismatch);
  EXPECT_EQ(error->evidence().key, "feed_forward_width");
  EXPECT_EQ(std::string(error->what()),
            "run/checkpoint.llmcp belongs to another run: its feed_forward_width is 24, this "
            "run's is 32");
  TrainRunConfig shorter = small_config();
  shorter.iterations = 1;
  TrainRun longer = TrainRun::start(small_config(), shakespeare());
  longer.update();
  longer.update();
  EXPECT_EQ(capture_error<TrainRunError>(
                [&] { TrainRun::resume(shorter, shakespeare(), longer.checkpoint(), "c"); })
                ->evidence()
                .key,
            "step");
  const auto other_text = std::make_shared<const TrainingText>(
      TrainingText::from_text("abcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabc", 0.5));
  EXPECT_EQ(capture_error<TrainRunError>(
                [&] { TrainRun::resume(small_config(), other_text, saved, "c"); })
                ->evidence()
                .key,
            "tokenizer");
}

TEST(TrainedDecoder, ReadsItsRunsBytesAndRefusesPiecesOutOfByteOrder) {
  const Checkpoint saved = TrainRun::start(small_config(), shakespeare()).checkpoint();
  EXPECT_EQ(TrainedDecoder::from_checkpoint(saved, "saved").vocabulary, shakespeare()->vocabulary);
  // The same decoder with its 65 one-byte pieces listed from the last byte down.
  std::vector<std::string> reversed = saved.tokenizer().literal_pieces();
  std::reverse(reversed.begin(), reversed.end());
  const Checkpoint reordered = Checkpoint::create(
      CheckpointTokenizer::literal(reversed), saved.model_config(), saved.parameters(),
      saved.optimizer_state(), saved.selected_step(), saved.generator_state());
  const auto error = capture_error<TrainRunError>(
      [&] { TrainedDecoder::from_checkpoint(reordered, "reordered.llmcp"); });
  EXPECT_EQ(error->kind(), TrainRunErrorKind::CheckpointMismatch);
  EXPECT_EQ(error->evidence().key, "tokenizer");
  EXPECT_STREQ(error->what(),
               "reordered.llmcp belongs to another run: its tokenizer is literal-u32 of 65 "
               "tokens, this run's is literal one-byte pieces in byte order");
}

}  // namespace
}  // namespace llm
