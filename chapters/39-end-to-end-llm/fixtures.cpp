// Chapter 39's evidence (see fixtures.hpp).
#include "fixtures.hpp"

#include <bit>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string_view>

#include "book_corpus.hpp"
#include "llm/evaluation/bigram_evaluation.hpp"
#include "llm/generation/decoder_kv_cache.hpp"
#include "llm/text/bpe_tokenizer.hpp"
#include "llm/text/bpe_trainer.hpp"
#include "llm/text/encoded_corpus.hpp"
#include "llm/training/checkpoint.hpp"
#include "llm/training/decoder_checkpoint.hpp"
#include "llm/training/trainable_decoder.hpp"

namespace ch39 {
namespace {

using llm::Partition;

// region: end-to-end-epochs
/// Stride-1 windows of kContext tokens over one partition's documents.
llm::MiniBatchEpoch epoch(const llm::EncodedCorpusPartitions& encoded, Partition partition,
                          std::size_t batch_size, llm::BatchOrder order) {
  std::vector<llm::BatchDocument> documents;
  for (const llm::EncodedDocument& document : encoded.documents(partition))
    documents.push_back({document.id, partition, document.token_ids});
  return llm::MiniBatchEpoch::build(partition, documents,
                                    llm::CausalWindowConfig::create(kContext, kStride),
                                    llm::MiniBatchConfig::create(batch_size, order));
}
// endregion: end-to-end-epochs

// region: end-to-end-training
llm::DecoderConfig model_config(std::size_t vocabulary, const Candidate& candidate) {
  return llm::DecoderConfig{.vocabulary_size = vocabulary,
                            .layers = kLayers,
                            .block = {.model_width = candidate.model_width,
                                      .heads = kHeads,
                                      .feed_forward_width = candidate.feed_forward,
                                      .context = kContext},
                            .head = llm::HeadTying::Tied};
}

llm::DecoderModel fresh_model(std::size_t vocabulary, const Candidate& candidate) {
  llm::SplitMix64 generator(kSeed);
  return llm::DecoderModel::initialized(model_config(vocabulary, candidate), generator);
}

/// One candidate's training run from seed 39: its constant rate, clipping
/// at 1, weight decay 0, train and validation scored at kValidationSteps.
llm::TrainingRun train(const llm::DecoderModel& model, const llm::EncodedCorpusPartitions& encoded,
                       const Candidate& candidate) {
  llm::AdamW optimizer(llm::AdamWConfig::create(candidate.learning_rate, 0.9, 0.999, 1e-8, 0.0),
                       llm::AdamWParameterGroups::partition(model.parameters(),
                                                            [](std::string_view) { return true; }));
  const llm::TrainerConfig config = llm::TrainerConfig::create(
      llm::LearningRateSchedule::create(std::vector<double>(kUpdates, candidate.learning_rate)),
      {kValidationSteps.begin(), kValidationSteps.end()}, kMaxGradientNorm);
  return llm::train_with_selection(
      llm::trainable_decoder(model), optimizer,
      epoch(encoded, Partition::Train, kUpdateBatch, llm::BatchOrder::shuffled(kSeed)),
      epoch(encoded, Partition::Train, kEvaluationBatch, llm::BatchOrder::sequential()),
      epoch(encoded, Partition::Validation, kEvaluationBatch, llm::BatchOrder::sequential()),
      config);
}
// endregion: end-to-end-training

std::vector<std::uint64_t> bits_of(const std::vector<llm::NamedValue>& values) {
  std::vector<std::uint64_t> bits;
  for (const llm::NamedValue& named : values) {
    const llm::Tensor tensor = named.value.materialize();  // alive while its values are read
    for (double v : tensor.values()) bits.push_back(std::bit_cast<std::uint64_t>(v));
  }
  return bits;
}

std::vector<std::uint64_t> bits_of(const std::vector<double>& values) {
  std::vector<std::uint64_t> bits;
  for (double v : values) bits.push_back(std::bit_cast<std::uint64_t>(v));
  return bits;
}

bool same_run(const llm::TrainingRun& a, const llm::TrainingRun& b) {
  return a.steps == b.steps && a.checkpoints == b.checkpoints &&
         a.selected.step == b.selected.step &&
         bits_of(a.selected.parameters) == bits_of(b.selected.parameters) &&
         bits_of(a.final_parameters) == bits_of(b.final_parameters) &&
         a.final_optimizer == b.final_optimizer;
}

std::vector<double> last_logits(const llm::DecoderModel& model, std::span<const TokenId> prefix) {
  const llm::NoGradScope no_graph;
  const llm::Tensor logits =
      model.forward(prefix, llm::Shape{1, prefix.size()}).value().materialize();
  const std::size_t v = model.config().vocabulary_size;
  const auto row = logits.values().subspan((prefix.size() - 1) * v, v);
  return {row.begin(), row.end()};
}

std::vector<double> all_logits(const llm::DecoderModel& model, std::span<const TokenId> prefix) {
  const llm::NoGradScope no_graph;
  const llm::Tensor logits =
      model.forward(prefix, llm::Shape{1, prefix.size()}).value().materialize();
  return {logits.values().begin(), logits.values().end()};
}

/// The alpha = 1 bigram's -ln p on every (input, target) slot of `test`.
llm::ModelScore bigram_slots(const llm::MiniBatchEpoch& test, const llm::BigramModel& bigram) {
  llm::ModelScore score;
  for (const llm::MiniBatch& batch : test.batches())
    for (std::size_t i = 0; i < batch.targets().size(); ++i) {
      score.total_nll -=
          std::log(bigram.smoothed_probability(batch.inputs()[i], batch.targets()[i]));
      ++score.target_count;
    }
  score.mean_nll = score.total_nll / static_cast<double>(score.target_count);
  score.perplexity = std::exp(score.mean_nll);
  return score;
}

/// The bytes as text: each complete UTF-8 sequence as it is, every other
/// byte as \xNN (a sampled token may end in the middle of a character).
std::string printable_text(const std::vector<std::uint8_t>& bytes) {
  std::string text;
  for (std::size_t i = 0; i < bytes.size();) {
    const std::uint8_t lead = bytes[i];
    const std::size_t length = lead < 0x80           ? 1
                               : (lead >> 5) == 0x6  ? 2
                               : (lead >> 4) == 0xE  ? 3
                               : (lead >> 3) == 0x1E ? 4
                                                     : 0;
    bool complete = length > 0 && i + length <= bytes.size();
    for (std::size_t k = 1; complete && k < length; ++k) complete = (bytes[i + k] >> 6) == 0x2;
    if (complete) {
      text.append(bytes.begin() + i, bytes.begin() + i + length);
      i += length;
    } else {
      char code[5];
      std::snprintf(code, sizeof code, "\\x%02x", lead);
      text += code;
      ++i;
    }
  }
  return text;
}

}  // namespace

// region: end-to-end-run
Evidence run(const std::filesystem::path& checkpoint_path) {
  Evidence e;
  // 1. Data: the committed corpus and its frozen split (chapter 2).
  const llm::CorpusPartitions partitions = book_corpus::partitions();
  e.corpus_checksum = partitions.corpus_checksum();
  e.split_strategy = partitions.strategy();
  e.train_ids = partitions.document_ids(Partition::Train);
  e.validation_ids = partitions.document_ids(Partition::Validation);
  e.test_ids = partitions.document_ids(Partition::Test);

  // 2. Tokenizer: merges learned from the train documents only (chapters 3-4).
  const llm::BpeTraining learned = llm::BpeTrainer(kMerges).train(partitions);
  const llm::BpeTokenizer tokenizer = llm::BpeTokenizer::from_training(learned);
  e.layout_version = tokenizer.layout().version();
  e.requested_merges = learned.requested_merges();
  e.learned_merges = tokenizer.merge_rules().size();
  e.tokenizer_training_only = learned.training_document_ids() == e.train_ids;
  e.vocabulary = tokenizer.vocabulary_size();
  const auto encoded = llm::EncodedCorpusPartitions::encode(partitions, tokenizer);
  for (Partition p : {Partition::Train, Partition::Validation, Partition::Test})
    e.encoded_tokens.push_back(encoded.token_count(p));

  // 3. Every candidate of the grid trained with validation selection; the
  //    lowest kept validation loss chooses the configuration (chapter 33).
  //    The test partition plays no part in it.
  std::vector<llm::TrainingRun> runs;
  for (const Candidate& candidate : kGrid) {
    const llm::DecoderModel model = fresh_model(e.vocabulary, candidate);
    runs.push_back(train(model, encoded, candidate));
    CandidateResult result{candidate,
                           model.parameter_count(),
                           {},
                           runs.back().selected.step,
                           runs.back().selected.validation_loss};
    for (const llm::LossCheckpoint& c : runs.back().checkpoints)
      result.checkpoints.push_back({c.step, c.train.mean_loss, c.validation.mean_loss, c.selected});
    if (e.grid.empty() || result.selected_validation < e.grid[e.chosen].selected_validation)
      e.chosen = e.grid.size();
    e.grid.push_back(result);
  }
  const Candidate& chosen = kGrid[e.chosen];
  const llm::TrainingRun& run = runs[e.chosen];
  e.parameters = e.grid[e.chosen].parameters;
  e.checkpoints = e.grid[e.chosen].checkpoints;

  // 4. The chosen candidate trained again from the same seed: bit for bit the same run.
  const llm::DecoderModel replay_model = fresh_model(e.vocabulary, chosen);
  e.replay_bitwise = same_run(run, train(replay_model, encoded, chosen));
  for (const llm::TrainingStep& s : run.steps) e.update_losses.push_back(s.train_loss);
  e.selected_step = run.selected.step;
  e.selected_validation = run.selected.validation_loss;
  e.optimizer_step = run.final_optimizer.step_count;
  const llm::DecoderModel selected = fresh_model(e.vocabulary, chosen);
  selected.parameters().load(run.selected.parameters);

  // 5. Baselines, fitted on train and frozen before the gate (chapter 7):
  //    alpha chosen on validation, and the earlier edition's alpha = 1.
  const llm::BigramBaseline tuned = llm::select_bigram_baseline(e.vocabulary, encoded);
  e.tuned_alpha = tuned.model.alpha();
  e.tuned_validation = tuned.validation.metrics.mean_nll();
  const llm::BigramModel add_one =
      llm::fit_bigram_on_training_partition(e.vocabulary, 1.0, encoded);

  // 6. The test partition, opened once for the decoder and the tuned bigram (chapter 34).
  const llm::MiniBatchEpoch test =
      epoch(encoded, Partition::Test, kEvaluationBatch, llm::BatchOrder::sequential());
  e.windows = {run.checkpoints.front().train.token_count / kContext,
               run.checkpoints.front().validation.token_count / kContext, test.window_count()};
  e.batches = {run.checkpoints.front().train.batch_count,
               run.checkpoints.front().validation.batch_count, test.batches().size()};
  llm::FinalEvaluator evaluator = llm::FinalEvaluator::create(test);
  e.gate_openings_before = evaluator.gate_openings();
  e.report = evaluator.evaluate_once(llm::trainable_decoder(selected), tuned.model);
  e.gate_openings_after = evaluator.gate_openings();
  e.add_one = bigram_slots(test, add_one);  // the same slots; nothing is chosen from it

  // 7. Checkpoint: save the selected state, load it, compare (chapter 35).
  const llm::Checkpoint checkpoint = llm::Checkpoint::create(
      llm::CheckpointTokenizer::byte_pair(tokenizer),
      llm::checkpoint_model_config(selected.config()), run.selected.parameters,
      run.selected.optimizer, run.selected.step, llm::SplitMix64(kGenerationSeed).state());
  const llm::EncodedCheckpoint saved = checkpoint.save(checkpoint_path.string());
  const llm::Checkpoint loaded = llm::Checkpoint::load(checkpoint_path.string());
  e.checkpoint_bytes = saved.bytes.size();
  e.header_bytes = saved.header_bytes;
  e.records = saved.records.size();
  e.checksum = saved.checksum_text();
  e.bytes_roundtrip = loaded.encode().bytes == saved.bytes;
  e.model_bits_exact = bits_of(loaded.parameters()) == bits_of(run.selected.parameters);
  e.optimizer_exact = loaded.optimizer_state() == run.selected.optimizer;
  const std::optional<llm::BpeTokenizer> loaded_tokenizer = loaded.tokenizer().bpe();
  e.tokenizer_exact =
      loaded_tokenizer && loaded_tokenizer->merge_rules() == tokenizer.merge_rules();
  e.stored_step = loaded.selected_step();
  e.stored_optimizer_step = loaded.optimizer_state().step_count;
  e.stored_generator = loaded.generator_state();
  const llm::DecoderModel restored = llm::restore_decoder(loaded);
  e.probe_ids = tokenizer.encode_content(std::string_view(kLogitProbe));
  e.probe_logits_bitwise =
      bits_of(all_logits(selected, e.probe_ids)) == bits_of(all_logits(restored, e.probe_ids));

  // 8. Generation from the loaded model, cached and uncached (chapters 36-38).
  e.prompt_ids = loaded_tokenizer->encode_content(std::string_view(kPrompt));
  const llm::GenerationConfig config{
      .policy = llm::SamplingPolicy::temperature_top_k(kTemperature, kTopK),
      .eos_token = llm::kEosTokenId,
      .max_new_tokens = kNewTokens};
  llm::SplitMix64 uncached_generator(e.stored_generator);
  const llm::GenerationResult uncached =
      llm::generate(e.vocabulary, kContext, e.prompt_ids, config, uncached_generator,
                    [&](std::span<const TokenId> prefix) { return last_logits(restored, prefix); });
  llm::SplitMix64 cached_generator(e.stored_generator);
  llm::DecoderKvCache cache = llm::DecoderKvCache::create(restored);
  e.cached = llm::generate_cached(restored, cache, e.prompt_ids, config, cached_generator);
  e.tokens_exact = e.cached.generated == uncached.generated;
  e.decisions_exact = e.cached.steps == uncached.steps && e.cached.stop == uncached.stop;
  e.generator_exact = cached_generator.state() == uncached_generator.state();
  e.generator_final = cached_generator.state();
  e.prefill_tokens = cache.work().prefill_tokens;
  e.decode_tokens = cache.work().decode_tokens;
  e.final_cache = cache.length();
  e.cached_scores = cache.work().attention_scores;
  for (const llm::GenerationStep& step : uncached.steps)
    e.complete_prefix_scores += kLayers * kHeads * step.prefix_length * step.prefix_length;
  std::vector<TokenId> content = e.cached.generated;
  if (e.cached.stop == llm::GenerationStop::Eos) content.pop_back();
  e.text = printable_text(loaded_tokenizer->decode_content(content));
  return e;
}
// endregion: end-to-end-run

}  // namespace ch39
