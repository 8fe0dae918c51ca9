// The chapter-40 training run: start, update, evaluate, checkpoint, resume.
#include "llm/training/train_run.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>

#include "llm/autograd/tensor_value.hpp"

namespace llm {

TrainingText TrainingText::from_text(std::string_view text, double train_fraction,
                                     std::size_t bpe_merges) {
  std::optional<BpeTokenizer> byte_pair;
  if (bpe_merges > 0) byte_pair = learn_byte_pair(text, train_fraction, bpe_merges);
  return encode(text, train_fraction, std::move(byte_pair));
}

// region: training-text-byte-pair
BpeTokenizer TrainingText::learn_byte_pair(std::string_view text, double train_fraction,
                                           std::size_t merges) {
  const TextSplit split = split_at_fraction(text, train_fraction);  // validation: never read
  std::vector<std::vector<TokenId>> documents;
  documents.push_back(bytes_to_tokens(split.train));
  return BpeTokenizer::from_training(learn_merges(merges, {"train"}, std::move(documents)));
}

TrainingText TrainingText::encode(std::string_view text, double train_fraction,
                                  std::optional<BpeTokenizer> byte_pair) {
  ByteVocabulary vocabulary = ByteVocabulary::from_text(text);
  const TextSplit split = split_at_fraction(text, train_fraction);
  if (byte_pair) {
    // The whole content vocabulary (BOS, EOS, 256 bytes, the merges), as
    // chapter 39's checkpoint lays it out, although BOS, EOS and the bytes
    // the text lacks never occur: they are never an input, so their
    // embedding rows only meet the tied head, which learns to give them
    // almost no probability, and weight decay shrinks them. The price is
    // (256 + 2 - distinct bytes) x D parameters; the gain is that every
    // prompt encodes and the checkpoint is the book's byte-pair format.
    std::vector<TokenId> train = byte_pair->encode_content(split.train);
    std::vector<TokenId> validation = byte_pair->encode_content(split.validation);
    return {std::move(vocabulary), std::move(byte_pair), std::move(train), std::move(validation),
            split.validation.size()};
  }
  std::vector<TokenId> train = vocabulary.encode(split.train);
  std::vector<TokenId> validation = vocabulary.encode(split.validation);
  return {std::move(vocabulary), std::nullopt, std::move(train), std::move(validation),
          split.validation.size()};
}
// endregion: training-text-byte-pair

std::size_t TrainingText::vocabulary_size() const noexcept {
  return byte_pair ? byte_pair->vocabulary_size() : vocabulary.size();
}

std::size_t TrainingText::merge_count() const noexcept {
  return byte_pair ? byte_pair->merge_rules().size() : 0;
}

std::size_t TrainingText::byte_length(std::span<const TokenId> tokens) const {
  return byte_pair ? byte_pair->decode_content(tokens).size() : tokens.size();
}

double TrainingText::bytes_per_token(std::span<const TokenId> tokens) const {
  return static_cast<double>(byte_length(tokens)) / static_cast<double>(tokens.size());
}

DecoderConfig decoder_config(const TrainRunConfig& config, std::size_t vocabulary_size) {
  return {.vocabulary_size = vocabulary_size,
          .layers = config.layers,
          .block = {.model_width = config.model_width,
                    .heads = config.heads,
                    .feed_forward_width = config.feed_forward_width,
                    .context = config.context,
                    .rope_base = config.rope_base,
                    .epsilon = config.rms_epsilon},
          .head = HeadTying::Tied};
}

namespace {

// The decoder's sizes as a checkpoint records them.
CheckpointModelConfig checkpoint_model(const TrainRunConfig& config, std::size_t vocabulary_size) {
  return {.vocabulary_size = vocabulary_size,
          .model_width = config.model_width,
          .heads = config.heads,
          .feed_forward_width = config.feed_forward_width,
          .layers = config.layers,
          .context = config.context,
          .rope_base = config.rope_base,
          .rms_epsilon = config.rms_epsilon};
}

// The vocabulary as a checkpoint tokenizer: one literal one-byte piece per ID.
CheckpointTokenizer literal_tokenizer(const ByteVocabulary& vocabulary) {
  std::vector<std::string> pieces;
  for (char symbol : vocabulary.symbols()) pieces.emplace_back(1, symbol);
  return CheckpointTokenizer::literal(std::move(pieces));
}

}  // namespace

CheckpointTokenizer TrainingText::checkpoint_tokenizer() const {
  if (byte_pair) return CheckpointTokenizer::byte_pair(*byte_pair);
  return literal_tokenizer(vocabulary);
}

namespace {

// region: train-run-optimizer
// nanoGPT's configure_optimizers decays every parameter of two or more
// dimensions; in the decoder those are the embedding and the projections,
// and the rest are the RMSNorm gains, named `....gain`.
AdamW new_optimizer(const TrainRunConfig& config, const ParameterSet& parameters) {
  const AdamWConfig hyperparameters = AdamWConfig::create(
      config.learning_rate, config.beta1, config.beta2, config.adam_epsilon, config.weight_decay);
  return AdamW(hyperparameters,
               AdamWParameterGroups::partition(
                   parameters, [](std::string_view name) { return !name.ends_with(".gain"); }));
}
// endregion: train-run-optimizer

std::vector<WindowBatch> evaluation_batches(std::span<const TokenId> tokens,
                                            const TrainRunConfig& config, std::uint64_t seed) {
  SplitMix64 stream(seed);
  std::vector<WindowBatch> batches;
  batches.reserve(config.eval_batches);
  for (std::size_t i = 0; i < config.eval_batches; ++i) {
    batches.push_back(sample_windows(tokens, config.batch_size, config.context, stream));
  }
  return batches;
}

std::string number_text(double value) {
  std::ostringstream text;
  text.precision(17);
  text << value;
  return text.str();
}

// Refuses a text whose tokenizer is not the one `config` asks for: the run's
// log and checkpoints would record settings that did not make its tokens.
// (A BPE text may hold fewer merges than asked when its training part ran
// out of pairs.)
void check_text(const TrainRunConfig& config, const TrainingText& text) {
  const bool agrees = text.byte_pair
                          ? config.bpe_merges >= std::max<std::size_t>(1, text.merge_count())
                          : config.bpe_merges == 0;
  if (!agrees) {
    throw TrainRunError(TrainRunErrorKind::OutOfRange,
                        {.source = "the configuration",
                         .key = "bpe_merges",
                         .value = std::to_string(config.bpe_merges),
                         .rule = text.byte_pair ? "the " + std::to_string(text.merge_count()) +
                                                      " merges the text was encoded with"
                                                : "0, as the text was encoded byte by byte"});
  }
}

// What a tokenizer is, for a mismatch message: `byte-bpe of 770 tokens`.
std::string tokenizer_text(const CheckpointTokenizer& tokenizer) {
  return std::string(tokenizer.kind_name()) + " of " + std::to_string(tokenizer.vocabulary_size()) +
         " tokens";
}

// The first rank at which two merge lists of equal length differ, as
// `merge 5 (101,32)` for each side.
std::pair<std::string, std::string> first_different_merge(const std::vector<TokenPair>& found,
                                                          const std::vector<TokenPair>& wanted) {
  auto merge_text = [](std::size_t rank, TokenPair pair) {
    return "merge " + std::to_string(rank) + " (" + std::to_string(pair.left) + "," +
           std::to_string(pair.right) + ")";
  };
  std::size_t rank = 0;
  while (rank + 1 < found.size() && found[rank] == wanted[rank]) ++rank;
  return {merge_text(rank, found[rank]), merge_text(rank, wanted[rank])};
}

// Refuses a checkpoint whose tokenizer or model differs from what `config`
// and `text` would build: resuming it would not continue this run.
void check_belongs(const Checkpoint& checkpoint, const TrainRunConfig& config,
                   const TrainingText& text, const std::string& source) {
  auto mismatch = [&](const char* key, std::string found, std::string expected) {
    return TrainRunError(
        TrainRunErrorKind::CheckpointMismatch,
        {.source = source, .key = key, .value = std::move(found), .expected = std::move(expected)});
  };
  const CheckpointTokenizer& stored = checkpoint.tokenizer();
  const CheckpointTokenizer wanted_tokenizer = text.checkpoint_tokenizer();
  if (stored != wanted_tokenizer) {
    const bool stored_bpe = stored.kind() == CheckpointTokenizer::Kind::BytePair;
    if (stored_bpe || text.byte_pair) {
      if (stored.merges().size() != text.merge_count()) {
        throw mismatch("bpe_merges", std::to_string(stored.merges().size()),
                       std::to_string(text.merge_count()));
      }
      if (stored_bpe && text.byte_pair) {  // as many merges, learned from another text
        auto [found, wanted] = first_different_merge(stored.merges(), wanted_tokenizer.merges());
        throw mismatch("tokenizer", std::move(found), std::move(wanted));
      }
      // A byte run's literal pieces against a BPE run learned no merge.
      throw mismatch("tokenizer", tokenizer_text(stored), tokenizer_text(wanted_tokenizer));
    }
    throw mismatch("tokenizer", tokenizer_text(stored),
                   "the " + std::to_string(text.vocabulary.size()) + " bytes of the text");
  }
  const CheckpointModelConfig found = checkpoint.model_config();
  const CheckpointModelConfig wanted = checkpoint_model(config, text.vocabulary_size());
  const std::pair<const char*, std::pair<std::size_t, std::size_t>> sizes[] = {
      {"layers", {found.layers, wanted.layers}},
      {"heads", {found.heads, wanted.heads}},
      {"model_width", {found.model_width, wanted.model_width}},
      {"feed_forward_width", {found.feed_forward_width, wanted.feed_forward_width}},
      {"context", {found.context, wanted.context}},
  };
  for (const auto& [key, pair] : sizes) {
    if (pair.first != pair.second) {
      throw mismatch(key, std::to_string(pair.first), std::to_string(pair.second));
    }
  }
  if (found.rope_base != wanted.rope_base) {
    throw mismatch("rope_base", number_text(found.rope_base), number_text(wanted.rope_base));
  }
  if (found.rms_epsilon != wanted.rms_epsilon) {
    throw mismatch("rms_epsilon", number_text(found.rms_epsilon), number_text(wanted.rms_epsilon));
  }
  if (checkpoint.selected_step() > config.iterations) {
    throw mismatch("step", std::to_string(checkpoint.selected_step()),
                   "at most iterations = " + std::to_string(config.iterations));
  }
}

}  // namespace

TrainRun::TrainRun(TrainRunConfig config, std::shared_ptr<const TrainingText> text,
                   DecoderModel model, AdamW optimizer, SplitMix64 data_stream)
    : config_(std::move(config)),
      text_(std::move(text)),
      model_(std::move(model)),
      optimizer_(std::move(optimizer)),
      data_stream_(data_stream),
      train_evaluation_(evaluation_batches(text_->train, config_, config_.eval_seed)),
      validation_evaluation_(
          evaluation_batches(text_->validation, config_, config_.eval_seed + 1)) {}

// region: train-run-start
TrainRun TrainRun::start(const TrainRunConfig& config, std::shared_ptr<const TrainingText> text) {
  config.validate();
  check_text(config, *text);
  SplitMix64 init_stream(config.init_seed);
  DecoderModel model =
      DecoderModel::initialized(decoder_config(config, text->vocabulary_size()), init_stream);
  AdamW optimizer = new_optimizer(config, model.parameters());
  return TrainRun(config, std::move(text), std::move(model), std::move(optimizer),
                  SplitMix64(config.data_seed));
}
// endregion: train-run-start

// region: train-run-resume
TrainRun TrainRun::resume(const TrainRunConfig& config, std::shared_ptr<const TrainingText> text,
                          const Checkpoint& checkpoint, const std::string& source) {
  config.validate();
  check_text(config, *text);
  check_belongs(checkpoint, config, *text, source);
  // A fresh decoder of the same shapes, then every value from the file: the
  // initial draws are overwritten, so the seed does not matter here.
  SplitMix64 init_stream(config.init_seed);
  DecoderModel model =
      DecoderModel::initialized(decoder_config(config, text->vocabulary_size()), init_stream);
  checkpoint.restore_parameters(model.parameters());
  AdamW optimizer = AdamW::from_state(checkpoint.optimizer_state());
  return TrainRun(config, std::move(text), std::move(model), std::move(optimizer),
                  SplitMix64(checkpoint.generator_state()));
}
// endregion: train-run-resume

// region: train-run-update
UpdateReport TrainRun::update() {
  const std::size_t i = iteration();
  if (finished()) throw TrainRunError(TrainRunErrorKind::RunFinished, {.iteration = i});
  const double rate = config_.learning_rate_at(i);
  const WindowBatch batch =
      sample_windows(text_->train, config_.batch_size, config_.context, data_stream_);
  const Shape shape{batch.batch, batch.context};
  const ParameterSet& parameters = model_.parameters();
  const TensorValue loss = model_.loss(batch.inputs, shape, batch.targets);  // forward
  const double loss_value = loss.item();
  if (!std::isfinite(loss_value)) {  // before backward: no gradient is stored
    throw TrainRunError(TrainRunErrorKind::NonFiniteLoss,
                        {.value = number_text(loss_value), .iteration = i});
  }
  loss.backward();  // releases the graph
  GradientClip clip;
  if (config_.gradient_clip > 0.0) {
    clip = clip_gradient_norm(parameters, config_.gradient_clip);
  } else {
    clip.norm_before = clip.norm_after = parameters.gradient_norm().value;
  }
  optimizer_.step(parameters, {.learning_rate = rate});
  parameters.zero_grad();
  return {.iteration = i, .loss = loss_value, .learning_rate = rate, .clip = clip};
}
// endregion: train-run-update

double TrainRun::mean_loss(const std::vector<WindowBatch>& batches) const {
  const NoGradScope no_graph;
  double sum = 0.0;
  for (const WindowBatch& batch : batches) {
    sum += model_.loss(batch.inputs, Shape{batch.batch, batch.context}, batch.targets).item();
  }
  return sum / static_cast<double>(batches.size());
}

EvaluationReport TrainRun::evaluate() const {
  return {.iteration = iteration(),
          .train_loss = mean_loss(train_evaluation_),
          .validation_loss = mean_loss(validation_evaluation_)};
}

// region: full-validation
FullValidationReport TrainRun::full_validation() const {
  const NoGradScope no_graph;
  const std::span<const TokenId> tokens = text_->validation;
  const std::vector<std::size_t> offsets = tiling_offsets(tokens.size(), config_.context);
  double sum = 0.0;  // of each batch's mean loss times its rows
  for (std::size_t start = 0; start < offsets.size(); start += config_.batch_size) {
    const std::size_t rows = std::min(config_.batch_size, offsets.size() - start);
    const WindowBatch batch = windows_at(
        tokens, std::span<const std::size_t>(offsets).subspan(start, rows), config_.context);
    sum += model_.loss(batch.inputs, Shape{rows, config_.context}, batch.targets).item() *
           static_cast<double>(rows);
  }
  FullValidationReport report;
  report.windows = offsets.size();
  report.targets = offsets.size() * config_.context;
  // The windows tile the part, so their targets are tokens 1 to `targets`:
  // the part's bytes less those of its first token and of the tail no window
  // reaches (fewer than T + 1 tokens to decode, not the whole part).
  report.target_bytes = offsets.empty()
                            ? 0
                            : text_->validation_bytes - text_->byte_length(tokens.first(1)) -
                                  text_->byte_length(tokens.subspan(report.targets + 1));
  report.loss = sum / static_cast<double>(offsets.size());
  // The summed nats are loss * targets, so nats per byte is the mean per
  // token times tokens per byte; written so, a byte run (targets ==
  // target_bytes) gets the per-token mean bit for bit.
  report.nats_per_byte = report.loss * (static_cast<double>(report.targets) /
                                        static_cast<double>(report.target_bytes));
  return report;
}
// endregion: full-validation

Checkpoint TrainRun::checkpoint() const {
  return Checkpoint::create(
      text_->checkpoint_tokenizer(), checkpoint_model(config_, text_->vocabulary_size()),
      model_.parameters().named_values(), optimizer_.state(), iteration(), data_stream_.state());
}

TrainedDecoder TrainedDecoder::from_checkpoint(const Checkpoint& checkpoint,
                                               const std::string& source) {
  const CheckpointTokenizer& tokenizer = checkpoint.tokenizer();
  std::optional<ByteVocabulary> vocabulary = tokenizer.byte_vocabulary();
  if (!vocabulary) {
    throw TrainRunError(TrainRunErrorKind::CheckpointMismatch,
                        {.source = source,
                         .key = "tokenizer",
                         .value = std::string(tokenizer.kind_name()) + " of " +
                                  std::to_string(tokenizer.vocabulary_size()) + " tokens",
                         .expected = "literal one-byte pieces in byte order"});
  }
  const CheckpointModelConfig sizes = checkpoint.model_config();
  TrainRunConfig config;
  config.layers = sizes.layers;
  config.heads = sizes.heads;
  config.model_width = sizes.model_width;
  config.feed_forward_width = sizes.feed_forward_width;
  config.context = sizes.context;
  config.rope_base = sizes.rope_base;
  config.rms_epsilon = sizes.rms_epsilon;
  SplitMix64 unused(0);  // every drawn value is overwritten by the checkpoint's
  DecoderModel model =
      DecoderModel::initialized(decoder_config(config, vocabulary->size()), unused);
  checkpoint.restore_parameters(model.parameters());
  return {*std::move(vocabulary), std::move(model)};
}

// region: trained-decoder-next-logits
std::vector<double> TrainedDecoder::next_logits(std::span<const TokenId> prefix) const {
  const NoGradScope no_graph;
  const std::size_t context = model.config().block.context;
  const std::span<const TokenId> window =
      prefix.size() > context ? prefix.last(context) : prefix;                // nanoGPT's crop
  const TensorValue logits = model.forward(window, Shape{1, window.size()});  // [1, t, V]
  const SharedTensor stored = logits.value();
  const std::span<const double> values = stored.contiguous_values();
  const std::size_t v = vocabulary.size();
  return {values.end() - static_cast<std::ptrdiff_t>(v), values.end()};  // the last row
}
// endregion: trained-decoder-next-logits

}  // namespace llm
