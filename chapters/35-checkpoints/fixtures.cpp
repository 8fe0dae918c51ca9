#include "fixtures.hpp"

#include <unistd.h>

#include <bit>
#include <cstdio>
#include <filesystem>
#include <span>
#include <stdexcept>

#include "chapter35_file.hpp"
#include "llm/autograd/tensor_value.hpp"
#include "llm/training/checkpoint_error.hpp"

namespace ch35 {

using llm::Checkpoint;
using llm::CheckpointError;
using llm::CheckpointErrorKind;

namespace {

constexpr std::uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ULL;
constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;
constexpr std::size_t kVersionOffset = 8;
constexpr std::size_t kChecksumOffset = 30;
constexpr std::size_t kSelectedStepOffset = 42;

void put_little_endian(std::vector<std::uint8_t>& bytes, std::size_t offset, std::uint64_t value,
                       std::size_t width) {
  for (std::size_t i = 0; i < width; ++i) bytes[offset + i] = (value >> (8 * i)) & 0xff;
}

/// Runs `attempt` and records the kind of the CheckpointError it throws;
/// true when that kind is `expected`.
template <class Attempt>
bool refused_as(CheckpointErrorKind expected, Attempt&& attempt, Refusals& refusals) {
  try {
    attempt();
  } catch (const CheckpointError& error) {
    refusals.kinds.emplace_back(error.kind_name());
    refusals.messages.emplace_back(error.what());
    return error.kind() == expected;
  }
  refusals.kinds.emplace_back("accepted");
  refusals.messages.emplace_back("");
  return false;
}

}  // namespace

// region: selected-state
SelectedState selected_state() {
  // Chapter 33's run as the reference edition stored it (see
  // chapters/common/chapter35_file.hpp for why the book reads its file).
  const Checkpoint stored = Checkpoint::decode(demo::chapter35_checkpoint_bytes());
  return SelectedState{stored.model_config(), stored.parameters(), stored.optimizer_state(),
                       stored.selected_step()};
}
// endregion: selected-state

llm::CheckpointTokenizer literal_tokenizer() {
  return llm::CheckpointTokenizer::literal({"0", "1", "2", "3", "4"});
}

std::uint64_t saved_generator_state() {
  llm::SplitMix64 generator(kSamplingSeed);
  generator.next_u64();
  return generator.state();
}

// region: create-checkpoint
Checkpoint checkpoint_of(const SelectedState& state, std::uint64_t generator_state) {
  return Checkpoint::create(literal_tokenizer(), state.model, state.parameters, state.optimizer,
                            state.step, generator_state);
}
// endregion: create-checkpoint

std::vector<std::uint64_t> logits_bits(const llm::DecoderModel& model) {
  const llm::NoGradScope inference;
  const llm::SharedTensor logits = model.forward(kInputs, {1, kInputs.size()}).value();
  std::vector<std::uint64_t> bits;
  for (double value : logits.contiguous_values())
    bits.push_back(std::bit_cast<std::uint64_t>(value));
  return bits;
}

std::vector<std::uint64_t> parameter_bits(const llm::DecoderModel& model) {
  std::vector<std::uint64_t> bits;
  for (const llm::NamedParameter& entry : model.parameters()) {
    const llm::SharedTensor value = entry.parameter.value();
    for (double element : value.contiguous_values())
      bits.push_back(std::bit_cast<std::uint64_t>(element));
  }
  return bits;
}

std::string bits_fingerprint(const std::vector<std::uint64_t>& bits) {
  std::uint64_t hash = kFnvOffsetBasis;
  for (std::uint64_t value : bits) {
    for (int byte = 0; byte < 8; ++byte) hash = (hash ^ ((value >> (8 * byte)) & 0xff)) * kFnvPrime;
  }
  char text[32];
  std::snprintf(text, sizeof text, "fnv1a64:%016llx", static_cast<unsigned long long>(hash));
  return text;
}

// region: caller-update
void caller_update(const llm::DecoderModel& model, llm::AdamW& optimizer,
                   const std::vector<llm::TokenId>& inputs,
                   const std::vector<llm::TokenId>& targets, double learning_rate) {
  const llm::TensorValue loss = model.loss(inputs, {1, inputs.size()}, targets);
  loss.backward();
  optimizer.step(model.parameters(), {.learning_rate = learning_rate});
  model.parameters().zero_grad();
}
// endregion: caller-update

// region: refusals
Refusals refusals(const SelectedState& state, const llm::EncodedCheckpoint& encoded) {
  Refusals result;
  std::vector<std::uint8_t> newer = encoded.bytes;
  put_little_endian(newer, kVersionOffset, 2, 2);
  result.version = refused_as(
      CheckpointErrorKind::UnsupportedVersion, [&] { Checkpoint::decode(newer); }, result);

  const SelectedState& s = state;
  result.vocabulary_mismatch = refused_as(
      CheckpointErrorKind::VocabularyMismatch,
      [&] {
        Checkpoint::create(llm::CheckpointTokenizer::literal({"x"}), s.model, s.parameters,
                           s.optimizer, s.step, saved_generator_state());
      },
      result);

  // A selected step that disagrees with the optimizer's, under a valid
  // checksum: only the meaning of the file is wrong.
  std::vector<std::uint8_t> later = encoded.bytes;
  put_little_endian(later, kSelectedStepOffset, state.step + 1, 8);
  put_little_endian(later, kChecksumOffset, llm::checkpoint_checksum(later), 8);
  result.step_mismatch = refused_as(
      CheckpointErrorKind::StepMismatch, [&] { Checkpoint::decode(later); }, result);

  const std::span<const std::uint8_t> shorter(encoded.bytes.data(), encoded.bytes.size() - 1);
  result.truncation = refused_as(
      CheckpointErrorKind::FileLengthMismatch, [&] { Checkpoint::decode(shorter); }, result);

  std::vector<std::uint8_t> flipped = encoded.bytes;
  flipped.back() ^= 1;
  result.checksum = refused_as(
      CheckpointErrorKind::ChecksumMismatch, [&] { Checkpoint::decode(flipped); }, result);
  return result;
}
// endregion: refusals

// region: atomic-replacement
AtomicReplacement atomic_replacement(const SelectedState& state) {
  namespace fs = std::filesystem;
  std::string pattern = (fs::temp_directory_path() / "llm-ch35-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create " + pattern);
  const fs::path directory = pattern;
  const std::string path = (directory / "selected.llmcp").string();
  AtomicReplacement result;
  try {
    checkpoint_of(state, saved_generator_state()).save(path);
    const Checkpoint replacement = checkpoint_of(state, saved_generator_state() + 1);
    replacement.save(path);  // over the first file
    const Checkpoint loaded = Checkpoint::load(path);
    result.replaced_complete_file = loaded == replacement;
    result.loaded_generator_state = loaded.generator_state();
    for (const fs::directory_entry& entry : fs::directory_iterator(directory))
      result.temporary_files += entry.path().filename() != "selected.llmcp";
  } catch (...) {
    fs::remove_all(directory);
    throw;
  }
  fs::remove_all(directory);
  return result;
}
// endregion: atomic-replacement

}  // namespace ch35
