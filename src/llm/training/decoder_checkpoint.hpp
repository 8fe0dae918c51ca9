// The decoder in a checkpoint (chapters 35-39): the hyperparameters a file
// records as chapter 32's DecoderConfig and back, and a decoder rebuilt from
// a file with its stored parameters.
//
// Version 1 of the format records no head-tying flag: its fixture decoders
// are tied. A checkpoint's decoder is untied exactly when it stores a
// parameter named `head.weight` (the untied head's name), so the parameter
// list itself says which decoder it belongs to.
#pragma once

#include "llm/models/decoder_model.hpp"
#include "llm/training/checkpoint.hpp"

namespace llm {

// region: decoder-checkpoint-config
/// The hyperparameters of `config` as a checkpoint records them (the head's
/// tying is not among them; see restore_decoder).
CheckpointModelConfig checkpoint_model_config(const DecoderConfig& config) noexcept;

/// The decoder configuration `config` records, with the head `tying`.
/// Not validated here: DecoderConfig::validate or the model's constructor
/// checks it.
DecoderConfig decoder_config(const CheckpointModelConfig& config, HeadTying tying) noexcept;

/// Tied, unless the checkpoint stores a parameter named `head.weight`.
HeadTying checkpoint_head_tying(const Checkpoint& checkpoint) noexcept;
// endregion: decoder-checkpoint-config

// region: restore-decoder-declaration
/// A new decoder of the checkpoint's configuration holding its stored
/// parameters: built (DecoderModel::initialized from a fixed seed, every
/// drawn value then replaced) and loaded by name, all or nothing. The
/// result shares nothing with any other model.
/// @throws CheckpointError ModelMismatch when the configuration is not a
///         valid decoder (the detail names the decoder's error) or the
///         parameters do not fit it (a name missing or unexpected, another
///         shape).
DecoderModel restore_decoder(const Checkpoint& checkpoint);
// endregion: restore-decoder-declaration

}  // namespace llm
