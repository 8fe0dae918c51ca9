// One chapter-40 training run of the chapter-32 decoder on a long text:
// nanoGPT's loop (random windows, get_lr's schedule, AdamW with decay on the
// matrices, global-norm clipping, fixed evaluation windows) written with the
// book's library, and a checkpoint (chapter 35's format) from which the run
// continues bit for bit.
//
// Everything a later update depends on is in the checkpoint: the parameters,
// AdamW's moments and step count (which is the number of updates made), and
// the state of the SplitMix64 stream that draws the training windows (kept in
// the checkpoint's generator field). The rest is recomputed from the
// configuration: the schedule from the step count, the evaluation windows
// from their seeds. So `resume(checkpoint_of(run after k updates))` followed by
// m - k updates ends on the same bits as m updates made in one go.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "llm/models/decoder_model.hpp"
#include "llm/nn/splitmix64.hpp"
#include "llm/text/bpe_tokenizer.hpp"
#include "llm/text/text_dataset.hpp"
#include "llm/training/adamw.hpp"
#include "llm/training/checkpoint.hpp"
#include "llm/training/gradient_clipping.hpp"
#include "llm/training/random_windows.hpp"
#include "llm/training/train_run_config.hpp"

namespace llm {

// region: training-text
/// A text cut and encoded for training: the tokenizer and the token IDs of
/// both partitions. The tokenizer is the text's byte vocabulary (a run with
/// bpe_merges = 0, nanoGPT's character-level run) or byte-level BPE learned
/// from the training part alone (chapters 3-4), whose content IDs are then
/// the token IDs.
struct TrainingText {
  ByteVocabulary vocabulary;  ///< the whole text's distinct bytes, in byte order: the tokens
                              ///< of a run without merges
  std::optional<BpeTokenizer> byte_pair;  ///< a BPE run's tokenizer; empty for a byte run
  std::vector<TokenId> train;             ///< the first part's token IDs
  std::vector<TokenId> validation;        ///< the rest's token IDs
  std::size_t validation_bytes = 0;       ///< the bytes `validation` stands for: the rest's
                                          ///< length (both encodings are lossless)

  /// The tokenizer `bpe_merges` asks for, learned as learn_byte_pair does
  /// (none for 0), and `text` split and encoded with it as encode does.
  /// @throws DatasetError EmptyText, InvalidFraction, EmptySplit;
  ///         BpeTrainingError TooManyMerges.
  static TrainingText from_text(std::string_view text, double train_fraction,
                                std::size_t bpe_merges = 0);

  /// Byte-level BPE with up to `merges` merges (fewer only when the
  /// training part runs out of pairs), learned by chapter 3's learn_merges
  /// from the first part of `text` as split_at_fraction cuts it, as one
  /// document, and frozen (chapter 4). The validation part is never read, so
  /// no held-out pair can become a merge. Deterministic: the same text gives
  /// the same merges, which is what lets a resumed run check its checkpoint's.
  /// @throws DatasetError InvalidFraction, EmptySplit; BpeTrainingError TooManyMerges.
  static BpeTokenizer learn_byte_pair(std::string_view text, double train_fraction,
                                      std::size_t merges);

  /// `text` split at `train_fraction` as split_at_fraction cuts it, both
  /// sides encoded: with `byte_pair`'s encode_content when given (content
  /// IDs, no BOS or EOS inside the stream), else byte by byte with the whole
  /// text's vocabulary.
  /// @throws DatasetError EmptyText, InvalidFraction, EmptySplit.
  static TrainingText encode(std::string_view text, double train_fraction,
                             std::optional<BpeTokenizer> byte_pair);

  /// The rows the decoder's embedding needs: the byte vocabulary's size, or
  /// the BPE layout's 258 + merges.
  std::size_t vocabulary_size() const noexcept;
  /// The number of merges of the BPE tokenizer; 0 for a byte run.
  std::size_t merge_count() const noexcept;
  /// The number of bytes `tokens` stand for (one per token in a byte run).
  /// @throws TokenizerError ControlTokenInContent (BOS or EOS) or
  ///         UnknownToken, as BpeTokenizer::decode_content, in a BPE run.
  std::size_t byte_length(std::span<const TokenId> tokens) const;
  /// byte_length(tokens) / tokens.size(): 1 in a byte run (not empty).
  /// @throws as byte_length.
  double bytes_per_token(std::span<const TokenId> tokens) const;
  /// The tokenizer as a checkpoint records it: one literal one-byte piece per
  /// ID for a byte run, the merges for a BPE run.
  CheckpointTokenizer checkpoint_tokenizer() const;
};
// endregion: training-text

// region: train-run-reports
/// What one update did.
struct UpdateReport {
  std::size_t iteration = 0;   ///< the update's 0-based index
  double loss = 0.0;           ///< the batch's mean loss, before the update
  double learning_rate = 0.0;  ///< get_lr(iteration)
  GradientClip clip;           ///< the global gradient norm and what clipping did
};

/// The mean loss of the fixed evaluation windows of both partitions.
struct EvaluationReport {
  std::size_t iteration = 0;     ///< updates made when it was measured
  double train_loss = 0.0;       ///< mean loss of the fixed training windows
  double validation_loss = 0.0;  ///< mean loss of the fixed validation windows
};

/// One pass over every tiling window of the validation partition. Nats per
/// token depend on the tokenizer (a BPE token holds several bytes); nats per
/// byte do not, so they compare a byte run with a BPE run.
struct FullValidationReport {
  std::size_t windows = 0;       ///< tiling windows scored, each once
  std::size_t targets = 0;       ///< target tokens scored: windows * T
  std::size_t target_bytes = 0;  ///< the bytes those target tokens stand for
  double loss = 0.0;             ///< mean nats per target token
  double nats_per_byte = 0.0;    ///< the targets' summed nats / target_bytes
};
// endregion: train-run-reports

// region: train-run-class
/// A decoder, its optimizer and its data stream, advanced one update at a time.
class TrainRun {
 public:
  /// A new run: the decoder drawn from SplitMix64(init_seed), AdamW with decay
  /// on every parameter whose name does not end in `.gain`, the window stream
  /// at SplitMix64(data_seed).
  /// @throws TrainRunError OutOfRange (as config.validate(), or key
  ///         `bpe_merges` when the text's tokenizer is not the one it asks
  ///         for), TooFewTokens (a partition shorter than context + 1);
  ///         DecoderError as DecoderModel::initialized.
  static TrainRun start(const TrainRunConfig& config, std::shared_ptr<const TrainingText> text);

