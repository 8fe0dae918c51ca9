// Chapter 32's decoder as the training loop sees it (chapter 33): its
// parameter set and the mean next-token loss of one mini-batch.
#pragma once

#include "llm/models/decoder_model.hpp"
#include "llm/training/trainer.hpp"

namespace llm {

// region: trainable-decoder-declaration
/// `model` as a TrainableModel: the model's own parameter handles (the loop
/// updates the model in place), loss(batch) = model.loss(inputs, [|B|, T],
/// targets), the model's vocabulary and context. The loss function keeps a
/// copy of the model, which shares its parameters.
TrainableModel trainable_decoder(const DecoderModel& model);
// endregion: trainable-decoder-declaration

}  // namespace llm
