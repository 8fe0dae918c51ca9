// The configuration of one chapter-40 training run: the decoder's sizes, the
// optimizer and its learning-rate schedule, evaluation, checkpoints and seeds.
//
// The defaults are nanoGPT's CPU run of its README ("I only have a macbook"):
// config/train_shakespeare_char.py with --block_size=64 --batch_size=12
// --n_layer=4 --n_head=4 --n_embd=128 --max_iters=2000 --lr_decay_iters=2000
// --dropout=0.0 --eval_iters=20, and train.py's defaults for what neither sets
// (weight decay 0.1, beta1 0.9, gradient clipping at norm 1.0). Where our
// decoder differs from nanoGPT's GPT-2 (RMSNorm, RoPE, SwiGLU, no biases,
// Xavier-uniform initialization), its own constants are chosen here and
// documented in docs/training-run.md.
//
// A reader overrides any field with a JSON object of the same names
// (`make train CONFIG=my.json`); a key that is not a field, a value of the
// wrong type or out of its range is refused with a TrainRunError naming the
// key.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "llm/error.hpp"

namespace llm {

// region: train-run-error-kinds
/// What a training run's configuration or its data sampler rejected.
enum class TrainRunErrorKind {
  InvalidJson,         ///< the configuration is not JSON, or repeats a key
  NotAnObject,         ///< the configuration's top level is not a JSON object
  UnknownKey,          ///< a key names no field
  WrongType,           ///< a value has the wrong JSON type for its field
  OutOfRange,          ///< a value breaks its field's rule
  TooFewTokens,        ///< a token sequence is too short for one window of the context
  NonFiniteLoss,       ///< a training loss is NaN or infinite: the update is not made
  RunFinished,         ///< an update was asked of a run that has made all its updates
  CheckpointMismatch,  ///< a checkpoint to resume from belongs to another run
};
// endregion: train-run-error-kinds

/// The offending values of a TrainRunError; a kind leaves the fields it does
/// not use empty or zero.
struct TrainRunErrorEvidence {
  std::string source{};       ///< where the configuration came from (a path, `defaults`)
  std::string key{};          ///< the field
  std::string value{};        ///< the value found, as JSON
  std::string rule{};         ///< WrongType: the type wanted; OutOfRange: the rule broken;
                              ///< InvalidJson: the parser's message
  std::size_t tokens = 0;     ///< TooFewTokens: the sequence's length
  std::size_t context = 0;    ///< TooFewTokens: the context T
  std::size_t iteration = 0;  ///< NonFiniteLoss, RunFinished: the update's 0-based index
  std::string expected{};     ///< CheckpointMismatch: what this run has for `key`
};

// region: train-run-error-table
/// The `train-run` area: each kind's stable name and message, in enum order.
struct TrainRunErrorTraits {
  using Kind = TrainRunErrorKind;                        ///< the area's kinds
  using Evidence = TrainRunErrorEvidence;                ///< the offending values
  static constexpr std::string_view area = "train-run";  ///< Error::area()
  /// Each kind's stable name and message, in enum order.
  static constexpr std::array<ErrorKindSpec<Kind>, 9> kinds{{
      {Kind::InvalidJson, "invalid-json", "{source} is not a valid JSON configuration: {rule}"},
      {Kind::NotAnObject, "not-an-object",
       "{source} must hold one JSON object of settings, got {value}"},
      {Kind::UnknownKey, "unknown-key",
       "{source}: \"{key}\" is not a setting (docs/training-run.md lists them)"},
      {Kind::WrongType, "wrong-type", "{source}: \"{key}\" must be {rule}, got {value}"},
      {Kind::OutOfRange, "out-of-range", "{source}: \"{key}\" must be {rule}, got {value}"},
      {Kind::TooFewTokens, "too-few-tokens",
       "a window of context {context} needs at least {context} + 1 tokens, got {tokens}"},
      {Kind::NonFiniteLoss, "non-finite-loss",
       "the training loss of update {iteration} is {value}: no parameter was changed"},
      {Kind::RunFinished, "run-finished",
       "the run has made all its updates; update {iteration} is past the end"},
      {Kind::CheckpointMismatch, "checkpoint-mismatch",
       "{source} belongs to another run: its {key} is {value}, this run's is {expected}"},
  }};
  /// A field of the evidence as the message prints it.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};
// endregion: train-run-error-table

/// An error of a training run's configuration or data (area `train-run`).
/// Nothing is returned or changed when one is thrown.
class TrainRunError : public KindedError<TrainRunErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw TrainRunError(TrainRunErrorKind::..., {.field = value});`
  explicit TrainRunError(TrainRunErrorKind kind, TrainRunErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}
};

/// The most byte-pair merges a run may learn: 4,096 (the bound is argued in
/// docs/training-run.md, "The byte-pair run").
inline constexpr std::size_t kMaxTrainBpeMerges = 4096;

// region: train-run-config
/// Every setting of one run. Units: iterations count optimizer updates;
/// rates are per update; widths count features.
struct TrainRunConfig {
  // The data (data/tinyshakespeare/README.md).
  double train_fraction = 0.9;  ///< the first int(n * f) bytes train (nanoGPT's prepare.py)
  /// 0: the text's distinct bytes are the tokens (nanoGPT's character-level
  /// run); N >= 1: byte-level BPE with N merges learned from the training
  /// part only (chapters 3-4).
  std::size_t bpe_merges = 0;

  // The decoder (chapter 32). The vocabulary comes from the data.
  std::size_t layers = 4;                ///< N (nanoGPT n_layer)
  std::size_t heads = 4;                 ///< H (n_head)
  std::size_t model_width = 128;         ///< D (n_embd)
  std::size_t feed_forward_width = 344;  ///< F: 8D/3 rounded up to a multiple of 8
  std::size_t context = 64;              ///< T (block_size)
  double rope_base = 10000.0;            ///< RoPE's base (RoFormer's value)
  double rms_epsilon = 1e-6;             ///< RMSNorm's epsilon

  // The optimizer (AdamW, chapter 22) and its schedule (nanoGPT's get_lr).
  std::size_t batch_size = 12;          ///< B (batch_size)
  std::size_t iterations = 2000;        ///< updates in the run (max_iters)
  double learning_rate = 1e-3;          ///< the peak rate (learning_rate)
  double min_learning_rate = 1e-4;      ///< the rate after the decay (min_lr)
  std::size_t warmup_iterations = 100;  ///< linear warm-up length (warmup_iters)
  std::size_t decay_iterations = 2000;  ///< where the cosine reaches the minimum (lr_decay_iters)
  double beta1 = 0.9;                   ///< AdamW's beta1 (train.py)
  double beta2 = 0.99;                  ///< AdamW's beta2 (the config)
  double adam_epsilon = 1e-8;           ///< AdamW's epsilon (PyTorch's default)
  double weight_decay = 0.1;            ///< decoupled decay of every matrix (train.py)
  double gradient_clip = 1.0;           ///< global gradient-norm limit; 0 turns clipping off

  // Evaluation, progress and checkpoints.
  std::size_t eval_interval = 250;        ///< evaluate every this many updates (eval_interval)
  std::size_t eval_batches = 20;          ///< batches per partition per evaluation (eval_iters)
  std::size_t log_interval = 10;          ///< a progress line every this many updates
  std::size_t checkpoint_interval = 250;  ///< save every this many updates; 0: only at the end

  // Seeds (SplitMix64, chapter 17).
  std::uint64_t init_seed = 1337;  ///< the parameters' initialization stream
  std::uint64_t data_seed = 1338;  ///< the training windows' stream
  std::uint64_t eval_seed =
      1339;  ///< the fixed evaluation windows (train: seed, validation: seed + 1)

  /// The defaults, overridden by the keys of the JSON object `json_text`;
  /// `source` names it in errors (a path).
  /// @throws TrainRunError InvalidJson, NotAnObject, UnknownKey, WrongType,
  ///         OutOfRange (as validate(), naming the key).
  static TrainRunConfig from_json(std::string_view json_text, std::string_view source);

  /// Checks every rule: bpe_merges <= kMaxTrainBpeMerges; widths, counts and
  /// intervals >= 1 (checkpoint_interval and gradient_clip >= 0); D divisible by H with an even
  /// head width; rates finite and > 0 with min <= peak; warmup < decay; betas in [0, 1); epsilons >
  /// 0; decay >= 0; fraction in (0, 1); eval_batches >= 1.
  /// @throws TrainRunError OutOfRange naming the first key that breaks one
  ///         (source `source`).
  void validate(std::string_view source = "the configuration") const;

  /// Every field as one JSON object (the run log and checkpoints record it).
  std::string to_json() const;

  /// nanoGPT's get_lr at 0-based `iteration`: peak * (i + 1) / (warmup + 1)
  /// while i < warmup; min after decay_iterations; in between
  /// min + (1 + cos(pi r)) / 2 * (peak - min), r = (i - warmup) / (decay - warmup).
  double learning_rate_at(std::size_t iteration) const noexcept;

  /// Field-by-field equality.
  bool operator==(const TrainRunConfig&) const = default;
};
// endregion: train-run-config

}  // namespace llm
