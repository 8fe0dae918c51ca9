// The evidence chapter 34 prints: chapter 33's selected decoder and an
// add-one bigram fitted on the same train documents, both frozen, then
// scored once on two test documents of unequal length by a FinalEvaluator;
// and, for the figures, every test target's NLL under both models, so the
// page can show the token-weighted mean beside a mean of document means.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "chapter33_fixture.hpp"
#include "llm/evaluation/final_evaluation.hpp"

namespace ch34 {

using llm::TokenId;

// region: chapter34-test-documents
/// Two test documents of unequal length that run the train cycle backwards.
inline const std::vector<TokenId> kTestA = {4, 3, 2, 1, 0, 4, 3, 2, 1};
inline const std::vector<TokenId> kTestB = {3, 2, 1, 0, 4, 3, 2};
/// The test epoch's batch width (sequential windows of two, stride 1).
inline constexpr std::size_t kTestBatchSize = 4;
/// The baseline's add-alpha pseudocount (chapter 6).
inline constexpr double kBigramAlpha = 1.0;
// endregion: chapter34-test-documents

// region: chapter34-provenance
/// What the run claims about its inputs: identifiers of the corpus, the
/// split and the tokenizer (labels this fixture asserts, not derived from
/// the data), and the sizes every part must agree on.
struct Provenance {
  std::string corpus = "ch33-34-synthetic-v1";
  std::string split = "fixed-role-split-v1";
  std::string tokenizer = "literal-u32-v1";
  std::size_t vocabulary = 5;
  std::size_t context = 2;
};
// endregion: chapter34-provenance

/// The layout version of the report lines the demo prints.
inline constexpr int kReportVersion = 1;

/// One test target slot: its window, position, pair and both models' NLL.
struct TargetSlot {
  std::string document;
  std::size_t start = 0;     ///< the window's first position in the document
  std::size_t position = 0;  ///< 0 or 1 inside the window
  TokenId input = 0;
  TokenId target = 0;
  double decoder_nll = 0.0;
  double bigram_nll = 0.0;
};

/// Everything the report lines state.
struct FinalEvidence {
  std::size_t selected_step = 0;
  double selected_validation_loss = 0.0;
  bool selection_rejected_test = false;  ///< training refused the test epoch (chapter 33's check)
  Provenance provenance;
  bool provenance_matches = false;  ///< provenance agrees with model, baseline and test epoch
  double baseline_alpha = 0.0;
  std::size_t baseline_documents = 0;
  std::uint64_t baseline_transitions = 0;
  std::size_t gate_openings_before = 0;
  std::size_t gate_openings_after = 0;
  llm::FinalEvaluationReport report;
  bool token_weighted = false;    ///< both means equal their total / targets
  std::vector<TargetSlot> slots;  ///< every target slot, in batch order (for the figures)
  std::string second_opening;     ///< the error of a second evaluate_once
};

/// Trains chapter 33's fixture, freezes both models, opens the test gate once.
FinalEvidence final_evidence();

}  // namespace ch34
