// Chapter 40's training run: the decoder trained on Tiny Shakespeare's
// windows, a checkpoint from which the run continues bit for bit, and the
// refusals of a checkpoint that belongs to another run.
#include "llm/training/train_run.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "llm/tensor/parallel.hpp"
#include "llm/tensor/tensor.hpp"
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

// The first 20,000 bytes of Tiny Shakespeare: 32 merges learn in a blink.
std::shared_ptr<const TrainingText> shakespeare_byte_pair(std::size_t merges) {
  static const std::string prefix =
      read_verified_text(LLM_TINY_SHAKESPEARE, kTinyShakespeare).substr(0, 20'000);
  return std::make_shared<const TrainingText>(TrainingText::from_text(prefix, 0.9, merges));
}

TrainRunConfig small_byte_pair_config(std::size_t merges) {
  TrainRunConfig config = small_config();
  config.bpe_merges = merges;
  return config;
}

std::string bytes_text(const std::vector<std::uint8_t>& bytes) {
  return {bytes.begin(), bytes.end()};
}

TEST(TrainingText, ByteRunKeepsTheTextsBytes) {
  const TrainingText text = TrainingText::from_text("banana!", 0.5);  // "ban" | "ana!"
  EXPECT_FALSE(text.byte_pair.has_value());
  EXPECT_EQ(text.vocabulary_size(), 4u);  // ! a b n
  EXPECT_EQ(text.merge_count(), 0u);
  EXPECT_EQ(text.train, (std::vector<TokenId>{2, 1, 3}));
  EXPECT_EQ(text.validation, (std::vector<TokenId>{1, 3, 1, 0}));
  EXPECT_EQ(text.byte_length(text.validation), 4u);
  EXPECT_EQ(text.validation_bytes, 4u);
  EXPECT_EQ(text.checkpoint_tokenizer(), CheckpointTokenizer::literal({"!", "a", "b", "n"}));
}

TEST(TrainingText, BytePairLearnsFromTheTrainingPartOnly) {
  // 192 training bytes, then 64 of a pair that occurs 32 times: more often
  // than any training pair, so a trainer that read the validation part would
  // merge (x,q) first.
  std::string training, validation;
  for (int i = 0; i < 8; ++i) training += "the cat sat on the mat. ";
  for (int i = 0; i < 32; ++i) validation += "xq";
  const std::string whole = training + validation;
  std::vector<std::vector<TokenId>> everything{bytes_to_tokens(whole)};
  EXPECT_EQ(learn_merges(1, {"whole"}, everything).rules().at(0).pair, (TokenPair{'x', 'q'}));

  const TrainingText text = TrainingText::from_text(whole, 0.75, 20);  // cut at 192
  ASSERT_TRUE(text.byte_pair.has_value());
  EXPECT_EQ(text.merge_count(), 20u);
  EXPECT_EQ(text.vocabulary_size(), 278u);  // BOS, EOS, 256 bytes, 20 merges
  EXPECT_EQ(bytes_text(text.byte_pair->decode_content(text.train)), training);
  EXPECT_LT(text.train.size(), training.size());
  for (const BpeMergeRule& rule : text.byte_pair->merge_rules()) {
    const auto bytes = text.byte_pair->token_bytes(rule.content_token_id);
    ASSERT_TRUE(bytes.has_value());
    const std::string piece(bytes->begin(), bytes->end());
    EXPECT_EQ(piece.find_first_of("xq"), std::string::npos) << "merge " << rule.rank;
  }
  // No merge applies to the validation part: one byte token per byte.
  std::vector<TokenId> byte_tokens;
  for (char byte : validation) {
    byte_tokens.push_back(kFirstByteTokenId + static_cast<unsigned char>(byte));
  }
  EXPECT_EQ(text.validation, byte_tokens);
  EXPECT_EQ(text.byte_length(text.train), 192u);
  EXPECT_EQ(text.byte_length(text.validation), 64u);
  const auto control = capture_error<TokenizerError>(
      [&] { text.byte_length(std::vector<TokenId>{kBosTokenId}); });  // it stands for no bytes
  EXPECT_EQ(control->kind(), TokenizerErrorKind::ControlTokenInContent);
  const auto unknown =
      capture_error<TokenizerError>([&] { text.byte_length(std::vector<TokenId>{278}); });
  EXPECT_EQ(unknown->kind(), TokenizerErrorKind::UnknownToken);
}

TEST(TrainRun, BytePairCheckpointHoldsTheMerges) {
  const auto text = shakespeare_byte_pair(32);
  const TrainRun run = TrainRun::start(small_byte_pair_config(32), text);
  const Checkpoint saved = Checkpoint::decode(bytes_of(run));
  const CheckpointTokenizer& tokenizer = saved.tokenizer();
  EXPECT_EQ(tokenizer.kind(), CheckpointTokenizer::Kind::BytePair);
  std::vector<TokenPair> merges;
  for (const BpeMergeRule& rule : text->byte_pair->merge_rules()) {
    merges.push_back(rule.training_pair);
  }
  EXPECT_EQ(tokenizer.merges(), merges);
  EXPECT_EQ(tokenizer.vocabulary_size(), 290u);
  EXPECT_EQ(saved.model_config().vocabulary_size, 290u);
  EXPECT_EQ(run.model().config().vocabulary_size, 290u);
  EXPECT_EQ(tokenizer.bpe()->encode_content("ROMEO:"), text->byte_pair->encode_content("ROMEO:"));
}

TEST(TrainRun, BytePairRunResumesOnTheSameBits) {
  const TrainRunConfig config = small_byte_pair_config(32);
  TrainRun straight = TrainRun::start(config, shakespeare_byte_pair(32));
  std::vector<double> straight_losses;
  while (!straight.finished()) straight_losses.push_back(straight.update().loss);

  TrainRun first_half = TrainRun::start(config, shakespeare_byte_pair(32));
  for (int i = 0; i < 3; ++i) first_half.update();
  const Checkpoint saved = Checkpoint::decode(bytes_of(first_half));
  // A new process learns the merges again from the same text.
  TrainRun resumed = TrainRun::resume(config, shakespeare_byte_pair(32), saved, "saved");
  std::vector<double> resumed_losses;
  while (!resumed.finished()) resumed_losses.push_back(resumed.update().loss);

  EXPECT_EQ(resumed_losses,
            std::vector<double>(straight_losses.begin() + 3, straight_losses.end()));
  EXPECT_EQ(bytes_of(resumed), bytes_of(straight));
  const FullValidationReport resumed_full = resumed.full_validation();
  const FullValidationReport straight_full = straight.full_validation();
  EXPECT_EQ(resumed_full.loss, straight_full.loss);
  EXPECT_EQ(resumed_full.nats_per_byte, straight_full.nats_per_byte);
}

TEST(TrainRun, RefusesACheckpointOfAnotherTokenizer) {
  const Checkpoint merges32 =
      TrainRun::start(small_byte_pair_config(32), shakespeare_byte_pair(32)).checkpoint();
  const auto fewer = capture_error<TrainRunError>([&] {
    TrainRun::resume(small_byte_pair_config(16), shakespeare_byte_pair(16), merges32,
                     "run/checkpoint.llmcp");
  });
  EXPECT_EQ(fewer->kind(), TrainRunErrorKind::CheckpointMismatch);
  EXPECT_EQ(fewer->evidence().key, "bpe_merges");
  EXPECT_EQ(std::string(fewer->what()),
            "run/checkpoint.llmcp belongs to another run: its bpe_merges is 32, this run's is 16");

  // A byte run's checkpoint, and a BPE run's read by a byte run.
  const Checkpoint bytes = TrainRun::start(small_config(), shakespeare()).checkpoint();
  const auto from_bytes = capture_error<TrainRunError>(
      [&] { TrainRun::resume(small_byte_pair_config(32), shakespeare_byte_pair(32), bytes, "c"); });
  EXPECT_EQ(std::string(from_bytes->what()),
            "c belongs to another run: its bpe_merges is 0, this run's is 32");
  EXPECT_EQ(capture_error<TrainRunError>(
                [&] { TrainRun::resume(small_config(), shakespeare(), merges32, "c"); })
                ->evidence()
                .key,
            "bpe_merges");

  // As many merges, learned from another text.
  const auto other_text = std::make_shared<const TrainingText>(TrainingText::from_text(
      read_verified_text(LLM_TINY_SHAKESPEARE, kTinyShakespeare).substr(50'000, 20'000), 0.9, 32));
  const auto other = capture_error<TrainRunError>(
      [&] { TrainRun::resume(small_byte_pair_config(32), other_text, merges32, "c"); });
  EXPECT_EQ(other->kind(), TrainRunErrorKind::CheckpointMismatch);
  EXPECT_EQ(other->evidence().key, "tokenizer");
  EXPECT_EQ(std::string(other->what()),  // "t " against "ou", in chapter 3's training IDs
            "c belongs to another run: its tokenizer is merge 2 (116,32), this run's is merge 2 "
            "(111,117)");
}

TEST(TrainRun, RefusesATextOfAnotherTokenizer) {
  const auto error = capture_error<TrainRunError>(
      [&] { TrainRun::start(small_config(), shakespeare_byte_pair(32)); });
  EXPECT_EQ(error->kind(), TrainRunErrorKind::OutOfRange);
  EXPECT_EQ(std::string(error->what()),
            "the configuration: \"bpe_merges\" must be the 32 merges the text was encoded with, "
            "got 0");
  EXPECT_EQ(capture_error<TrainRunError>(
                [&] { TrainRun::start(small_byte_pair_config(32), shakespeare()); })
                ->evidence()
                .key,
            "bpe_merges");
}

TEST(TrainRun, NatsPerByteOfAByteRunAreItsLoss) {
  TrainRun run = TrainRun::start(small_config(), shakespeare());
  for (int i = 0; i < 2; ++i) run.update();
  const FullValidationReport full = run.full_validation();
  EXPECT_EQ(full.windows, 6'971u);  // floor((111,540 - 1) / 16)
  EXPECT_EQ(full.targets, 6'971u * 16u);
  EXPECT_EQ(full.target_bytes, full.targets);
  EXPECT_EQ(shakespeare()->validation_bytes, 111'540u);  // a byte run: one token per byte
  EXPECT_EQ(full.nats_per_byte, full.loss);              // bit for bit
  EXPECT_GT(full.loss, 0.0);
}

TEST(TrainRun, NatsPerByteCountTheTargetsBytes) {
  // Training "ab" x 10 learns one merge, ab = 258. The validation part
  // "abb" x 10 encodes as [258, 100] x 10: tokens of 2 and 1 bytes.
  std::string whole;
  for (int i = 0; i < 10; ++i) whole += "ab";
  for (int i = 0; i < 10; ++i) whole += "abb";
  const auto text = std::make_shared<const TrainingText>(TrainingText::from_text(whole, 0.4, 1));
  ASSERT_EQ(text->validation.size(), 20u);
  EXPECT_EQ(text->validation_bytes, 30u);  // "abb" x 10
  EXPECT_EQ(text->byte_length(text->validation), 30u);
  TrainRunConfig config = small_byte_pair_config(1);
  config.context = 2;
  TrainRun run = TrainRun::start(config, text);
  // A zero final gain zeroes the last hidden state, so every logit is 0 and
  // every target costs ln V nats, V = 259.
  std::vector<NamedValue> values = run.model().parameters().named_values();
  for (NamedValue& value : values) {
    if (value.name == "final_norm.gain") value.value = Tensor::zeros(value.value.shape());
  }
  run.model().parameters().load(values);

  const FullValidationReport full = run.full_validation();
  // Windows at 0, 2, ..., 16 (k T + T + 1 <= 20): 9, each predicting
  // tokens 2k + 1 and 2k + 2, which are [100, 258]: 3 bytes.
  EXPECT_EQ(full.windows, 9u);
  EXPECT_EQ(full.targets, 18u);
  EXPECT_EQ(full.target_bytes, 27u);
  EXPECT_NEAR(full.loss, std::log(259.0), 1e-14);
  EXPECT_NEAR(full.nats_per_byte, std::log(259.0) * 18.0 / 27.0, 1e-14);
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

// Chapter 40's width and context with one block and batches of 4: large
// enough that every split kernel cuts its work into pieces (activations of
// 32,768 values, feed-forward activations of 88,064, attention weights of
// 65,536, a feed-forward weight of 44,032 for AdamW), small enough for a test.
TrainRunConfig split_sized_config() {
  TrainRunConfig config;
  config.layers = 1;
  config.batch_size = 4;
  config.iterations = 3;
  config.warmup_iterations = 1;
  config.decay_iterations = 3;
  config.eval_batches = 1;
  return config;
}

TEST(TrainRun, ThreadCountDoesNotChangeABit) {
  const std::size_t previous = set_thread_count(1);
  TrainRun alone = TrainRun::start(split_sized_config(), shakespeare());
  std::vector<double> alone_losses;
  while (!alone.finished()) alone_losses.push_back(alone.update().loss);
  for (std::size_t threads : {2, 3}) {
    set_thread_count(threads);
    TrainRun split = TrainRun::start(split_sized_config(), shakespeare());
    std::vector<double> split_losses;
    while (!split.finished()) split_losses.push_back(split.update().loss);
    EXPECT_EQ(split_losses, alone_losses) << threads << " threads";
    EXPECT_EQ(bytes_of(split), bytes_of(alone)) << threads << " threads";
  }
  set_thread_count(previous);
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
  evaluated.full_validation();
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
