// The fixed-input examples of chapter 7: two assigned probabilities traced
// into mean NLL and perplexity, the perfect and uniform anchors, an
// impossible target, an empty request, two documents of unequal length, two
// distributions with the same argmax, and a product that underflows. Each
// returns plain data that the demo prints and writes into its trace.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "llm/evaluation/language_model_metrics.hpp"

namespace ch07 {

/// The opening example: one term per target, then the aggregate.
struct TinyExample {
  std::vector<double> probabilities;                  ///< [1/2, 1/4]
  std::vector<llm::LanguageModelMetrics> per_target;  ///< each target scored alone
  llm::LanguageModelMetrics metrics;                  ///< both targets together
};
TinyExample tiny_example();

/// Every target assigned probability 1, and a uniform model over V tokens.
struct ScaleAnchors {
  llm::LanguageModelMetrics perfect;
  std::size_t uniform_vocabulary;
  llm::LanguageModelMetrics uniform;
};
ScaleAnchors scale_anchors();

/// A target assigned probability 0, and a request with no target at all.
struct EdgeCases {
  std::vector<double> impossible_probabilities;  ///< [0.8, 0]
  llm::LanguageModelMetrics impossible;
  std::string empty_kind;     ///< kind_name() of the empty request's error
  std::string empty_message;  ///< its what()
};
EdgeCases edge_cases();

/// One document with one target (p = 1) and one with three (p = 1/4 each):
/// weighting every target equally against weighting every document equally.
struct DocumentWeighting {
  std::vector<std::vector<double>> documents;  ///< assigned probabilities per document
  llm::LanguageModelMetrics pooled;            ///< all targets in one accumulator (right)
  std::vector<double> document_means;          ///< each document's own mean NLL
  double mean_of_document_means;               ///< their plain average (wrong)
  double perplexity_of_document_means;         ///< exp of that average
};
DocumentWeighting document_weighting();

/// Two next-token distributions over [A, B, C] with the same argmax; the
/// observed target is B.
struct SameArgmax {
  std::vector<std::string> symbols;  ///< A, B, C
  std::vector<double> q;             ///< [0.60, 0.30, 0.10]
  std::vector<double> r;             ///< [0.60, 0.20, 0.20]
  std::size_t target;                ///< index of B
  std::size_t q_argmax;
  std::size_t r_argmax;
  double q_nll;  ///< -ln q[target]
  double r_nll;  ///< -ln r[target]
};
SameArgmax same_argmax();

/// 2000 factors of 1/2: multiplied directly, and summed as NLL in log space.
struct Underflow {
  std::size_t factors;
  double raw_product;
  llm::LanguageModelMetrics metrics;
};
Underflow underflow();

}  // namespace ch07
