// Chapter 5 demo: cuts the worked document [BOS, 41, 42, 43, 44, EOS] into
// input/target pairs at context 3 and stride 1, reports the suffix too short
// for another pair, then encodes the book's frozen partitions and counts
// their pairs document by document. With --trace PATH it also writes four
// short documents in three partitions with all their pairs (the figures'
// tapes), the worked document at stride 2, which target positions the
// worked document and a seven-token one lose at strides 1, 2 and 4, and
// every corpus document's token and pair count, with the documents whose EOS
// is never a target at stride 2.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "book_corpus.hpp"
#include "demo_lists.hpp"
#include "demo_trace.hpp"
#include "labeled.hpp"
#include "llm/text/causal_windows.hpp"
#include "llm/text/encoded_corpus.hpp"

namespace {

using demo::Json;
using llm::CausalWindowConfig;
using llm::Partition;
using llm::TokenId;
using Ids = std::vector<TokenId>;

std::string ids_text(std::span<const TokenId> ids) {
  return demo::list_text(ids);
}

// One document's pairs and suffix as trace data.
Json tape_json(std::string_view partition, std::string_view id, const Ids& tokens,
               const CausalWindowConfig& config) {
  Json windows = Json::array();
  for (const llm::CausalWindow& pair : config.windows(tokens)) {
    windows.push_back({{"start", pair.start},
                       {"input", Ids(pair.input.begin(), pair.input.end())},
                       {"target", Ids(pair.target.begin(), pair.target.end())}});
  }
  const auto tail = config.incomplete_tail(tokens);
  Json tail_json = nullptr;
  if (tail)
    tail_json = {{"start", tail->start}, {"tokens", Ids(tail->tokens.begin(), tail->tokens.end())}};
  return {{"partition", partition},
          {"id", id},
          {"tokens", tokens},
          {"windows", windows},
          {"tail", tail_json}};
}

// region: target-coverage
// The target positions some pair predicts: each pair at start s predicts
// positions s + 1 .. s + T. Position 0 (BOS) is never a target.
std::vector<bool> covered_targets(std::span<const TokenId> tokens,
                                  const CausalWindowConfig& config) {
  std::vector<bool> covered(tokens.size(), false);
  for (const llm::CausalWindow& pair : config.windows(tokens)) {
    for (std::size_t i = 1; i <= config.context_length(); ++i) covered[pair.start + i] = true;
  }
  return covered;
}
// endregion: target-coverage

// One document at one stride: its starts and the targets no pair predicts.
Json coverage_json(std::string_view id, const Ids& tokens, std::size_t stride) {
  const CausalWindowConfig config = CausalWindowConfig::create(3, stride);
  Json starts = Json::array();
  for (const llm::CausalWindow& pair : config.windows(tokens)) starts.push_back(pair.start);
  const std::vector<bool> covered = covered_targets(tokens, config);
  Json missed = Json::array();
  for (std::size_t position = 1; position < tokens.size(); ++position) {
    if (!covered[position]) missed.push_back({{"position", position}, {"token", tokens[position]}});
  }
  return {{"id", id},         {"tokens", tokens}, {"context", config.context_length()},
          {"stride", stride}, {"starts", starts}, {"missed", missed}};
}

Json trace_json(const CausalWindowConfig& config, const llm::EncodedCorpusPartitions& encoded) {
  // Four short tapes in three partitions: pairs restart at every boundary.
  Json tapes = Json::array();
  tapes.push_back(tape_json("train", "train-a", {0, 41, 42, 43, 44, 1}, config));
  tapes.push_back(tape_json("train", "train-b", {0, 51, 52, 1}, config));
  tapes.push_back(tape_json("validation", "validation-a", {0, 61, 62, 63, 1}, config));
  tapes.push_back(tape_json("test", "test-a", {0, 71, 1}, config));
  Json documents = Json::array();
  for (Partition partition : llm::kPartitions) {
    for (const llm::EncodedDocument& document : encoded.documents(partition)) {
      documents.push_back({{"partition", llm::partition_label(partition)},
                           {"id", document.id},
                           {"tokens", document.token_ids.size()},
                           {"pairs", config.window_count(document.token_ids.size())}});
    }
  }
  const CausalWindowConfig stride_two = CausalWindowConfig::create(3, 2);
  Json stride_two_totals = Json::object();
  for (Partition partition : llm::kPartitions) {
    stride_two_totals[std::string(llm::partition_label(partition))] =
        encoded.window_count(partition, stride_two);
  }
  Json coverage = Json::array();
  for (const auto& [id, tokens] :
       {std::pair<std::string_view, Ids>{"train-a", {0, 41, 42, 43, 44, 1}},
        {"seven-tokens", {0, 41, 42, 43, 44, 45, 1}}}) {
    for (std::size_t stride : {1, 2, 4}) coverage.push_back(coverage_json(id, tokens, stride));
  }
  // The corpus at stride 2: documents whose EOS no pair predicts.
  Json eos_missed = Json::array();
  std::size_t corpus_documents = 0;
  for (Partition partition : llm::kPartitions) {
    for (const llm::EncodedDocument& document : encoded.documents(partition)) {
      ++corpus_documents;
      if (!covered_targets(document.token_ids, stride_two).back()) {
        eos_missed.push_back({{"id", document.id}, {"tokens", document.token_ids.size()}});
      }
    }
  }
  return {{"config",
           {{"context", config.context_length()},
            {"stride", config.stride()},
            {"required", config.required_source_tokens()}}},
          {"tapes", tapes},
          {"stride_two", tape_json("train", "train-a", {0, 41, 42, 43, 44, 1}, stride_two)},
          {"stride_two_corpus_pairs", stride_two_totals},
          {"coverage", coverage},
          {"stride_two_eos_missed", eos_missed},
          {"corpus_documents", corpus_documents},
          {"documents", documents}};
}

}  // namespace

