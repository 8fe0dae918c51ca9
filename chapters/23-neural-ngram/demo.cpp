// Chapter 23 demo: a neural n-gram on the book's corpus. The untrained
// model's pass over the prompt's two IDs, the first gradient of every
// parameter, train and validation losses after every epoch, the model
// selected on validation and its greedy continuation, and the checks on the
// run. With --trace PATH it also writes every checkpoint, the probe's
// stages and the bigram comparison for the figures.
#include <exception>
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "demo_lists.hpp"
#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"

namespace {

using demo::Json;
using llm::format_fixed;

std::string ids_text(std::span<const llm::TokenId> ids) {
  return demo::list_text(ids);
}

std::string values_text(std::span<const double> values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i)
    text += (i == 0 ? "" : ", ") + format_fixed(values[i], 6);
  return text + "]";
}

std::string shape_text(const llm::Shape& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    text += (i == 0 ? "" : ", ") + std::to_string(shape[i]);
  return text + "]";
}

const char* bool_text(bool value) {
  return value ? "true" : "false";
}

Json trace_json(const ch23::LearnerEvidence& evidence) {
  const ch23::RunEvidence& run = evidence.run;
  Json checkpoints = Json::array();
  for (const ch23::Checkpoint& c : run.checkpoints)
    checkpoints.push_back(
        {{"step", c.step}, {"train", c.train_loss}, {"validation", c.validation_loss}});
  const ch23::Probe& p = run.probe;
  return {{"config",
           {{"vocabulary", evidence.config.vocabulary_size()},
            {"context", evidence.config.context_length()},
            {"embedding", evidence.config.embedding_width()},
            {"hidden", evidence.config.hidden_width()},
            {"features", evidence.config.context_feature_width()},
            {"parameters", evidence.config.parameter_count()},
            {"batch", ch23::kBatchSize},
            {"evaluation_batch", ch23::kEvaluationBatchSize},
            {"epochs", ch23::kEpochs},
            {"init_seed", ch23::kInitSeed},
            {"shuffle_seed", ch23::kShuffleSeed},
            {"learning_rate", ch23::kLearningRate},
            {"beta1", ch23::kBeta1},
            {"beta2", ch23::kBeta2},
            {"epsilon", ch23::kEpsilon},
            {"weight_decay", ch23::kWeightDecay}}},
          {"data",
           {{"train_documents", evidence.data.train_documents},
            {"validation_documents", evidence.data.validation_documents},
            {"train_contexts", evidence.data.train_contexts},
            {"validation_contexts", evidence.data.validation_contexts},
            {"train_batches", evidence.data.train_batches}}},
          {"prompt", ch23::kPrompt},
          {"probe",
           {{"context_ids", p.context_ids},
            {"embeddings", demo::tensor_json(p.embeddings)},
            {"concatenated", demo::tensor_json(p.concatenated)},
            {"hidden", demo::tensor_json(p.hidden)},
            {"logits_shape", p.logits.shape()},
            {"logits_preview",
             std::vector<double>(p.logits.values().begin(), p.logits.values().begin() + 6)},
            {"argmax", p.argmax},
            {"argmax_logit", p.argmax_logit},
            {"swapped_ids", p.swapped_ids},
            {"swapped_hidden", demo::tensor_json(p.swapped_hidden)}}},
          {"parameter_names", run.parameter_names},
          {"first_gradient_l1", run.first_gradient_l1},
          {"checkpoints", checkpoints},
          {"selected", run.selected},
          {"generation",
           {{"prompt_ids", run.generation.prompt_ids},
            {"ids", run.generation.generated_ids},
            {"stop", run.generation.stopped_at_eos ? "eos" : "limit"},
            {"bytes_hex", demo::hex_text(run.generation.bytes, "")}}},
          {"bigram",
           {{"add_one_all_targets", evidence.bigram.add_one_all_targets},
            {"add_one_same_targets", evidence.bigram.add_one_same_targets},
            {"tuned_alpha", evidence.bigram.tuned_alpha},
            {"tuned_all_targets", evidence.bigram.tuned_all_targets},
            {"tuned_same_targets", evidence.bigram.tuned_same_targets},
            {"all_targets", evidence.bigram.all_targets},
            {"same_targets", evidence.bigram.same_targets},
            {"uniform", evidence.bigram.uniform},
            {"train_transitions", evidence.bigram.train_transitions}}}};
}

}  // namespace

