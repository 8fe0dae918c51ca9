// Chapter 4 demo: freezes the eight merges learned from the book's training
// documents into a tokenizer, prints its ID layout, encodes an emoji it never
// saw and two bytes that are not UTF-8, shows a strict document decode and
// two segmentations of the same bytes, then traces two inputs through
// encoding and back. With --trace PATH it also writes the frozen rules,
// each traced input, and what a few characters and emoji cost in tokens,
// for the figures.
#include <exception>
#include <iostream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "book_corpus.hpp"
#include "demo_lists.hpp"
#include "demo_trace.hpp"
#include "llm/text/bpe_tokenizer.hpp"
#include "llm/text/text_units.hpp"
#include "whole_word_vocabulary.hpp"

namespace {

using demo::Json;
using llm::BpeTokenizer;
using llm::TokenId;
using Bytes = std::vector<std::uint8_t>;
using Ids = std::vector<TokenId>;

std::string ids_text(std::span<const TokenId> ids) {
  return demo::list_text(ids, ",");
}

Bytes bytes_of(std::string_view text) {
  return {text.begin(), text.end()};
}

// The message of the TokenizerError that `call` must throw.
template <class Call>
std::string rejection(Call&& call) {
  try {
    call();
  } catch (const llm::TokenizerError& error) {
    return error.what();
  }
  throw std::logic_error("the tokenizer accepted an input the chapter expects it to reject");
}

// A second segmentation of " а" (bytes 20 d0 b0): the byte token of the
// space, then the merge whose bytes are d0 b0, if this tokenizer learned one.
Ids noncanonical_space_a(const BpeTokenizer& tokenizer) {
  for (const llm::BpeMergeRule& rule : tokenizer.merge_rules()) {
    const auto bytes = *tokenizer.token_bytes(rule.content_token_id);
    if (Bytes(bytes.begin(), bytes.end()) == Bytes{0xd0, 0xb0}) {
      return {tokenizer.layout().byte_token_id(0x20), rule.content_token_id};
    }
  }
  throw std::logic_error("no merge stores the bytes d0 b0, the Cyrillic letter а");
}

// region: chapter-trace-case
Json print_trace_case(const BpeTokenizer& tokenizer, std::string_view case_id,
                      std::string_view input) {
  const Bytes bytes = bytes_of(input);
  const llm::BpeEncodingTrace trace = tokenizer.encode_content_with_trace(bytes);
  const Ids document = tokenizer.encode_document(bytes);
  std::string ranks;
  for (const llm::BpeMergeApplication& applied : trace.applications) {
    ranks += (ranks.empty() ? "" : ",") + std::to_string(applied.rank);
  }
  const std::string id(case_id);
  std::cout << "CASE id=" << id << " input_hex=" << demo::hex_text(bytes) << '\n';
  std::cout << "INITIAL case=" << id << " tokens=" << demo::joined(trace.initial_tokens, ",")
            << '\n';
  std::cout << "APPLIED case=" << id << " ranks=" << ranks << '\n';
  std::cout << "CONTENT case=" << id << " tokens=" << demo::joined(trace.content_tokens, ",")
            << '\n';
  std::cout << "DOCUMENT case=" << id << " tokens=" << demo::joined(document, ",") << '\n';
  Json pieces = Json::array();
  for (std::size_t index = 0; index < trace.content_tokens.size(); ++index) {
    const TokenId token = trace.content_tokens[index];
    const auto piece = *tokenizer.token_bytes(token);
    std::cout << "PIECE case=" << id << " index=" << index << " token=" << token
              << " bytes_hex=" << demo::hex_text(piece) << '\n';
    pieces.push_back({{"token", token}, {"bytes", Bytes(piece.begin(), piece.end())}});
  }
  const Bytes decoded = tokenizer.decode_document(document);
  std::cout << "DECODED case=" << id << " bytes_hex=" << demo::hex_text(decoded) << '\n';
  Json applied = Json::array();
  for (const llm::BpeMergeApplication& application : trace.applications) {
    applied.push_back({{"rank", application.rank},
                       {"replacements", application.replacements},
                       {"before", application.before},
                       {"after", application.after}});
  }
  return {{"id", id},
          {"input", input},
          {"bytes", bytes},
          {"initial", trace.initial_tokens},
          {"applications", applied},
          {"content", trace.content_tokens},
          {"document", document},
          {"pieces", pieces},
          {"decoded", decoded},
          {"exact", decoded == bytes}};
}
// endregion: chapter-trace-case

Json rules_json(const BpeTokenizer& tokenizer) {
  Json rules = Json::array();
  for (const llm::BpeMergeRule& rule : tokenizer.merge_rules()) {
    const auto bytes = *tokenizer.token_bytes(rule.content_token_id);
    rules.push_back({{"rank", rule.rank},
                     {"training_pair", {rule.training_pair.left, rule.training_pair.right}},
                     {"training_token", rule.training_token_id},
                     {"content_pair", {rule.content_pair.left, rule.content_pair.right}},
                     {"content_token", rule.content_token_id},
                     {"bytes", Bytes(bytes.begin(), bytes.end())}});
  }
  return rules;
}

// Two segmentations of the same bytes: what each decodes to, and what
// encoding those bytes gives back.
Json segmentations_json(const BpeTokenizer& tokenizer, const Ids& canonical, const Ids& other) {
  Json entries = Json::array();
  for (const auto& [name, ids] :
       {std::pair{"canonical", canonical}, std::pair{"noncanonical", other}}) {
    const Bytes decoded = tokenizer.decode_content(ids);
    entries.push_back({{"name", name},
                       {"ids", ids},
                       {"decoded", decoded},
                       {"reencoded", tokenizer.encode_content(decoded)}});
  }
  return entries;
}

// What a unit of text costs: its bytes, its scalars and its content tokens.
// A merged Cyrillic letter, one no merge covers, and emoji of three and four
// bytes and of one and two scalars.
Json costs_json(const BpeTokenizer& tokenizer) {
  Json costs = Json::array();
  for (std::string_view text :
       {"\u0430", "\u0436", "\u2764", "\U0001F980", "\U0001F44D\U0001F3FD"}) {
    Json labels = Json::array();
    for (char32_t scalar : llm::unicode_scalars(text)) labels.push_back(llm::scalar_label(scalar));
    costs.push_back({{"text", text},
                     {"bytes", text.size()},
                     {"scalars", labels},
                     {"tokens", tokenizer.encode_content(text)}});
  }
  return costs;
}

}  // namespace

