// The neural n-gram's loss over chapter 21's mini-batches (chapter 23).
#include "llm/training/neural_ngram_loss.hpp"

#include <vector>

#include "llm/autograd/tensor_value.hpp"

namespace llm {

// region: neural-ngram-loss
TensorValue neural_ngram_loss(const NeuralNgram& model, const MiniBatch& batch) {
  const std::size_t T = model.config().context_length();
  if (batch.context_length() != T) {
    throw NeuralNgramError(NeuralNgramErrorKind::BatchContextMismatch,
                           {.expected = T, .actual = batch.context_length()});
  }
  if (batch.width() == 0) throw NeuralNgramError(NeuralNgramErrorKind::EmptyBatch, {});
  // Row b's targets are its inputs shifted by one; only the last follows the
  // whole context, so it is the row's one target.
  std::vector<std::size_t> targets(batch.width());
  for (std::size_t row = 0; row < batch.width(); ++row) {
    const TokenId target = (*batch.target_row(row))[T - 1];
    if (target >= model.config().vocabulary_size()) {
      throw NeuralNgramError(
          NeuralNgramErrorKind::TargetOutOfRange,
          {.row = row, .token = target, .vocabulary_size = model.config().vocabulary_size()});
    }
    targets[row] = target;
  }
  return model.forward(batch.inputs(), batch.width()).logits.indexed_mean_nll(1, targets);
}
// endregion: neural-ngram-loss

// region: neural-ngram-mean-loss
double neural_ngram_mean_loss(const NeuralNgram& model, const MiniBatchEpoch& epoch) {
  const NoGradScope no_graph;  // evaluation: values only, nothing to reverse
  double weighted_sum = 0.0;
  std::size_t rows = 0;
  for (const MiniBatch& batch : epoch.batches()) {
    // A batch's loss is a mean over its rows; weigh it by how many it has,
    // so a short last batch counts for its rows and no more.
    weighted_sum +=
        neural_ngram_loss(model, batch).value().at({}) * static_cast<double>(batch.width());
    rows += batch.width();
  }
  if (rows == 0) throw NeuralNgramError(NeuralNgramErrorKind::EmptyBatch, {});
  return weighted_sum / static_cast<double>(rows);
}
// endregion: neural-ngram-mean-loss

}  // namespace llm
