// The neural n-gram's loss over chapter 21's mini-batches (chapter 23): the
// batch mean a step descends and the row-weighted mean over a whole epoch.
// They live in the training area, beside the batches they read, so the model
// (src/llm/models/) does not include an area above its own.
#pragma once

#include "llm/autograd/tensor_value.hpp"
#include "llm/models/neural_ngram.hpp"
#include "llm/training/mini_batches.hpp"

namespace llm {

/// The mean NLL [] of the token that follows each row of `batch` under
/// `model`: row b's input is its context and the last entry of its target
/// row, the token right after the whole context, is its one target (the
/// other T - 1 shifted targets of chapter 21 are not scored). The mean
/// divides by the rows present, |B|. Tracked: it reaches every parameter.
/// @throws NeuralNgramError BatchContextMismatch, EmptyBatch,
///         TargetOutOfRange (the first bad row), then as NeuralNgram::forward().
TensorValue neural_ngram_loss(const NeuralNgram& model, const MiniBatch& batch);

/// The mean NLL over every window of `epoch`, each weighted by one: the sum
/// of each batch's mean times its width, divided by the window count.
/// Computed without recording a graph (NoGradScope).
/// @throws NeuralNgramError EmptyBatch for an epoch without windows, then as neural_ngram_loss().
double neural_ngram_mean_loss(const NeuralNgram& model, const MiniBatchEpoch& epoch);

}  // namespace llm
