// The contrast of chapter 5: a task-specific dataset whose answers people
// supplied separately from the inputs, unlike next-token targets, which the
// sequence already contains.
#pragma once

#include <array>
#include <span>
#include <string_view>

#include "llm/text/bpe_trainer.hpp"

namespace ch05 {

// region: hand-labeled-contrast
/// A sentiment class a person assigned to a whole input.
enum class SentimentLabel { Negative, Positive };

/// `negative` or `positive`.
constexpr std::string_view label_name(SentimentLabel label) {
  return label == SentimentLabel::Negative ? "negative" : "positive";
}

/// One labeled row: token IDs and a class that is not among them.
struct LabeledRow {
  std::span<const llm::TokenId> input;
  SentimentLabel label;
};

inline constexpr std::array<llm::TokenId, 3> kRow0 = {41, 42, 43};
inline constexpr std::array<llm::TokenId, 3> kRow1 = {51, 52, 53};

/// Two rows, each label supplied by hand, separately from its input.
inline constexpr std::array<LabeledRow, 2> kHandLabeledRows = {
    LabeledRow{kRow0, SentimentLabel::Negative}, LabeledRow{kRow1, SentimentLabel::Positive}};
// endregion: hand-labeled-contrast

}  // namespace ch05
