// Chapter 5 demo: cuts the worked document [BOS, 41, 42, 43, 44, EOS] into
// input/target pairs at context 3 and stride 1, reports the suffix too short
// for another pair, then encodes the book's frozen partitions and counts
// their pairs document by document. With --trace PATH it also writes four
// short documents in three partitions with all their pairs (the figures'
// tapes), the worked document at stride 2, and every corpus document's
// token and pair count.
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
  return {{"config",
           {{"context", config.context_length()},
            {"stride", config.stride()},
            {"required", config.required_source_tokens()}}},
          {"tapes", tapes},
          {"stride_two", tape_json("train", "train-a", {0, 41, 42, 43, 44, 1}, stride_two)},
          {"stride_two_corpus_pairs", stride_two_totals},
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