// region: learner-neural-ngram-output
int main(int argc, char** argv) try {
  const auto trace_path = demo::trace_path(argc, argv);
  const ch23::LearnerEvidence evidence = ch23::learner_evidence();
  const ch23::HistoricalContextEvidence history = ch23::historical_context_evidence();
  const ch23::RunEvidence& run = evidence.run;
  const llm::NeuralNgramConfig& config = evidence.config;
  const ch23::Probe& probe = run.probe;
  const ch23::Checkpoint& initial = run.checkpoints.front();
  const ch23::Checkpoint& selected = run.checkpoints[run.selected];

  std::cout << "chapter=23-neural-ngram\n";
  std::cout << "prediction=" << ch23::shape_chain(config) << '\n';
  std::cout << "config=vocabulary:" << config.vocabulary_size()
            << " context:" << config.context_length() << " embedding:" << config.embedding_width()
            << " hidden:" << config.hidden_width() << " parameters:" << config.parameter_count()
            << " batch:" << ch23::kBatchSize << " evaluation_batch:" << ch23::kEvaluationBatchSize
            << " steps:" << run.checkpoints.back().step << '\n';
  std::cout << "split=train_documents:" << evidence.data.train_documents
            << " validation_documents:" << evidence.data.validation_documents
            << " train_contexts:" << evidence.data.train_contexts
            << " validation_contexts:" << evidence.data.validation_contexts
            << " test_text_used:" << bool_text(evidence.data.test_text_encoded) << '\n';
  std::cout << "probe_context=" << ids_text(probe.context_ids) << '\n';
  std::cout << "probe_embeddings=shape:" << shape_text(probe.embeddings.shape())
            << " values:" << values_text(probe.embeddings.values()) << '\n';
  std::cout << "probe_hidden=shape:" << shape_text(probe.hidden.shape())
            << " values:" << values_text(probe.hidden.values()) << '\n';
  std::cout << "probe_logits=shape:" << shape_text(probe.logits.shape())
            << " preview:" << values_text(probe.logits.values().first(6))
            << " argmax:" << probe.argmax << " value:" << format_fixed(probe.argmax_logit, 6)
            << '\n';
  std::cout << "first_gradient_l1=" << values_text(run.first_gradient_l1) << '\n';
  for (const ch23::Checkpoint& c : run.checkpoints) {
    std::cout << "checkpoint[" << c.step << "]=train:" << format_fixed(c.train_loss, 6)
              << " validation:" << format_fixed(c.validation_loss, 6) << '\n';
  }
  std::cout << "validation_improvement="
            << format_fixed(initial.validation_loss - selected.validation_loss, 6) << '\n';
  std::cout << "generation=prompt:" << ch23::kPrompt
            << " prompt_ids:" << ids_text(run.generation.prompt_ids)
            << " ids:" << ids_text(run.generation.generated_ids)
            << " stop:" << (run.generation.stopped_at_eos ? "eos" : "limit")
            << " bytes_hex:" << demo::hex_text(run.generation.bytes, "") << '\n';
  std::cout << "historical=bigram_followers:" << history.bigram_followers
            << " fixed_context_followers:[" << history.context_followers[0] << ", "
            << history.context_followers[1]
            << "] neural_context_width:" << history.neural_context_width << '\n';
  bool gradients_positive = run.first_gradient_l1.size() == 5;
  for (double l1 : run.first_gradient_l1) gradients_positive = gradients_positive && l1 > 0.0;
  std::cout << "all_parameter_gradient_l1_positive_finite=" << bool_text(gradients_positive)
            << '\n';
  std::cout << "all_parameter_nodes_preserved=" << bool_text(run.parameter_nodes_preserved) << '\n';
  std::cout << "all_post_update_gradients_cleared=" << bool_text(run.gradients_cleared) << '\n';
  std::cout << "same_seed_replays_bitwise=" << bool_text(evidence.replay_bitwise) << '\n';
  std::cout << "test_text_encoded_or_scored=" << bool_text(evidence.data.test_text_encoded) << '\n';
  std::cout << "next=replace fixed concatenation with causal sequence mixing\n";
  demo::write_trace(trace_path, trace_json(evidence));
  return 0;
} catch (const std::exception& error) {
  std::cerr << "chapter 23 demo failed: " << error.what() << '\n';
  return 1;
}
// endregion: learner-neural-ngram-output
