// Chapter 3 demo: learns eight merges from the book's training documents
// only, prints them, then traces two rounds on two tiny documents ("aaa" and
// "aba") in full. With --trace PATH it also writes the tiny trace and, for
// every corpus round, the leading candidates, so the figures can show the
// two ties the numeric rule decides, and the compression curve of up to
// kCurveMerges merges on the training and the validation documents.
#include <algorithm>
#include <exception>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "book_corpus.hpp"
#include "demo_lists.hpp"
#include "demo_trace.hpp"
#include "llm/text/bpe_trainer.hpp"
#include "rounds.hpp"
#include "whole_word_vocabulary.hpp"

namespace {

using demo::Json;
using llm::BpeTraining;
using llm::Partition;
using llm::TokenId;
using llm::TokenPair;
using Sequences = std::vector<std::vector<TokenId>>;

/// How many merges the compression curve learns: far more than the eight
/// the chapter prints, enough to see the partitions part ways.
constexpr std::size_t kCurveMerges = 512;

std::string pair_text(TokenPair pair) {
  return "(" + std::to_string(pair.left) + "," + std::to_string(pair.right) + ")";
}

// region: chapter-fixture-trace
void print_stage(std::size_t index, const Sequences& sequences) {
  std::cout << "STAGE index=" << index << '\n';
  std::cout << "DOCUMENT stage=" << index
            << " id=train-aaa tokens=" << demo::joined(sequences[0], ",") << '\n';
  std::cout << "DOCUMENT stage=" << index
            << " id=train-aba tokens=" << demo::joined(sequences[1], ",") << '\n';
}

// Prints the two rounds on "aaa" | "aba"; `fixture` ends in the last stage.
std::vector<ch03::TracedRound> print_fixture_trace(Sequences& fixture) {
  fixture = {llm::bytes_to_tokens("aaa"), llm::bytes_to_tokens("aba")};
  const std::vector<ch03::TracedRound> rounds = ch03::traced_rounds(fixture, 2);
  std::cout << "TRACE bpe-merges-v1 BEGIN\n";
  for (const ch03::TracedRound& round : rounds) {
    print_stage(round.rank, round.before);
    for (const auto& [pair, count] : round.candidates) {
      std::cout << "CANDIDATE rank=" << round.rank << " left=" << pair.left
                << " right=" << pair.right << " count=" << count
                << " winner=" << (pair == round.winner ? "yes" : "no") << '\n';
    }
    std::cout << "MERGE rank=" << round.rank << " left=" << round.winner.left
              << " right=" << round.winner.right << " count=" << round.count
              << " replacements=" << round.replacements << " token=" << round.token_id
              << " bytes_hex=" << demo::hex_text(round.bytes) << '\n';
  }
  print_stage(rounds.size(), fixture);
  std::cout << "TRACE bpe-merges-v1 END\n";
  return rounds;
}
// endregion: chapter-fixture-trace

Json round_json(const ch03::TracedRound& round, std::size_t leading) {
  std::vector<std::pair<TokenPair, std::size_t>> ranked(round.candidates.begin(),
                                                        round.candidates.end());
  // Largest count first; equal counts in numeric pair order, the tie rule's order.
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  Json candidates = Json::array();
  for (std::size_t i = 0; i < std::min(leading, ranked.size()); ++i) {
    candidates.push_back({{"left", ranked[i].first.left},
                          {"right", ranked[i].first.right},
                          {"count", ranked[i].second},
                          {"winner", ranked[i].first == round.winner}});
  }
  return {{"rank", round.rank},
          {"candidate_pairs", round.candidates.size()},
          {"candidates", candidates},
          {"left", round.winner.left},
          {"right", round.winner.right},
          {"count", round.count},
          {"replacements", round.replacements},
          {"token", round.token_id},
          {"bytes", round.bytes}};
}

Json fixture_json(const std::vector<ch03::TracedRound>& rounds, const Sequences& final_stage) {
  Json stages = Json::array();
  for (const ch03::TracedRound& round : rounds) stages.push_back(round.before);
  stages.push_back(final_stage);
  Json traced = Json::array();
  for (const ch03::TracedRound& round : rounds)
    traced.push_back(round_json(round, round.candidates.size()));
  return {{"documents", {"train-aaa", "train-aba"}}, {"stages", stages}, {"rounds", traced}};
}

std::size_t total_size(const Sequences& sequences) {
  std::size_t total = 0;
  for (const auto& sequence : sequences) total += sequence.size();
  return total;
}

// The figures' data: the tiny trace, and each corpus round again with its
// leading candidates, checked against the trainer's rules.
Json trace_json(const llm::CorpusPartitions& partitions, const BpeTraining& training,
                const std::vector<ch03::TracedRound>& fixture, const Sequences& fixture_final) {
  Sequences sequences;
  for (const llm::Document& document : partitions.training_documents()) {
    sequences.push_back(llm::bytes_to_tokens(document.text));
  }
  const std::size_t bytes_before = total_size(sequences);
  Json rounds = Json::array();
  for (const ch03::TracedRound& round : ch03::traced_rounds(sequences, 8)) {
    const llm::MergeRule& rule = training.rules().at(round.rank);
    if (rule.pair != round.winner || rule.candidate_count != round.count) {
      throw std::logic_error("traced round " + std::to_string(round.rank) +
                             " disagrees with the trainer");
    }
    rounds.push_back(round_json(round, 4));
  }
  const ch03::CompressionCurve curve = ch03::compression_curve(partitions, kCurveMerges);
  if (curve.train_tokens.at(8) != total_size(training.final_sequences())) {
    throw std::logic_error("the compression curve disagrees with the eight-merge training");
  }
  Json merges = Json::array();
  for (std::size_t k = 0; k < curve.rules.size(); ++k) {
    merges.push_back({{"rank", curve.rules[k].rank},
                      {"count", curve.rules[k].candidate_count},
                      {"bytes", curve.merged[k]}});
  }
  const Json compression = {{"requested_merges", kCurveMerges},
                            {"train_bytes", curve.train_bytes},
                            {"validation_bytes", curve.validation_bytes},
                            {"train_tokens", curve.train_tokens},
                            {"validation_tokens", curve.validation_tokens},
                            {"merges", merges}};
  return {{"fixture", fixture_json(fixture, fixture_final)},
          {"corpus_rounds", rounds},
          {"compression", compression},
          {"training_bytes", bytes_before},
          {"training_tokens_after", total_size(training.final_sequences())}};
}

}  // namespace

