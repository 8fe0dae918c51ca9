// The worked examples of chapter 35: chapter 33's selected decoder, its
// AdamW state and a sampling generator's state written as one version-1
// checkpoint; the file read back and compared bit for bit (bytes, logits,
// one more update from the caller); five damaged or mismatched files
// refused; an atomic replacement; and what a bare parameter dump would
// have kept. Each returns plain data the demo prints.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "llm/models/decoder_model.hpp"
#include "llm/training/adamw.hpp"
#include "llm/training/checkpoint.hpp"

namespace ch35 {

// region: worked-inputs
/// The learning rate the caller chooses for the update after the checkpoint.
inline constexpr double kNextLearningRate = 0.006;
/// The sampling generator is seeded with 35 and has drawn once when saved.
inline constexpr std::uint64_t kSamplingSeed = 35;
/// The one-row batch [1, 2] the logits are compared on and the update reads.
inline const std::vector<llm::TokenId> kInputs = {0, 1};
inline const std::vector<llm::TokenId> kTargets = {1, 2};
/// Another batch, for the update that must diverge.
inline const std::vector<llm::TokenId> kOtherInputs = {1, 2};
inline const std::vector<llm::TokenId> kOtherTargets = {2, 3};
// endregion: worked-inputs

/// Chapter 33's selected state: configuration, parameters, optimizer, step.
struct SelectedState {
  llm::CheckpointModelConfig model;
  std::vector<llm::NamedValue> parameters;
  llm::AdamWState optimizer;
  std::uint64_t step = 0;
};
SelectedState selected_state();

/// The five literal pieces "0" .. "4" of the fixture's vocabulary.
llm::CheckpointTokenizer literal_tokenizer();

/// SplitMix64(35) after one draw: the state the checkpoint stores.
std::uint64_t saved_generator_state();

/// The checkpoint of `state` with the literal tokenizer and `generator_state`.
llm::Checkpoint checkpoint_of(const SelectedState& state, std::uint64_t generator_state);

/// The bits of every logit of `model` for kInputs, without a graph.
std::vector<std::uint64_t> logits_bits(const llm::DecoderModel& model);
/// The bits of every parameter value of `model`, in set order.
std::vector<std::uint64_t> parameter_bits(const llm::DecoderModel& model);
/// `fnv1a64:` and 16 hex digits of FNV-1a 64 over the bits' little-endian bytes.
std::string bits_fingerprint(const std::vector<std::uint64_t>& bits);

/// One update the caller makes after restoring: loss on the batch, backward,
/// AdamW at `learning_rate`, gradients cleared. Updates `model` and `optimizer`.
void caller_update(const llm::DecoderModel& model, llm::AdamW& optimizer,
                   const std::vector<llm::TokenId>& inputs,
                   const std::vector<llm::TokenId>& targets, double learning_rate);

/// Whether each damaged or mismatched file is refused with its own kind.
struct Refusals {
  bool version = false;
  bool vocabulary_mismatch = false;
  bool step_mismatch = false;
  bool truncation = false;
  bool checksum = false;
  std::vector<std::string> kinds;     ///< the error kind of each, in that order
  std::vector<std::string> messages;  ///< and its message
};
Refusals refusals(const SelectedState& state, const llm::EncodedCheckpoint& encoded);

/// Saving over an existing checkpoint in a fresh directory.
struct AtomicReplacement {
  bool replaced_complete_file = false;
  std::uint64_t loaded_generator_state = 0;
  std::size_t temporary_files = 0;
};
AtomicReplacement atomic_replacement(const SelectedState& state);

}  // namespace ch35
