// The decoder in a checkpoint (chapters 35-39).
#include "llm/training/decoder_checkpoint.hpp"

#include <string>

namespace llm {

// region: decoder-checkpoint-config-conversions
CheckpointModelConfig checkpoint_model_config(const DecoderConfig& config) noexcept {
  return CheckpointModelConfig{.vocabulary_size = config.vocabulary_size,
                               .model_width = config.block.model_width,
                               .heads = config.block.heads,
                               .feed_forward_width = config.block.feed_forward_width,
                               .layers = config.layers,
                               .context = config.block.context,
                               .rope_base = config.block.rope_base,
                               .rms_epsilon = config.block.epsilon};
}

DecoderConfig decoder_config(const CheckpointModelConfig& config, HeadTying tying) noexcept {
  return DecoderConfig{.vocabulary_size = config.vocabulary_size,
                       .layers = config.layers,
                       .block = {.model_width = config.model_width,
                                 .heads = config.heads,
                                 .feed_forward_width = config.feed_forward_width,
                                 .context = config.context,
                                 .rope_base = config.rope_base,
                                 .epsilon = config.rms_epsilon},
                       .head = tying};
}

HeadTying checkpoint_head_tying(const Checkpoint& checkpoint) noexcept {
  for (const NamedValue& parameter : checkpoint.parameters()) {
    if (parameter.name == "head.weight") return HeadTying::Untied;
  }
  return HeadTying::Tied;
}
// endregion: decoder-checkpoint-config-conversions

// region: restore-decoder
DecoderModel restore_decoder(const Checkpoint& checkpoint) {
  const DecoderConfig config =
      decoder_config(checkpoint.model_config(), checkpoint_head_tying(checkpoint));
  try {
    config.validate();
  } catch (const DecoderError& cause) {
    throw CheckpointError(CheckpointErrorKind::ModelMismatch,
                          {.detail = "the stored configuration is not a valid decoder (" +
                                     std::string(cause.kind_name()) + ": " + cause.what() + ")"});
  }
  // The drawn values only give every parameter its shape; all are replaced.
  SplitMix64 placeholder(0);
  const DecoderModel model = DecoderModel::initialized(config, placeholder);
  checkpoint.restore_parameters(model.parameters());
  return model;
}
// endregion: restore-decoder

}  // namespace llm