// region: chapter-output
int main(int argc, char** argv) try {
  const auto trace_path = demo::trace_path(argc, argv);
  const llm::BpeTraining training = llm::BpeTrainer(8).train(book_corpus::partitions());
  const BpeTokenizer tokenizer = BpeTokenizer::from_training(training);
  const llm::TokenizerLayout& layout = tokenizer.layout();

  std::cout << "layout version: " << layout.version() << '\n';
  std::cout << "control ids: BOS=" << llm::kBosTokenId << " EOS=" << llm::kEosTokenId << '\n';
  std::cout << "content ranges: bytes=" << llm::kFirstByteTokenId << ".." << llm::kLastByteTokenId
            << " merges=" << llm::kFirstMergeTokenId << ".." << layout.vocabulary_size() - 1
            << " vocabulary=" << layout.vocabulary_size() << '\n';
  std::cout << "frozen merge ranks: " << layout.merge_count() << " (train only)\n";

  const auto words = demo::fit_whole_word_vocabulary({"low lower", "new newest"});
  const std::uint32_t lowering = demo::encode_whole_word(words, "lowering");
  std::cout << "historical input: lowering\n";
  std::cout << "historical ids: [" << lowering << "]\n";
  std::cout << "historical decoded: " << demo::decode_whole_word(words, lowering)
            << " (original bytes lost)\n";

  const std::string_view unseen = "🦀";
  const Ids unseen_ids = tokenizer.encode_content(unseen);
  std::cout << "unseen UTF-8 input: " << unseen << '\n';
  std::cout << "unseen content ids: " << ids_text(unseen_ids) << '\n';
  std::cout << "unseen decoded: " << tokenizer.decode_content_utf8(unseen_ids) << '\n';
  std::cout << "empty document ids: " << ids_text(tokenizer.encode_document("")) << '\n';

  const Bytes malformed = {0xff, 0xfe};
  const Ids malformed_ids = tokenizer.encode_content(malformed);
  std::cout << "malformed input bytes: [" << demo::hex_text(malformed) << "]\n";
  std::cout << "malformed content ids: " << ids_text(malformed_ids) << '\n';
  std::cout << "malformed decoded bytes: ["
            << demo::hex_text(tokenizer.decode_content(malformed_ids)) << "]\n";
  std::cout << "malformed UTF-8: "
            << rejection([&] { tokenizer.decode_content_utf8(malformed_ids); }) << '\n';
  std::cout << "interior control rejected: " << rejection([&] {
    tokenizer.decode_document(Ids{llm::kBosTokenId, 100, llm::kBosTokenId, llm::kEosTokenId});
  }) << '\n';

  const Ids canonical = tokenizer.encode_content(" а");
  const Ids noncanonical = noncanonical_space_a(tokenizer);
  std::cout << "canonical \" а\" content ids: " << ids_text(canonical) << '\n';
  std::cout << "noncanonical same-byte ids: " << ids_text(noncanonical) << '\n';
  std::cout << "noncanonical re-encodes as: "
            << ids_text(tokenizer.encode_content(tokenizer.decode_content(noncanonical))) << '\n';

  std::cout << "TRACE apply-bpe-tokenizer-v1 BEGIN\n";
  std::cout << "LAYOUT version=" << layout.version() << " bos=" << llm::kBosTokenId
            << " eos=" << llm::kEosTokenId << " content_offset=" << llm::kContentIdOffset
            << " byte_count=" << llm::kByteTokenCount << " merge_count=" << layout.merge_count()
            << " vocabulary_size=" << layout.vocabulary_size() << '\n';
  for (const llm::BpeMergeRule& rule : tokenizer.merge_rules()) {
    std::cout << "RULE rank=" << rule.rank << " training_pair=" << rule.training_pair.left << ','
              << rule.training_pair.right << " training_token=" << rule.training_token_id
              << " content_pair=" << rule.content_pair.left << ',' << rule.content_pair.right
              << " content_token=" << rule.content_token_id
              << " bytes_hex=" << demo::hex_text(*tokenizer.token_bytes(rule.content_token_id))
              << '\n';
  }
  const Json ascii = print_trace_case(tokenizer, "ascii-bee", "bee ");
  const Json cyrillic = print_trace_case(tokenizer, "cyrillic-a", " а");
  std::cout << "TRACE apply-bpe-tokenizer-v1 END\n";
  std::cout << "chapter 5 handoff: preserve each wrapped document boundary\n";

  demo::write_trace(trace_path,
                    {{"vocabulary_size", layout.vocabulary_size()},
                     {"rules", rules_json(tokenizer)},
                     {"cases", {ascii, cyrillic}},
                     {"segmentations", segmentations_json(tokenizer, canonical, noncanonical)},
                     {"costs", costs_json(tokenizer)}});
  return 0;
} catch (const std::exception& error) {
  std::cerr << "chapter 4 demo failed: " << error.what() << '\n';
  return 1;
}
// endregion: chapter-output
