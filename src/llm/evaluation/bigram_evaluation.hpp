// Scoring the frozen chapter 6 bigram model with the chapter 7 metrics:
// every adjacent pair inside each document is one scored target, the model's
// add-alpha probability of the token that actually came next is its assigned
// probability, and documents are never joined. Taught in chapter 7.
//
// The model is read, never refitted: scoring training or held-out documents
// leaves every count as it was.
#pragma once

#include <span>

#include "llm/evaluation/language_model_metrics.hpp"
#include "llm/models/bigram.hpp"

namespace llm {

// region: score-bigram-documents-contract
/// Mean NLL and perplexity of `model` on `documents`: for each document
/// z_0 ... z_{n-1} and each t from 1 to n - 1, the target z_t is scored with
/// p = model.smoothed_probability(z_{t-1}, z_t). z_0 (BOS in a wrapped
/// document) is context only and never a target; the last token (EOS) is the
/// last target. A document of n tokens adds n - 1 targets, so N is the sum of
/// max(n - 1, 0) over documents, and one accumulator weighs every target the
/// same whatever its document.
/// @throws BigramError TokenOutOfRange for the first token >= V (document
///         order, then position order), before anything is scored.
/// @throws MetricError EmptyTargets if no document has two tokens.
LanguageModelMetrics score_bigram_documents(const BigramModel& model,
                                            std::span<const std::span<const TokenId>> documents);
// endregion: score-bigram-documents-contract

}  // namespace llm
