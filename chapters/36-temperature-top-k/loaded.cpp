// Chapter 35's checkpoint read back and made to generate: the decoder is
// rebuilt from the file, the generator resumes from the state the file
// stores, and every step recomputes the whole prefix (the uncached loop).
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "chapter35_file.hpp"
#include "fixtures.hpp"
#include "llm/autograd/tensor_value.hpp"
#include "llm/models/decoder_model.hpp"
#include "llm/training/decoder_checkpoint.hpp"

namespace ch36 {

namespace {

void require(bool condition, const char* what) {
  if (!condition) throw std::logic_error(std::string("chapter 36 fixture: ") + what);
}

}  // namespace

// region: decoder-next-logits
/// The logits of the position after `prefix`: the whole prefix through the
/// decoder as one batch row [1, T], no graph kept, the last of the T rows.
llm::NextTokenLogits full_prefix_logits(const llm::DecoderModel& model) {
  return [model](std::span<const llm::TokenId> prefix) {
    const llm::NoGradScope inference;
    const llm::TensorValue logits = model.forward(prefix, {1, prefix.size()});
    const llm::SharedTensor values = logits.value();
    const std::span<const double> rows = values.contiguous_values();
    const std::size_t vocabulary = model.config().vocabulary_size;
    return std::vector<double>(rows.end() - static_cast<std::ptrdiff_t>(vocabulary), rows.end());
  };
}
// endregion: decoder-next-logits

// region: loaded-generation
LoadedGeneration loaded_generation() {
  const std::vector<std::uint8_t> bytes = demo::chapter35_checkpoint_bytes();
  const llm::Checkpoint checkpoint = llm::Checkpoint::decode(bytes);
  const llm::DecoderModel model = llm::restore_decoder(checkpoint);
  LoadedGeneration loaded;
  loaded.checkpoint_bytes = bytes.size();
  loaded.generator_state = checkpoint.generator_state();
  loaded.vocabulary = model.config().vocabulary_size;
  loaded.context = model.config().block.context;
  const llm::NextTokenLogits next_logits = full_prefix_logits(model);
  const llm::NextTokenLogits recorded = [&](std::span<const llm::TokenId> prefix) {
    loaded.logits.push_back(next_logits(prefix));
    return loaded.logits.back();
  };
  const llm::GenerationConfig config{.policy = llm::SamplingPolicy::temperature_top_k(1.0, 3),
                                     .max_new_tokens = kLoadedMaxNewTokens};

  llm::SplitMix64 generator(checkpoint.generator_state());
  loaded.generated =
      llm::generate(loaded.vocabulary, loaded.context, kLoadedPrompt, config, generator, recorded);
  llm::SplitMix64 replay_generator(checkpoint.generator_state());
  const llm::GenerationResult replay = llm::generate(
      loaded.vocabulary, loaded.context, kLoadedPrompt, config, replay_generator, next_logits);
  loaded.replay_identical =
      replay == loaded.generated && replay_generator.state() == generator.state();
  require(!loaded.generated.generated.empty(), "the restored decoder generated nothing");

  llm::GenerationConfig stop_config = config;
  stop_config.eos_token = loaded.generated.generated.front();
  llm::SplitMix64 stop_generator(checkpoint.generator_state());
  loaded.stopped_at_first = llm::generate(loaded.vocabulary, loaded.context, kLoadedPrompt,
                                          stop_config, stop_generator, next_logits);
  return loaded;
}
// endregion: loaded-generation

}  // namespace ch36
