// Every area's error names its area and kind through the llm::Error base, so
// a caller that only reports errors never needs to know the derived type.
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string_view>
#include <vector>

#include "llm/error.hpp"
#include "llm/evaluation/language_model_metrics.hpp"
#include "llm/models/bigram.hpp"
#include "llm/text/bpe_tokenizer.hpp"
#include "llm/text/bpe_trainer.hpp"
#include "llm/text/causal_windows.hpp"
#include "llm/text/corpus.hpp"
#include "llm/text/text_units.hpp"

namespace {

// Runs `action`, which must throw an llm::Error, and returns its area and kind.
std::pair<std::string, std::string> area_and_kind(const std::function<void()>& action) {
  try {
    action();
  } catch (const llm::Error& error) {
    return {std::string(error.area()), std::string(error.kind_name())};
  }
  ADD_FAILURE() << "no llm::Error was thrown";
  return {};
}

using Pair = std::pair<std::string, std::string>;

TEST(ErrorArea, TextAreasNameThemselvesAndTheirKind) {
  EXPECT_EQ(area_and_kind([] { llm::unicode_scalars("\xff"); }),
            (Pair{"text-units", "invalid-utf8"}));
  EXPECT_EQ(area_and_kind([] { llm::Corpus::from_json("[]"); }).first, "corpus");
  EXPECT_EQ(area_and_kind([] {
              llm::learn_merges(1, {"a", "b"}, {{97}});
            }),
            (Pair{"bpe-training", "document-count-mismatch"}));
  EXPECT_EQ(
      area_and_kind([] { llm::TokenizerLayout::create(std::numeric_limits<std::size_t>::max()); }),
      (Pair{"tokenizer", "layout-overflow"}));
  EXPECT_EQ(area_and_kind([] { llm::CausalWindowConfig::create(0, 1); }),
            (Pair{"causal-windows", "zero-context-length"}));
}

TEST(ErrorArea, ModelAndMetricAreasNameThemselvesAndTheirKind) {
  const std::vector<std::vector<llm::TokenId>> documents;
  EXPECT_EQ(area_and_kind([&] { llm::BigramModel::fit(0, 1.0, documents); }),
            (Pair{"bigram", "empty-vocabulary"}));
  EXPECT_EQ(area_and_kind([] { llm::score_assigned_probabilities({}); }),
            (Pair{"metrics", "empty-targets"}));
}

}  // namespace
