// The worked epoch of chapter 21: two training documents, context length
// T = 2, batches of at most 3 rows, shuffle seed 7; one stand-in loss and a
// two-coordinate gradient per target token; and the evidence the demo prints
// (replay, coverage, padding, partitions, raw-sum merging).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "llm/training/mini_batches.hpp"

namespace ch21 {

inline constexpr std::size_t kContextLength = 2;
inline constexpr std::size_t kRequestedBatchSize = 3;
inline constexpr std::uint64_t kShuffleSeed = 7;

/// train-a = [0, 10, 11, 12, 1] and train-b = [0, 20, 21, 1], both training documents.
std::vector<llm::BatchDocument> training_documents();

/// The epoch over train-a = [0, 10, 11, 12, 1] and train-b = [0, 20, 21, 1].
llm::MiniBatchEpoch build_epoch(llm::BatchOrder order);

/// One loss and gradient per target token of `batch`, in targets() order.
std::vector<llm::TokenContribution> batch_contributions(const llm::MiniBatch& batch);

/// The update widths of online, mini-batch (3) and full-batch training.
std::vector<std::size_t> group_widths(std::size_t example_count, std::size_t capacity);

/// What the demo prints about one batch.
struct BatchEvidence {
  std::vector<double> losses;  ///< one per target token
  double loss_sum = 0.0;
  llm::TokenMean mean;              ///< one pass, divided by the tokens present
  double capacity_mean_loss = 0.0;  ///< the wrong denominator: requested rows * T
  bool merge_matches = false;       ///< two halves merged as raw sums == one pass
};

BatchEvidence batch_evidence(const llm::MiniBatch& batch);

/// The epoch and the checks printed after the batches.
struct EpochEvidence {
  llm::MiniBatchEpoch epoch;
  std::vector<BatchEvidence> batches;
  bool replay_matches = false;
  bool different_seed_changes_order = false;
  bool complete_coverage = false;
  std::size_t padding_ids_added = 0;
  std::size_t cross_partition_windows = 0;
};

EpochEvidence epoch_evidence();

}  // namespace ch21
