// Chapter 00 has no demo: its worked prompt is data in
// chapters/00-llm-parts/model_parts.json, which the page draws from. This
// test is the build's check that the data tells the truth: its token IDs and
// pieces are exactly what the book's tokenizer (eight merges learned from the
// training documents, chapters 3 and 4) makes of the prompt text.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "book_corpus.hpp"
#include "llm/text/bpe_tokenizer.hpp"
#include "llm/text/bpe_trainer.hpp"

#ifndef LLM_MODEL_PARTS_JSON
#error "LLM_MODEL_PARTS_JSON must name chapters/00-llm-parts/model_parts.json"
#endif

namespace llm {
namespace {

nlohmann::json model_parts() {
  std::ifstream file(LLM_MODEL_PARTS_JSON);
  if (!file) throw std::runtime_error("cannot read " + std::string(LLM_MODEL_PARTS_JSON));
  return nlohmann::json::parse(file);
}

TEST(Chapter00Prompt, TokenIdsAreTheBookTokenizersEncoding) {
  const nlohmann::json prompt = model_parts().at("prompt");
  const BpeTokenizer tokenizer =
      BpeTokenizer::from_training(BpeTrainer(8).train(book_corpus::partitions()));
  const std::string text = prompt.at("text").get<std::string>();
  std::vector<TokenId> expected = tokenizer.encode_document(text);
  expected.pop_back();  // a prompt to continue has no EOS yet
  EXPECT_EQ(prompt.at("token_ids").get<std::vector<TokenId>>(), expected) << text;
  EXPECT_EQ(prompt.at("vocabulary").get<std::size_t>(), tokenizer.vocabulary_size());
}

TEST(Chapter00Prompt, EachPieceIsTheBytesItsTokenStandsFor) {
  const nlohmann::json prompt = model_parts().at("prompt");
  const BpeTokenizer tokenizer =
      BpeTokenizer::from_training(BpeTrainer(8).train(book_corpus::partitions()));
  const auto ids = prompt.at("token_ids").get<std::vector<TokenId>>();
  const auto pieces = prompt.at("pieces").get<std::vector<std::string>>();
  ASSERT_EQ(pieces.size(), ids.size());
  ASSERT_FALSE(ids.empty());
  EXPECT_EQ(ids.front(), kBosTokenId);
  EXPECT_EQ(pieces.front(), "BOS");
  for (std::size_t k = 1; k < ids.size(); ++k) {
    const std::vector<TokenId> one = {ids[k]};
    const std::vector<std::uint8_t> bytes = tokenizer.decode_content(one);
    EXPECT_EQ(pieces[k], std::string(bytes.begin(), bytes.end())) << "position " << k;
  }
}

}  // namespace
}  // namespace llm
