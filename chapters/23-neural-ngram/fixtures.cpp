// The worked run of chapter 23.
#include "fixtures.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <span>
#include <stdexcept>
#include <utility>

#include "book_corpus.hpp"
#include "llm/evaluation/bigram_evaluation.hpp"
#include "llm/evaluation/language_model_metrics.hpp"
#include "llm/models/bigram.hpp"
#include "llm/text/bpe_trainer.hpp"
#include "llm/text/causal_windows.hpp"

namespace ch23 {

namespace {

void require(bool condition, const char* message) {
  if (!condition) throw std::runtime_error(std::string("fixture invariant failed: ") + message);
}

/// One partition's documents, encoded one by one.
struct EncodedPartition {
  llm::Partition partition;
  std::vector<std::string> ids;
  std::vector<std::vector<llm::TokenId>> tokens;  // [BOS, content..., EOS] each
};

struct PreparedData {
  llm::BpeTokenizer tokenizer;
  EncodedPartition train, validation;
  llm::MiniBatchEpoch train_evaluation, validation_evaluation;
  bool test_text_encoded =
      false;  ///< some encoded or scored document belongs to the test partition
};

// region: encode-train-and-validation
EncodedPartition encode_partition(const llm::CorpusPartitions& partitions, llm::Partition partition,
                                  const llm::BpeTokenizer& tokenizer) {
  EncodedPartition encoded{partition, {}, {}};
  for (const llm::Document& document : partitions.documents(partition)) {
    encoded.ids.push_back(document.id);
    encoded.tokens.push_back(tokenizer.encode_document(document.text));
  }
  return encoded;
}

llm::MiniBatchEpoch build_epoch(const EncodedPartition& encoded, llm::BatchOrder order,
                                std::size_t batch_size) {
  std::vector<llm::BatchDocument> documents;
  for (std::size_t d = 0; d < encoded.ids.size(); ++d)
    documents.push_back({encoded.ids[d], encoded.partition, encoded.tokens[d]});
  return llm::MiniBatchEpoch::build(encoded.partition, documents,
                                    llm::CausalWindowConfig::create(kContextLength, 1),
                                    llm::MiniBatchConfig::create(batch_size, order));
}

PreparedData prepare_data() {
  const llm::CorpusPartitions partitions = book_corpus::partitions();
  // Merges are learned from the training documents only (chapter 3).
  llm::BpeTokenizer tokenizer =
      llm::BpeTokenizer::from_training(llm::BpeTrainer(kRequestedMerges).train(partitions));
  // Only train and validation are encoded; the test documents are never read.
  EncodedPartition train = encode_partition(partitions, llm::Partition::Train, tokenizer);
  EncodedPartition validation = encode_partition(partitions, llm::Partition::Validation, tokenizer);
  llm::MiniBatchEpoch train_evaluation =
      build_epoch(train, llm::BatchOrder::sequential(), kEvaluationBatchSize);
  llm::MiniBatchEpoch validation_evaluation =
      build_epoch(validation, llm::BatchOrder::sequential(), kEvaluationBatchSize);
  // The boundary, checked rather than assumed: no encoded document is a test
  // document and no scored epoch reads the test partition.
  const std::vector<std::string> test_ids = partitions.document_ids(llm::Partition::Test);
  bool test_text_encoded = train_evaluation.partition() == llm::Partition::Test ||
                           validation_evaluation.partition() == llm::Partition::Test;
  for (const EncodedPartition* encoded : {&train, &validation})
    for (const std::string& id : encoded->ids)
      test_text_encoded = test_text_encoded || std::ranges::find(test_ids, id) != test_ids.end();
  return {std::move(tokenizer),
          std::move(train),
          std::move(validation),
          std::move(train_evaluation),
          std::move(validation_evaluation),
          test_text_encoded};
}
// endregion: encode-train-and-validation

llm::NeuralNgramConfig model_config(const PreparedData& data) {
  return llm::NeuralNgramConfig::create(data.tokenizer.vocabulary_size(), kContextLength,
                                        kEmbeddingWidth, kHiddenWidth);
}

std::vector<double> values_of(const llm::TensorValue& value) {
  const llm::Tensor tensor = value.value().materialize();
  return {tensor.values().begin(), tensor.values().end()};
}

void append_bits(std::vector<std::uint64_t>& bits, std::span<const double> values) {
  for (double value : values) bits.push_back(std::bit_cast<std::uint64_t>(value));
}

std::vector<std::uint64_t> parameter_bits(const llm::ParameterSet& parameters) {
  std::vector<std::uint64_t> bits;
  for (const llm::NamedParameter& entry : parameters) append_bits(bits, values_of(entry.parameter));
  return bits;
}

Probe initial_probe(const llm::NeuralNgram& model, const llm::BpeTokenizer& tokenizer) {
  Probe probe;
  probe.context_ids = tokenizer.encode_content(std::string_view(kPrompt));
  require(probe.context_ids.size() == kContextLength, "the prompt is not T tokens");
  const llm::NoGradScope no_graph;
  const llm::NeuralNgramPass pass = model.forward(probe.context_ids, 1);
  probe.embeddings = pass.embeddings.value().materialize();
  probe.concatenated = pass.concatenated.value().materialize();
  probe.hidden = pass.hidden.value().materialize();
  probe.logits = pass.logits.value().materialize();
  for (std::size_t id = 1; id < probe.logits.values().size(); ++id)
    if (probe.logits.values()[id] > probe.logits.values()[probe.argmax]) probe.argmax = id;
  probe.argmax_logit = probe.logits.values()[probe.argmax];
  probe.swapped_ids = {probe.context_ids.rbegin(), probe.context_ids.rend()};
  probe.swapped_hidden = model.forward(probe.swapped_ids, 1).hidden.value().materialize();
  return probe;
}

// region: greedy-continuation
Generation greedy_continuation(const llm::NeuralNgram& model, const llm::BpeTokenizer& tokenizer) {
  Generation generation;
  generation.prompt_ids = tokenizer.encode_content(std::string_view(kPrompt));
  std::vector<llm::TokenId> context = generation.prompt_ids;
  const llm::TokenId masked[] = {llm::kBosTokenId};  // a document never restarts
  for (std::size_t k = 0; k < kMaxNewTokens; ++k) {
    const llm::TokenId next = model.greedy_next(context, masked);
    if (next == llm::kEosTokenId) {
      generation.stopped_at_eos = true;
      break;
    }
    generation.generated_ids.push_back(next);
    context.erase(context.begin());  // slide the window: drop the oldest, append the newest
    context.push_back(next);
  }
  generation.bytes = tokenizer.decode_content(generation.generated_ids);
  return generation;
}
// endregion: greedy-continuation

double l1_norm(const llm::Tensor& tensor) {
  double sum = 0.0;
  for (double value : tensor.values()) sum += std::abs(value);
  return sum;
}

// region: training-run
RunEvidence run_once(const PreparedData& data) {
  RunEvidence run;
  llm::SplitMix64 generator(kInitSeed);
  const llm::NeuralNgram model = llm::NeuralNgram::initialized(model_config(data), generator);
  const llm::ParameterSet parameters = model.parameters();
  std::vector<std::string> names;
  for (const llm::NamedParameter& entry : parameters) names.push_back(entry.name);
  llm::AdamW optimizer(optimizer_config(), llm::AdamWParameterGroups::create(names, {}));
  const llm::ParameterSet initial_handles = parameters;  // the nodes AdamW must update in place

  run.probe = initial_probe(model, data.tokenizer);
  const auto checkpoint = [&](std::size_t step) {
    run.checkpoints.push_back({step, llm::neural_ngram_mean_loss(model, data.train_evaluation),
                               llm::neural_ngram_mean_loss(model, data.validation_evaluation)});
  };
  checkpoint(0);
  llm::ParameterSnapshot best = parameters.snapshot();
  std::size_t step = 0;
  for (std::size_t epoch = 0; epoch < kEpochs; ++epoch) {
    const llm::MiniBatchEpoch batches =
        build_epoch(data.train, llm::BatchOrder::shuffled(kShuffleSeed + epoch), kBatchSize);
    for (const llm::MiniBatch& batch : batches.batches()) {
      llm::neural_ngram_loss(model, batch)
          .backward_with_seed(llm::Tensor::scalar(1.0), llm::Retention::Release);
      if (step == 0) {
        for (const llm::NamedParameter& entry : parameters)
          run.first_gradient_l1.push_back(l1_norm(*entry.parameter.gradient()));
      }
      optimizer.step(parameters);  // reads the gradients and leaves them in place
      parameters.zero_grad();      // so the next batch starts from zero
      ++step;
    }
    if ((epoch + 1) % kEpochsPerCheckpoint != 0) continue;
    checkpoint(step);
    // Model selection reads validation only: keep the parameters of the
    // lowest validation loss seen so far.
    if (run.checkpoints.back().validation_loss < run.checkpoints[run.selected].validation_loss) {
      run.selected = run.checkpoints.size() - 1;
      best = parameters.snapshot();
    }
  }
  run.gradients_cleared = true;
  for (const llm::NamedParameter& entry : parameters)
    for (double value : entry.parameter.gradient()->values())
      run.gradients_cleared = run.gradients_cleared && value == 0.0;
  run.parameter_nodes_preserved = true;
  for (std::size_t i = 0; i < parameters.size(); ++i)
    run.parameter_nodes_preserved =
        run.parameter_nodes_preserved &&
        parameters[i].parameter.is_same_node(initial_handles[i].parameter);
  parameters.restore(best);  // the selected model, into the same nodes
  run.generation = greedy_continuation(model, data.tokenizer);
  run.selected_parameter_bits = parameter_bits(parameters);
  run.parameter_names = names;
  return run;
}
// endregion: training-run

// region: bigram-on-the-same-targets
// The mean NLL of `model` on the validation targets, all of them or only
// those with T tokens before them (the targets the neural n-gram scores).
double bigram_validation_nll(const llm::BigramModel& model, const EncodedPartition& validation,
                             std::size_t first_target) {
  llm::NllAccumulator scored;
  for (const std::vector<llm::TokenId>& tokens : validation.tokens)
    for (std::size_t t = first_target; t < tokens.size(); ++t)
      scored.add(model.smoothed_probability(tokens[t - 1], tokens[t]));
  return scored.finish().mean_nll();
}

BigramComparison bigram_comparison(const PreparedData& data) {
  const std::size_t V = data.tokenizer.vocabulary_size();
  const std::vector<std::span<const llm::TokenId>> train(data.train.tokens.begin(),
                                                         data.train.tokens.end());
  const std::vector<std::span<const llm::TokenId>> validation(data.validation.tokens.begin(),
                                                              data.validation.tokens.end());
  // Chapter 7's two bigrams: add-one, and alpha chosen on validation.
  const llm::BigramModel add_one = llm::BigramModel::fit(V, 1.0, train);
  const llm::BigramBaseline tuned = llm::select_bigram_baseline(V, train, validation);
  BigramComparison comparison;
  comparison.add_one_all_targets = bigram_validation_nll(add_one, data.validation, 1);
  comparison.add_one_same_targets = bigram_validation_nll(add_one, data.validation, kContextLength);
  comparison.tuned_alpha = tuned.model.alpha();
  comparison.tuned_all_targets = tuned.validation.metrics.mean_nll();
  comparison.tuned_same_targets =
      bigram_validation_nll(tuned.model, data.validation, kContextLength);
  comparison.all_targets = tuned.validation.metrics.target_count();
  comparison.same_targets = data.validation_evaluation.window_count();
  comparison.uniform = std::log(static_cast<double>(V));
  for (const std::vector<llm::TokenId>& tokens : data.train.tokens)
    comparison.train_transitions += tokens.size() - 1;
  return comparison;
}
// endregion: bigram-on-the-same-targets

bool same_run(const RunEvidence& a, const RunEvidence& b) {
  const auto bits = [](const RunEvidence& run) {
    std::vector<std::uint64_t> all = run.selected_parameter_bits;
    for (const Checkpoint& c : run.checkpoints)
      append_bits(all, {{c.train_loss, c.validation_loss}});
    append_bits(all, run.first_gradient_l1);
    append_bits(all, run.probe.logits.values());
    return all;
  };
  return bits(a) == bits(b) && a.selected == b.selected &&
         a.generation.generated_ids == b.generation.generated_ids;
}

}  // namespace

llm::AdamWConfig optimizer_config() {
  return llm::AdamWConfig::create(kLearningRate, kBeta1, kBeta2, kEpsilon, kWeightDecay);
}

std::string shape_chain(const llm::NeuralNgramConfig& config) {
  const auto shape = [](std::initializer_list<std::size_t> extents) {
    std::string text = "[";
    for (std::size_t extent : extents)
      text += (text.size() > 1 ? ", " : "") + std::to_string(extent);
    return text + "]";
  };
  const std::size_t T = config.context_length();
  return shape({1, T}) + " -> " + shape({1, T, config.embedding_width()}) + " -> " +
         shape({1, config.context_feature_width()}) + " -> " + shape({1, config.hidden_width()}) +
         " -> " + shape({1, config.vocabulary_size()});
}

DataSummary summarize(const PreparedData& data) {
  DataSummary summary;
  summary.vocabulary_size = data.tokenizer.vocabulary_size();
  summary.train_documents = data.train.ids.size();
  summary.validation_documents = data.validation.ids.size();
  summary.train_contexts = data.train_evaluation.window_count();
  summary.validation_contexts = data.validation_evaluation.window_count();
  summary.train_batches =
      build_epoch(data.train, llm::BatchOrder::shuffled(kShuffleSeed), kBatchSize).batches().size();
  summary.test_text_encoded = data.test_text_encoded;
  return summary;
}

// region: chapter-neural-ngram-fixture
LearnerEvidence learner_evidence() {
  const PreparedData data = prepare_data();
  LearnerEvidence evidence{summarize(data), model_config(data), run_once(data), false,
                           bigram_comparison(data)};
  evidence.replay_bitwise = same_run(evidence.run, run_once(data));  // a second, independent model
  const RunEvidence& run = evidence.run;
  require(!evidence.data.test_text_encoded, "test text was encoded or scored");
  require(evidence.replay_bitwise, "the same seeds did not replay bit for bit");
  require(run.parameter_nodes_preserved, "AdamW replaced a parameter node");
  require(run.gradients_cleared, "a parameter gradient was not zero after the last step");
  require(run.checkpoints[run.selected].validation_loss < run.checkpoints[0].validation_loss,
          "validation loss never improved");
  return evidence;
}
// endregion: chapter-neural-ngram-fixture

// region: historical-context-road
HistoricalContextEvidence historical_context_evidence() {
  // Two contexts that end in the same token 11, followed by 12 and by 13.
  const std::array<std::pair<std::array<llm::TokenId, 2>, llm::TokenId>, 2> examples = {
      {{{10, 11}, 12}, {{20, 11}, 13}}};
  std::map<llm::TokenId, std::map<llm::TokenId, std::size_t>> by_last_token;
  std::map<std::array<llm::TokenId, 2>, std::map<llm::TokenId, std::size_t>> by_context;
  for (const auto& [context, next] : examples) {
    ++by_last_token[context[1]][next];
    ++by_context[context][next];
  }
  return {by_last_token[11].size(),
          {by_context[{10, 11}].size(), by_context[{20, 11}].size()},
          kContextLength * kEmbeddingWidth};
}
// endregion: historical-context-road

}  // namespace ch23
