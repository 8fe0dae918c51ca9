// The worked epoch of chapter 21 and the evidence printed about it.
#include "fixtures.hpp"

#include <algorithm>
#include <utility>

namespace ch21 {

namespace {

const std::vector<llm::TokenId> kTrainA = {0, 10, 11, 12, 1};
const std::vector<llm::TokenId> kTrainB = {0, 20, 21, 1};

std::vector<std::pair<std::size_t, std::size_t>> origins(const llm::MiniBatchEpoch& epoch) {
  std::vector<std::pair<std::size_t, std::size_t>> result;
  for (const llm::MiniBatch& batch : epoch.batches()) {
    for (const llm::WindowOrigin& origin : batch.origins())
      result.emplace_back(origin.document_index, origin.start);
  }
  return result;
}

llm::TokenMeanAccumulator accumulate(std::span<const llm::TokenContribution> contributions) {
  llm::TokenMeanAccumulator accumulator = llm::TokenMeanAccumulator::create(2);
  for (const llm::TokenContribution& contribution : contributions)
    accumulator.add_token(contribution);
  return accumulator;
}

}  // namespace

// region: chapter-fixture
std::vector<llm::BatchDocument> training_documents() {
  return {{"train-a", llm::Partition::Train, kTrainA}, {"train-b", llm::Partition::Train, kTrainB}};
}

llm::MiniBatchEpoch build_epoch(llm::BatchOrder order) {
  return llm::MiniBatchEpoch::build(llm::Partition::Train, training_documents(),
                                    llm::CausalWindowConfig::create(kContextLength, 1),
                                    llm::MiniBatchConfig::create(kRequestedBatchSize, order));
}
// endregion: chapter-fixture

// region: token-contributions
std::vector<llm::TokenContribution> batch_contributions(const llm::MiniBatch& batch) {
  // Stand-in values, exact in binary: loss (8d + 2s + t + 1) / 8 for target t
  // of the window at start s of document d, gradient [2 loss, 2 - loss].
  std::vector<llm::TokenContribution> contributions;
  for (const llm::WindowOrigin& origin : batch.origins()) {
    for (std::size_t t = 0; t < batch.context_length(); ++t) {
      const double loss =
          static_cast<double>(origin.document_index * 8 + origin.start * 2 + t + 1) / 8.0;
      contributions.push_back(llm::TokenContribution::create(loss, {2.0 * loss, 2.0 - loss}));
    }
  }
  return contributions;
}
// endregion: token-contributions

// region: historical-update-grouping
std::vector<std::size_t> group_widths(std::size_t example_count, std::size_t capacity) {
  std::vector<std::size_t> widths;
  for (std::size_t remaining = example_count; remaining > 0;) {
    const std::size_t width = std::min(remaining, capacity);
    widths.push_back(width);
    remaining -= width;
  }
  return widths;
}
// endregion: historical-update-grouping

// region: batch-evidence
BatchEvidence batch_evidence(const llm::MiniBatch& batch) {
  const std::vector<llm::TokenContribution> contributions = batch_contributions(batch);
  BatchEvidence evidence;
  for (const llm::TokenContribution& contribution : contributions)
    evidence.losses.push_back(contribution.loss());
  evidence.mean = batch.average(contributions);
  const llm::TokenMeanAccumulator direct = accumulate(contributions);
  evidence.loss_sum = direct.loss_sum();
  evidence.capacity_mean_loss =
      direct.loss_sum() / static_cast<double>(kRequestedBatchSize * kContextLength);
  // Accumulate the two halves apart, then merge their raw sums.
  const std::span<const llm::TokenContribution> all(contributions);
  llm::TokenMeanAccumulator left = accumulate(all.first(all.size() / 2));
  left.merge(accumulate(all.subspan(all.size() / 2)));
  evidence.merge_matches = left.finish() == evidence.mean;
  return evidence;
}
// endregion: batch-evidence

EpochEvidence epoch_evidence() {
  EpochEvidence evidence{
      build_epoch(llm::BatchOrder::shuffled(kShuffleSeed)), {}, false, false, false, 0, 0};
  for (const llm::MiniBatch& batch : evidence.epoch.batches())
    evidence.batches.push_back(batch_evidence(batch));
  evidence.replay_matches = evidence.epoch == build_epoch(llm::BatchOrder::shuffled(kShuffleSeed));
  evidence.different_seed_changes_order =
      origins(evidence.epoch) != origins(build_epoch(llm::BatchOrder::shuffled(kShuffleSeed + 1)));
  auto shuffled = origins(evidence.epoch);
  std::sort(shuffled.begin(), shuffled.end());
  const bool unique = std::adjacent_find(shuffled.begin(), shuffled.end()) == shuffled.end();
  evidence.complete_coverage =
      unique && shuffled == origins(build_epoch(llm::BatchOrder::sequential()));
  for (const llm::MiniBatch& batch : evidence.epoch.batches()) {
    const std::size_t stacked = batch.width() * batch.context_length();
    evidence.padding_ids_added +=
        (batch.inputs().size() - stacked) + (batch.targets().size() - stacked);
  }
  const std::vector<llm::BatchDocument> documents = training_documents();
  for (const llm::MiniBatch& batch : evidence.epoch.batches()) {
    for (const llm::WindowOrigin& origin : batch.origins()) {
      if (documents[origin.document_index].partition != llm::Partition::Train)
        ++evidence.cross_partition_windows;
    }
  }
  return evidence;
}

}  // namespace ch21
