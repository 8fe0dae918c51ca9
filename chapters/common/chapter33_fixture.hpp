// Chapter 33's training fixture, shared by its demo, by the chapters that
// start from its selected model (35-38) and by the tests that reproduce
// their printed numbers: a one-layer tied decoder (V 5, D 4, H 2, F 4,
// context 2, seed 33) trained for eight updates on two synthetic train
// documents with a four-level schedule and clipping at 0.35, scored at
// steps 0, 2, 4, 6 and 8. Its selected state (step 8) is the model chapter
// 35 saves, chapter 36 samples from and chapter 38 generates from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "llm/models/decoder_model.hpp"
#include "llm/training/trainable_decoder.hpp"
#include "llm/training/trainer.hpp"

namespace ch33 {

using llm::TokenId;

// region: chapter33-plan
/// One rate per update: 0.04 twice, then 0.025, 0.015 and 0.008 twice each.
inline const std::vector<double> kLearningRates = {0.04,  0.04,  0.025, 0.025,
                                                   0.015, 0.015, 0.008, 0.008};
/// The steps after which train and validation loss are measured (0: before any update).
inline const std::vector<std::size_t> kValidationSteps = {0, 2, 4, 6, 8};
/// The ceiling on the global gradient norm.
inline constexpr double kMaxGradientNorm = 0.35;
inline constexpr std::uint64_t kInitSeed = 33;
inline constexpr std::uint64_t kShuffleSeed = 33;
// endregion: chapter33-plan

// region: chapter33-documents
/// Two train documents cycle through all five tokens from different starts;
/// validation is one more cycle and one document of a single repeated token.
inline const std::vector<TokenId> kTrainA = {0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1};
inline const std::vector<TokenId> kTrainB = {2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3};
inline const std::vector<TokenId> kValidationA = {0, 1, 2, 3, 4, 0, 1, 2, 3};
inline const std::vector<TokenId> kValidationB = {0, 0, 0, 0, 0, 0, 0, 0, 0};
// endregion: chapter33-documents

/// V 5, D 4, 1 layer, H 2, F 4, context 2, RoPE base 10000, epsilon 1e-6, tied.
inline llm::DecoderConfig model_config() {
  return llm::DecoderConfig{
      .vocabulary_size = 5,
      .layers = 1,
      .block = {.model_width = 4, .heads = 2, .feed_forward_width = 4, .context = 2},
      .head = llm::HeadTying::Tied};
}

// region: chapter33-epochs
/// Windows of two tokens with stride 1 over two documents of `partition`.
inline llm::MiniBatchEpoch epoch(llm::Partition partition, const std::string& prefix,
                                 const std::vector<TokenId>& a, const std::vector<TokenId>& b,
                                 std::size_t batch_size, llm::BatchOrder order) {
  const std::vector<llm::BatchDocument> documents = {{prefix + "-a", partition, a},
                                                     {prefix + "-b", partition, b}};
  return llm::MiniBatchEpoch::build(partition, documents, llm::CausalWindowConfig::create(2, 1),
                                    llm::MiniBatchConfig::create(batch_size, order));
}

/// The update epoch: 20 windows, shuffled with seed 33, in 10 batches of 2.
inline llm::MiniBatchEpoch updates() {
  return epoch(llm::Partition::Train, "train", kTrainA, kTrainB, 2,
               llm::BatchOrder::shuffled(kShuffleSeed));
}
/// The same 20 windows in order, in batches of 5, for the train loss.
inline llm::MiniBatchEpoch train_evaluation() {
  return epoch(llm::Partition::Train, "train", kTrainA, kTrainB, 5, llm::BatchOrder::sequential());
}
/// 14 validation windows in batches of 4.
inline llm::MiniBatchEpoch validation() {
  return epoch(llm::Partition::Validation, "validation", kValidationA, kValidationB, 4,
               llm::BatchOrder::sequential());
}
// endregion: chapter33-epochs

/// A fresh model drawn from seed 33.
inline llm::DecoderModel initial_model() {
  llm::SplitMix64 generator(kInitSeed);
  return llm::DecoderModel::initialized(model_config(), generator);
}

// region: chapter33-optimizer
/// AdamW at 0.04 (the schedule overrides it per step), betas 0.9 and 0.999,
/// epsilon 1e-8, weight decay 0.01 on every parameter but the RMSNorm gains.
inline llm::AdamW fresh_optimizer(const llm::DecoderModel& model) {
  return llm::AdamW(
      llm::AdamWConfig::create(kLearningRates[0], 0.9, 0.999, 1e-8, 0.01),
      llm::AdamWParameterGroups::partition(
          model.parameters(), [](std::string_view name) { return !name.ends_with(".gain"); }));
}

inline llm::TrainerConfig trainer_config() {
  return llm::TrainerConfig::create(llm::LearningRateSchedule::create(kLearningRates),
                                    kValidationSteps, kMaxGradientNorm);
}

/// The whole run on `model` (updated in place).
inline llm::TrainingRun train(const llm::DecoderModel& model) {
  return llm::train_with_selection(llm::trainable_decoder(model), fresh_optimizer(model), updates(),
                                   train_evaluation(), validation(), trainer_config());
}
// endregion: chapter33-optimizer

/// A fresh seed-33 model trained through the whole run.
inline llm::TrainingRun run() {
  return train(initial_model());
}

}  // namespace ch33