  /// The run `checkpoint` was taken from, continued. `source` names the
  /// checkpoint in errors (its path).
  /// @throws TrainRunError CheckpointMismatch when the checkpoint's tokenizer
  ///         (its kind, pieces or merges: key `bpe_merges` when the merge
  ///         counts differ, else `tokenizer`), model sizes or constants
  ///         differ from this configuration's and text's,
  ///         or its step is past config.iterations; as start(); CheckpointError
  ///         ModelMismatch (as Checkpoint::restore_parameters); AdamWError as
  ///         AdamW::from_state.
  static TrainRun resume(const TrainRunConfig& config, std::shared_ptr<const TrainingText> text,
                         const Checkpoint& checkpoint, const std::string& source);

  /// One update on the next batch of windows, with get_lr(iteration()):
  /// forward, backward (the graph released), finite check, clipping, AdamW,
  /// zero-grad.
  /// @throws TrainRunError RunFinished; NonFiniteLoss (no gradient is
  ///         stored, no parameter, moment or counter changes; the window stream
  ///         has advanced past the batch).
  UpdateReport update();

  /// The fixed evaluation windows' mean losses, without recording a graph.
  EvaluationReport evaluate() const;

  /// Every tiling window of the validation partition (tiling_offsets)
  /// scored once, in batches of batch_size, without a graph: the mean loss
  /// per target token and the nats per byte of the same targets.
  FullValidationReport full_validation() const;

  /// The run as a checkpoint: the tokenizer (TrainingText::checkpoint_tokenizer),
  /// the decoder's sizes and parameters, AdamW's state, the step
  /// (= iteration()) and the window stream's state.
  Checkpoint checkpoint() const;

  /// Updates made so far.
  std::size_t iteration() const noexcept { return optimizer_.step_count(); }
  /// Whether all config().iterations updates are made.
  bool finished() const noexcept { return iteration() >= config_.iterations; }
  /// The run's settings.
  const TrainRunConfig& config() const noexcept { return config_; }
  /// The encoded text it trains and evaluates on.
  const TrainingText& text() const noexcept { return *text_; }
  /// The decoder as the updates so far left it.
  const DecoderModel& model() const noexcept { return model_; }
  /// The state of the stream that draws the training windows.
  std::uint64_t data_stream_state() const noexcept { return data_stream_.state(); }

 private:
  TrainRun(TrainRunConfig config, std::shared_ptr<const TrainingText> text, DecoderModel model,
           AdamW optimizer, SplitMix64 data_stream);

  double mean_loss(const std::vector<WindowBatch>& batches) const;

  TrainRunConfig config_;
  std::shared_ptr<const TrainingText> text_;
  DecoderModel model_;
  AdamW optimizer_;
  SplitMix64 data_stream_;
  std::vector<WindowBatch> train_evaluation_;
  std::vector<WindowBatch> validation_evaluation_;
};
// endregion: train-run-class

/// The decoder configuration of `config` for a vocabulary of `vocabulary_size`
/// (tied head).
DecoderConfig decoder_config(const TrainRunConfig& config, std::size_t vocabulary_size);

// region: trained-decoder
/// A decoder read back from a chapter-40 checkpoint, ready to generate text.
struct TrainedDecoder {
  ByteVocabulary vocabulary;  ///< the checkpoint's literal one-byte pieces
  DecoderModel model;         ///< the checkpoint's sizes (tied head) and parameters

  /// The decoder and vocabulary of `checkpoint`; `source` names it in errors.
  /// @throws TrainRunError CheckpointMismatch (key `tokenizer`) unless its
  ///         tokenizer is literal one-byte pieces in byte order
  ///         (CheckpointTokenizer::byte_vocabulary); DecoderError as
  ///         DecoderModel::initialized; CheckpointError ModelMismatch.
  static TrainedDecoder from_checkpoint(const Checkpoint& checkpoint, const std::string& source);

  /// The V logits of the token after `prefix` (at least one token), read
  /// through the last T = context tokens only, as nanoGPT's generate crops
  /// its input; no graph is recorded.
  std::vector<double> next_logits(std::span<const TokenId> prefix) const;
};
// endregion: trained-decoder

}  // namespace llm