// region: chapter-output
int main(int argc, char** argv) try {
  const auto trace_path = demo::trace_path(argc, argv);
  std::cout << "task-specific hand-labeled contrast: sentiment rows="
            << ch05::kHandLabeledRows.size() << '\n';
  for (std::size_t index = 0; index < ch05::kHandLabeledRows.size(); ++index) {
    const ch05::LabeledRow& row = ch05::kHandLabeledRows[index];
    std::cout << "labeled row " << index << ": input=" << ids_text(row.input)
              << " label=" << ch05::label_name(row.label) << '\n';
  }

  const Ids source = {0, 41, 42, 43, 44, 1};
  const CausalWindowConfig config = CausalWindowConfig::create(3, 1);
  std::cout << "source sequence for next-token targets: " << ids_text(source) << '\n';
  std::cout << "config: context=" << config.context_length() << " stride=" << config.stride()
            << " required=" << config.required_source_tokens() << '\n';
  std::cout << "generated pairs: " << config.window_count(source.size()) << '\n';
  for (const llm::CausalWindow& pair : config.windows(source)) {
    std::cout << "pair start=" << pair.start << " input=" << ids_text(pair.input)
              << " target=" << ids_text(pair.target) << '\n';
  }
  const auto tail = config.incomplete_tail(source);
  std::cout << "next start too short: start=" << tail.value().start
            << " tokens=" << ids_text(tail.value().tokens)
            << " required=" << config.required_source_tokens() << " emitted=false\n";
  const Ids short_document = {0, 61, 1};
  std::cout << "short document: " << ids_text(short_document)
            << " pairs=" << config.window_count(short_document.size())
            << " suffix=" << ids_text(config.incomplete_tail(short_document).value().tokens)
            << '\n';

  // The book's corpus: train merges on the train split, freeze, encode each document alone.
  const llm::CorpusPartitions partitions = book_corpus::partitions();
  const llm::BpeTokenizer tokenizer =
      llm::BpeTokenizer::from_training(llm::BpeTrainer(8).train(partitions));
  const auto encoded = llm::EncodedCorpusPartitions::encode(partitions, tokenizer);
  std::cout << "frozen encoded documents: train=" << encoded.documents(Partition::Train).size()
            << " validation=" << encoded.documents(Partition::Validation).size()
            << " test=" << encoded.documents(Partition::Test).size() << '\n';
  std::cout << "encoded pairs at context=" << config.context_length()
            << " stride=" << config.stride()
            << ": train=" << encoded.window_count(Partition::Train, config)
            << " validation=" << encoded.window_count(Partition::Validation, config)
            << " test=" << encoded.window_count(Partition::Test, config) << '\n';
  std::cout << "chapter 6 handoff: count each adjacent training-document transition once\n";

  demo::write_trace(trace_path, trace_json(config, encoded));
  return 0;
} catch (const std::exception& error) {
  std::cerr << "chapter 5 demo failed: " << error.what() << '\n';
  return 1;
}
// endregion: chapter-output