// region: chapter-output
int main(int argc, char** argv) try {
  const auto trace_path = demo::trace_path(argc, argv);
  const llm::CorpusPartitions partitions = book_corpus::partitions();
  const BpeTraining training = llm::BpeTrainer(8).train(partitions);  // the train split only

  std::cout << "corpus checksum: " << partitions.corpus_checksum() << '\n';
  std::cout << "statistics source: train only\n";
  std::cout << "training documents: " << demo::quoted_list(training.training_document_ids())
            << '\n';
  std::cout << "held out from trainer: validation="
            << partitions.documents(Partition::Validation).size()
            << " test=" << partitions.documents(Partition::Test).size() << '\n';
  std::cout << "merge rounds: requested=" << training.requested_merges()
            << " learned=" << training.rules().size() << '\n';
  for (const llm::MergeRule& rule : training.rules()) {
    std::cout << "corpus rank " << rule.rank << ": pair=" << pair_text(rule.pair)
              << " count=" << rule.candidate_count << " replacements=" << rule.replacement_count
              << " token=" << rule.token_id << " bytes=["
              << demo::hex_text(*training.token_bytes(rule.token_id), ", ") << "]\n";
  }

  Sequences fixture_final;
  const std::vector<ch03::TracedRound> fixture = print_fixture_trace(fixture_final);
  const Sequences a_and_a = {llm::bytes_to_tokens("a"), llm::bytes_to_tokens("a")};
  std::cout << "document barrier candidates for A=\"a\" B=\"a\": "
            << llm::count_adjacent_pairs(a_and_a).size() << '\n';

  const auto words = demo::fit_whole_word_vocabulary({"low lower", "new newest"});
  std::cout << "historical whole-word types: " << words.size() << '\n';
  std::cout << "historical lookup lower: " << demo::encode_whole_word(words, "lower") << '\n';
  std::cout << "historical lookup lowering: " << demo::encode_whole_word(words, "lowering")
            << " (unknown)\n";
  std::cout << "chapter 4 handoff: freeze ranks and encode arbitrary bytes\n";

  demo::write_trace(trace_path, trace_json(partitions, training, fixture, fixture_final));
  return 0;
} catch (const std::exception& error) {
  std::cerr << "chapter 3 demo failed: " << error.what() << '\n';
  return 1;
}
// endregion: chapter-output
