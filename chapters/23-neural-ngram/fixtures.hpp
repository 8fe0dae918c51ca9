// The worked run of chapter 23: the book's corpus, a BPE tokenizer learned
// from its training documents, two-token contexts of the training and
// validation documents (the test documents are never encoded), a neural
// n-gram trained with AdamW on shuffled mini-batches, checkpoints on both
// partitions, the validation-selected model, a greedy continuation, and the
// chapter 7 bigram scored on the same validation targets for comparison.
// Each function returns plain data the demo prints or traces.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "llm/models/neural_ngram.hpp"
#include "llm/text/bpe_tokenizer.hpp"
#include "llm/training/adamw.hpp"
#include "llm/training/mini_batches.hpp"
#include "llm/training/neural_ngram_loss.hpp"

namespace ch23 {

// region: chapter-constants
inline constexpr std::size_t kRequestedMerges = 8;  // chapter 3's tokenizer: V = 258 + 8
inline constexpr std::size_t kContextLength = 2;    // T
inline constexpr std::size_t kEmbeddingWidth = 4;   // D
inline constexpr std::size_t kHiddenWidth = 8;      // H
inline constexpr std::size_t kBatchSize = 64;
inline constexpr std::size_t kEvaluationBatchSize = 512;
inline constexpr std::uint64_t kInitSeed = 23;
inline constexpr std::uint64_t kShuffleSeed = 23;       // epoch e is shuffled with kShuffleSeed + e
inline constexpr std::size_t kEpochs = 24;              // the whole budget, fixed before the run
inline constexpr std::size_t kEpochsPerCheckpoint = 2;  // both partitions scored every 2 epochs
inline constexpr double kLearningRate = 0.01;
inline constexpr double kBeta1 = 0.9;
inline constexpr double kBeta2 = 0.999;
inline constexpr double kEpsilon = 1e-8;
inline constexpr double kWeightDecay = 0.01;
inline constexpr const char* kPrompt = "At";
inline constexpr std::size_t kMaxNewTokens = 12;
// endregion: chapter-constants

/// The two training scores and the validation score after `step` updates.
struct Checkpoint {
  std::size_t step = 0;
  double train_loss = 0.0;
  double validation_loss = 0.0;
};

/// The first forward pass of the untrained model on the prompt's two IDs.
struct Probe {
  std::vector<llm::TokenId> context_ids;
  llm::Tensor embeddings, concatenated, hidden, logits;
  std::size_t argmax = 0;
  double argmax_logit = 0.0;
  /// The same two IDs in the other order: concatenation keeps positions, so
  /// the hidden vector changes (a sum of the two rows would not).
  std::vector<llm::TokenId> swapped_ids;
  llm::Tensor swapped_hidden;
};

/// What greedy decoding produced from the prompt.
struct Generation {
  std::vector<llm::TokenId> prompt_ids;
  std::vector<llm::TokenId> generated_ids;
  std::vector<std::uint8_t> bytes;
  bool stopped_at_eos = false;
};

/// Chapter 7's bigrams (fitted on the training documents) on the validation
/// targets: all of them, as chapter 7 scores, and the ones the neural n-gram
/// scores, every token with T tokens before it in its document.
struct BigramComparison {
  double add_one_all_targets = 0.0;   ///< chapter 7's add-one bigram, every validation target
  double add_one_same_targets = 0.0;  ///< the same model on the n-gram's targets only
  double tuned_alpha = 0.0;           ///< the alpha chapter 7's baseline chose on validation
  double tuned_all_targets = 0.0;     ///< that baseline, every validation target
  double tuned_same_targets = 0.0;    ///< that baseline on the n-gram's targets
  std::size_t all_targets = 0, same_targets = 0;
  double uniform = 0.0;               ///< ln V: a model that knows nothing
  std::size_t train_transitions = 0;  ///< the pairs the bigrams were fitted on
};

/// Everything one training run produces.
struct RunEvidence {
  Probe probe;
  std::vector<double> first_gradient_l1;  ///< per parameter, in ParameterSet order
  std::vector<Checkpoint> checkpoints;    ///< step 0, then every kEpochsPerCheckpoint epochs
  std::size_t selected = 0;  ///< index into checkpoints with the lowest validation loss
  Generation generation;     ///< from the selected model
  bool parameter_nodes_preserved = false;
  bool gradients_cleared = false;
  std::vector<std::uint64_t> selected_parameter_bits;  ///< every value of the selected model
  std::vector<std::string> parameter_names;
};

/// The data the run reads: sizes of the two partitions it uses.
struct DataSummary {
  std::size_t vocabulary_size = 0;
  std::size_t train_documents = 0, validation_documents = 0;
  std::size_t train_contexts = 0, validation_contexts = 0;
  std::size_t train_batches = 0;
  bool test_text_encoded = false;
};

/// One run, its replay, and what they show.
struct LearnerEvidence {
  DataSummary data;
  llm::NeuralNgramConfig config;
  RunEvidence run;
  bool replay_bitwise = false;
  BigramComparison bigram;
};

/// Trains twice from the same seeds and compares every recorded bit.
/// @throws std::runtime_error if a fixture invariant fails.
LearnerEvidence learner_evidence();

/// The count-table road the neural model leaves: two contexts that end in
/// the same token, followed by different tokens.
struct HistoricalContextEvidence {
  std::size_t bigram_followers = 0;                ///< followers of the last token alone
  std::array<std::size_t, 2> context_followers{};  ///< followers of each full context
  std::size_t neural_context_width = 0;            ///< T * D features the network reads
};
HistoricalContextEvidence historical_context_evidence();

/// The prediction line: every stage's shape for one context.
std::string shape_chain(const llm::NeuralNgramConfig& config);

/// The AdamW settings the run uses (every parameter in the decay group).
llm::AdamWConfig optimizer_config();

}  // namespace ch23
