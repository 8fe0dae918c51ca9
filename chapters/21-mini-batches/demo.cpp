// Chapter 21 demo: five complete windows of two training documents, shuffled
// with seed 7 into batches of at most three rows; each batch's targets, its
// token-mean loss and gradient, and the checks on the epoch. With --trace
// PATH it also writes every row, both batch summaries, the capacity
// denominator the final batch must not use, and the sequential order.
#include <exception>
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "demo_lists.hpp"
#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"

namespace {

using demo::Json;

std::string values_text(std::span<const double> values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i)
    text += (i == 0 ? "" : ", ") + llm::format_fixed(values[i], 6);
  return text + "]";
}

std::string ids_text(std::span<const llm::TokenId> ids) {
  return demo::list_text(ids);
}
std::string sizes_text(const std::vector<std::size_t>& sizes) {
  return demo::list_text(sizes);
}
const char* bool_text(bool value) {
  return value ? "true" : "false";
}

Json trace_json(const ch21::EpochEvidence& evidence) {
  Json batches = Json::array();
  for (std::size_t b = 0; b < evidence.epoch.batches().size(); ++b) {
    const llm::MiniBatch& batch = evidence.epoch.batches()[b];
    const ch21::BatchEvidence& numbers = evidence.batches[b];
    Json rows = Json::array();
    for (std::size_t r = 0; r < batch.width(); ++r) {
      const llm::WindowOrigin& origin = batch.origins()[r];
      const auto input = *batch.input_row(r);
      const auto target = *batch.target_row(r);
      rows.push_back({{"document", origin.document_id},
                      {"document_index", origin.document_index},
                      {"start", origin.start},
                      {"input", std::vector<llm::TokenId>(input.begin(), input.end())},
                      {"target", std::vector<llm::TokenId>(target.begin(), target.end())},
                      {"losses", std::vector<double>(
                                     numbers.losses.begin() + r * batch.context_length(),
                                     numbers.losses.begin() + (r + 1) * batch.context_length())}});
    }
    batches.push_back({{"width", batch.width()},
                       {"tokens", batch.token_count()},
                       {"loss_sum", numbers.loss_sum},
                       {"mean_loss", numbers.mean.mean_loss()},
                       {"mean_gradient", std::vector<double>(numbers.mean.mean_gradient().begin(),
                                                             numbers.mean.mean_gradient().end())},
                       {"capacity_mean_loss", numbers.capacity_mean_loss},
                       {"rows", rows}});
  }
  Json sequential = Json::array();
  const llm::MiniBatchEpoch in_document_order = ch21::build_epoch(llm::BatchOrder::sequential());
  for (const llm::MiniBatch& batch : in_document_order.batches()) {
    for (const llm::WindowOrigin& origin : batch.origins()) {
      sequential.push_back(origin.document_id + "@" + std::to_string(origin.start));
    }
  }
  return {{"context_length", ch21::kContextLength},
          {"capacity", ch21::kRequestedBatchSize},
          {"seed", ch21::kShuffleSeed},
          {"windows", evidence.epoch.window_count()},
          {"sequential_order", sequential},
          {"batches", batches}};
}

}  // namespace

// region: learner-output
int main(int argc, char** argv) try {
  const auto trace_path = demo::trace_path(argc, argv);
  const ch21::EpochEvidence evidence = ch21::epoch_evidence();
  const llm::MiniBatchEpoch& epoch = evidence.epoch;
  std::vector<std::size_t> widths;
  for (const llm::MiniBatch& batch : epoch.batches()) widths.push_back(batch.width());

  std::cout << "chapter=21-mini-batches\n";
  std::cout << "context_length=" << epoch.context_length() << '\n';
  std::cout << "requested_batch_size=" << ch21::kRequestedBatchSize << '\n';
  std::cout << "shuffle_seed=" << ch21::kShuffleSeed << '\n';
  std::cout << "complete_windows=" << epoch.window_count() << '\n';
  std::cout << "batch_widths=" << sizes_text(widths) << '\n';
  std::cout << "historical_widths=online:"
            << sizes_text(ch21::group_widths(epoch.window_count(), 1))
            << " mini_batch:" << sizes_text(ch21::group_widths(epoch.window_count(), 3))
            << " full_batch:"
            << sizes_text(ch21::group_widths(epoch.window_count(), epoch.window_count())) << '\n';
  for (std::size_t b = 0; b < epoch.batches().size(); ++b) {
    const llm::MiniBatch& batch = epoch.batches()[b];
    const ch21::BatchEvidence& numbers = evidence.batches[b];
    std::cout << "batch[" << b << "] shape=" << sizes_text({batch.shape()[0], batch.shape()[1]})
              << " targets=" << ids_text(batch.targets()) << " denominator=" << batch.token_count()
              << " mean_loss=" << llm::format_fixed(numbers.mean.mean_loss(), 6)
              << " mean_gradient=" << values_text(numbers.mean.mean_gradient()) << '\n';
    for (std::size_t r = 0; r < batch.width(); ++r) {
      const llm::WindowOrigin& origin = batch.origins()[r];
      const std::span<const double> losses =
          std::span<const double>(numbers.losses)
              .subspan(r * batch.context_length(), batch.context_length());
      std::cout << "  row[" << r << "] origin=" << origin.document_id << '@' << origin.start
                << " input=" << ids_text(*batch.input_row(r))
                << " target=" << ids_text(*batch.target_row(r)) << " losses=" << values_text(losses)
                << '\n';
    }
  }
  const llm::MiniBatch& final_batch = epoch.batches().back();
  bool all_merges_match = true;
  for (const ch21::BatchEvidence& numbers : evidence.batches)
    all_merges_match = all_merges_match && numbers.merge_matches;
  std::cout << "final_batch_width=" << final_batch.width() << '\n';
  std::cout << "final_actual_denominator=" << final_batch.token_count() << '\n';
  std::cout << "final_capacity_denominator=" << ch21::kRequestedBatchSize * ch21::kContextLength
            << '\n';
  std::cout << "all_batches_accumulation_equal=" << bool_text(all_merges_match) << '\n';
  std::cout << "same_seed_replays=" << bool_text(evidence.replay_matches) << '\n';
  std::cout << "different_seed_changes_order=" << bool_text(evidence.different_seed_changes_order)
            << '\n';
  std::cout << "complete_coverage=" << bool_text(evidence.complete_coverage) << '\n';
  std::cout << "padding_ids_added=" << evidence.padding_ids_added << '\n';
  std::cout << "cross_partition_windows=" << evidence.cross_partition_windows << '\n';
  std::cout << "next=use these token-mean gradients in AdamW\n";
  demo::write_trace(trace_path, trace_json(evidence));
  return 0;
} catch (const std::exception& error) {
  std::cerr << "chapter 21 demo failed: " << error.what() << '\n';
  return 1;
}
// endregion: learner-output
