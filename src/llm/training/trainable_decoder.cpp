// Chapter 32's decoder as the training loop sees it (chapter 33).
#include "llm/training/trainable_decoder.hpp"

namespace llm {

// region: trainable-decoder
TrainableModel trainable_decoder(const DecoderModel& model) {
  return TrainableModel{.parameters = model.parameters(),
                        .loss =
                            [model](const MiniBatch& batch) {
                              return model.loss(batch.inputs(),
                                                Shape{batch.width(), batch.context_length()},
                                                batch.targets());
                            },
                        .vocabulary_size = model.config().vocabulary_size,
                        .context = model.config().block.context};
}
// endregion: trainable-decoder

}  // namespace llm
