// The worked example of chapter 6: a five-token vocabulary, two separate
// wrapped training documents, the bigram model fitted from them, and the
// contrast with a model fitted from the two documents joined into one
// sequence. The demo prints this evidence and writes it into its trace.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "llm/models/bigram.hpp"

namespace ch06 {

/// The vocabulary in ID order: BOS = 0, EOS = 1, A = 2, B = 3, C = 4.
inline const std::vector<std::string> kSymbols = {"BOS", "EOS", "A", "B", "C"};
inline constexpr llm::TokenId kBos = 0;
inline constexpr llm::TokenId kEos = 1;
inline constexpr llm::TokenId kA = 2;
inline constexpr llm::TokenId kB = 3;
inline constexpr llm::TokenId kC = 4;
/// The add-alpha pseudocount of the chapter: add-one smoothing.
inline constexpr double kAlpha = 1.0;

/// d1 and d2, each wrapped in BOS ... EOS and kept as its own sequence.
std::vector<std::vector<llm::TokenId>> training_documents();

/// The bigram model fitted from training_documents() with V = 5, alpha = 1.
llm::BigramModel fitted_model();

/// A transition i -> j that one table counts more often than another.
struct Transition {
  llm::TokenId from;
  llm::TokenId to;
  std::uint64_t separate_count;  ///< C[i, j] with the documents kept apart
  std::uint64_t joined_count;    ///< C[i, j] after joining them into one sequence
};

/// The mistake the chapter warns about, computed rather than asserted: fit a
/// second model from the documents concatenated into one sequence and list
/// every cell whose count differs from the separate fit.
std::vector<Transition> transitions_invented_by_joining(
    const std::vector<std::vector<llm::TokenId>>& documents);

/// `documents` joined end to end into one sequence.
std::vector<llm::TokenId> joined(const std::vector<std::vector<llm::TokenId>>& documents);

}  // namespace ch06
