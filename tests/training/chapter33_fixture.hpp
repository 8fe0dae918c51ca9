// Chapter 33's training fixture, shared by the tests that reproduce chapters
// 33-38's printed numbers: a one-layer tied decoder (V 5, D 4, H 2, F 4,
// context 2, seed 33) trained for eight updates on two synthetic train
// documents with a four-step schedule and clipping at 0.35, validated at
// steps 0, 2, 4, 6, 8. Its selected state (step 8) is the model chapter 35
// saves, chapter 36 samples from and chapter 38 generates from.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "llm/models/decoder_model.hpp"
#include "llm/training/trainable_decoder.hpp"
#include "llm/training/trainer.hpp"

namespace llm::testing::chapter33 {

inline const std::vector<double> kLearningRates = {0.04,  0.04,  0.025, 0.025,
                                                   0.015, 0.015, 0.008, 0.008};
inline const std::vector<std::size_t> kValidationSteps = {0, 2, 4, 6, 8};
inline constexpr double kMaxGradientNorm = 0.35;
inline constexpr std::uint64_t kInitSeed = 33;
inline constexpr std::uint64_t kShuffleSeed = 33;

inline const std::vector<TokenId> kTrainA = {0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1};
inline const std::vector<TokenId> kTrainB = {2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3};
inline const std::vector<TokenId> kValidationA = {0, 1, 2, 3, 4, 0, 1, 2, 3};
inline const std::vector<TokenId> kValidationB = {0, 0, 0, 0, 0, 0, 0, 0, 0};

/// V 5, D 4, 1 layer, H 2, F 4, context 2, RoPE base 10000, epsilon 1e-6, tied.
inline DecoderConfig model_config() {
  return DecoderConfig{
      .vocabulary_size = 5,
      .layers = 1,
      .block = {.model_width = 4, .heads = 2, .feed_forward_width = 4, .context = 2},
      .head = HeadTying::Tied};
}

/// Windows of two tokens with stride 1 over two documents of `partition`.
inline MiniBatchEpoch epoch(Partition partition, const std::string& prefix,
                            const std::vector<TokenId>& a, const std::vector<TokenId>& b,
                            std::size_t batch_size, BatchOrder order) {
  const std::vector<BatchDocument> documents = {{prefix + "-a", partition, a},
                                                {prefix + "-b", partition, b}};
  return MiniBatchEpoch::build(partition, documents, CausalWindowConfig::create(2, 1),
                               MiniBatchConfig::create(batch_size, order));
}

/// The update epoch: 20 windows, shuffled with seed 33, in 10 batches of 2.
inline MiniBatchEpoch updates() {
  return epoch(Partition::Train, "train", kTrainA, kTrainB, 2, BatchOrder::shuffled(kShuffleSeed));
}
/// The same 20 windows in order, in batches of 5, for the train loss.
inline MiniBatchEpoch train_evaluation() {
  return epoch(Partition::Train, "train", kTrainA, kTrainB, 5, BatchOrder::sequential());
}
/// 14 validation windows in batches of 4.
inline MiniBatchEpoch validation() {
  return epoch(Partition::Validation, "validation", kValidationA, kValidationB, 4,
               BatchOrder::sequential());
}

/// A fresh model drawn from seed 33.
inline DecoderModel initial_model() {
  SplitMix64 generator(kInitSeed);
  return DecoderModel::initialized(model_config(), generator);
}

/// AdamW at 0.04 (the schedule overrides it per step), betas 0.9 and 0.999,
/// epsilon 1e-8, weight decay 0.01 on every parameter but the RMSNorm gains.
inline AdamW fresh_optimizer(const DecoderModel& model) {
  return AdamW(AdamWConfig::create(kLearningRates[0], 0.9, 0.999, 1e-8, 0.01),
               AdamWParameterGroups::partition(model.parameters(), [](std::string_view name) {
                 return !name.ends_with(".gain");
               }));
}

inline TrainerConfig trainer_config() {
  return TrainerConfig::create(LearningRateSchedule::create(kLearningRates), kValidationSteps,
                               kMaxGradientNorm);
}

/// The whole run on `model` (updated in place).
inline TrainingRun train(const DecoderModel& model) {
  return train_with_selection(trainable_decoder(model), fresh_optimizer(model), updates(),
                              train_evaluation(), validation(), trainer_config());
}

/// A fresh seed-33 model trained through the whole run.
inline TrainingRun run() {
  return train(initial_model());
}

}  // namespace llm::testing::chapter33
