// Chapter 39's evidence: the whole book in one run, on the book's corpus.
//
// Corpus and frozen split (chapter 2), byte-pair merges learned from the
// training documents only (chapters 3-4), a small grid of one-block decoders
// (chapter 32) each trained with validation selection (chapter 33), the one
// with the lowest validation loss chosen and replayed bit for bit, the
// add-alpha bigram baseline tuned on validation (chapter 7), the test
// partition opened once for both (chapter 34), the selected state saved and
// loaded (chapter 35) and a cached continuation sampled from the loaded model
// and checked against the uncached loop (chapters 36-38).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "llm/evaluation/final_evaluation.hpp"
#include "llm/generation/generation.hpp"
#include "llm/training/trainer.hpp"

namespace ch39 {

using llm::TokenId;

// region: end-to-end-plan
inline constexpr std::size_t kMerges = 8;   ///< byte-pair merges learned on train
inline constexpr std::size_t kLayers = 1;   ///< decoder blocks
inline constexpr std::size_t kHeads = 1;    ///< attention heads per block
inline constexpr std::size_t kContext = 8;  ///< tokens per window, the same for every candidate
inline constexpr std::size_t kStride = 1;   ///< window starts one token apart
inline constexpr std::size_t kUpdateBatch = 16;       ///< windows per update
inline constexpr std::size_t kEvaluationBatch = 128;  ///< windows per scoring batch
inline constexpr std::size_t kUpdates = 256;          ///< AdamW steps per candidate
/// Train and validation are scored before the first update and every 64 after it.
inline constexpr std::array<std::size_t, 5> kValidationSteps = {0, 64, 128, 192, 256};
inline constexpr double kMaxGradientNorm = 1.0;       ///< the clipping ceiling
inline constexpr std::uint64_t kSeed = 39;            ///< initialization and shuffling
inline constexpr std::uint64_t kGenerationSeed = 38;  ///< the sampling generator stored
inline constexpr double kTemperature = 0.8;
inline constexpr std::size_t kTopK = 4;
inline constexpr std::size_t kNewTokens = 8;      ///< the last from a full context of 8
inline constexpr const char* kPrompt = "A";       ///< the generation prompt
inline constexpr const char* kLogitProbe = "At";  ///< the reload's logit probe
// endregion: end-to-end-plan

// region: end-to-end-grid
/// One configuration the run may choose: the block's widths and the
/// constant learning rate. Everything else is the plan above.
struct Candidate {
  std::size_t model_width = 0;   ///< D
  std::size_t feed_forward = 0;  ///< the SwiGLU hidden width
  double learning_rate = 0.0;    ///< constant, every step
};

/// The grid, fixed before any candidate is trained. Each candidate is
/// trained from seed 39 and keeps its earliest validation minimum; the
/// candidate whose kept state scores lowest on validation is chosen (the
/// earlier one in this order on a tie). The first is the earlier edition's
/// block (D 4, F 4, rate 0.04).
inline constexpr std::array<Candidate, 5> kGrid = {
    {{4, 4, 0.04}, {8, 16, 0.02}, {8, 16, 0.04}, {16, 32, 0.02}, {16, 32, 0.04}}};
// endregion: end-to-end-grid

struct TrainingCheckpoint {
  std::size_t step = 0;
  double train_loss = 0.0;
  double validation_loss = 0.0;
  bool selected = false;
};

/// One grid candidate's training run, as selection saw it.
struct CandidateResult {
  Candidate candidate;
  std::size_t parameters = 0;
  std::vector<TrainingCheckpoint> checkpoints;  ///< one per kValidationSteps entry
  std::size_t selected_step = 0;                ///< its earliest validation minimum
  double selected_validation = 0.0;
};

/// Everything the run measured, for the demo lines and the trace.
struct Evidence {
  // Data and tokenizer.
  std::string corpus_checksum;
  std::string split_strategy;
  std::vector<std::string> train_ids, validation_ids, test_ids;
  std::uint32_t layout_version = 0;
  std::size_t requested_merges = 0;
  std::size_t learned_merges = 0;
  bool tokenizer_training_only = false;
  std::size_t vocabulary = 0;
  std::vector<std::size_t> encoded_tokens;  ///< train, validation, test
  // The grid (validation only) and the chosen candidate's run.
  std::vector<CandidateResult> grid;
  std::size_t chosen = 0;  ///< index into kGrid
  std::size_t parameters = 0;
  std::vector<std::size_t> windows;  ///< train, validation, test
  std::vector<std::size_t> batches;  ///< evaluation batches: train, validation, test
  std::vector<TrainingCheckpoint> checkpoints;
  std::size_t selected_step = 0;
  double selected_validation = 0.0;
  std::size_t optimizer_step = 0;
  bool replay_bitwise = false;
  std::vector<double> update_losses;  ///< each update's batch loss, for the figure
  // Baselines, fitted on train before the test gate.
  double tuned_alpha = 0.0;
  double tuned_validation = 0.0;
  // The one test opening.
  std::size_t gate_openings_before = 0;
  std::size_t gate_openings_after = 0;
  llm::FinalEvaluationReport report;  ///< decoder and tuned bigram on the same slots
  llm::ModelScore add_one;            ///< the alpha = 1 bigram on those slots
  // Checkpoint round trip.
  std::size_t checkpoint_bytes = 0;
  std::size_t header_bytes = 0;
  std::size_t records = 0;
  std::string checksum;
  std::uint64_t stored_step = 0;
  std::uint64_t stored_optimizer_step = 0;
  std::uint64_t stored_generator = 0;
  bool bytes_roundtrip = false;
  bool model_bits_exact = false;
  bool optimizer_exact = false;
  bool tokenizer_exact = false;
  std::vector<TokenId> probe_ids;
  bool probe_logits_bitwise = false;
  // Cached generation from the loaded model.
  std::vector<TokenId> prompt_ids;
  llm::GenerationResult cached;
  std::string text;
  std::size_t prefill_tokens = 0;
  std::size_t decode_tokens = 0;
  std::size_t final_cache = 0;
  std::size_t cached_scores = 0;
  std::size_t complete_prefix_scores = 0;
  std::uint64_t generator_final = 0;
  bool tokens_exact = false;
  bool decisions_exact = false;
  bool generator_exact = false;
};

/// Runs the whole pipeline and returns what it measured. The selected state
/// is saved to `checkpoint` (chapter 35's format, written atomically) and
/// loaded back from that file, which is left in place: `make book` keeps it
/// beside the demo's trace for build/llm-generate.
Evidence run(const std::filesystem::path& checkpoint);

}  // namespace ch39
