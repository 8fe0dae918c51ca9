// Chapter 21: complete windows stacked into mini-batches (sequential and
// seeded), no row across a document, no padding, and token means whose
// denominator is the number of targets actually present.
#include "llm/training/mini_batches.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;
using Ids = std::vector<TokenId>;

const Ids kTrainA = {0, 10, 11, 12, 1};
const Ids kTrainB = {0, 20, 21, 1};

std::vector<BatchDocument> documents() {
  return {{"train-a", Partition::Train, kTrainA}, {"train-b", Partition::Train, kTrainB}};
}

MiniBatchEpoch build(std::size_t batch_size, BatchOrder order, std::size_t context = 2,
                     std::size_t stride = 1) {
  const auto docs = documents();
  return MiniBatchEpoch::build(Partition::Train, docs, CausalWindowConfig::create(context, stride),
                               MiniBatchConfig::create(batch_size, order));
}

std::vector<std::pair<std::size_t, std::size_t>> origins(const MiniBatchEpoch& epoch) {
  std::vector<std::pair<std::size_t, std::size_t>> result;
  for (const MiniBatch& batch : epoch.batches()) {
    for (const WindowOrigin& origin : batch.origins())
      result.emplace_back(origin.document_index, origin.start);
  }
  return result;
}

Ids ids(std::span<const TokenId> span) {
  return {span.begin(), span.end()};
}

TokenContribution contribution(double loss) {
  return TokenContribution::create(loss, {2.0 * loss, 2.0 - loss});
}

TEST(MiniBatchConfig, RejectsAZeroWidthBatch) {
  EXPECT_EQ(capture_error<BatchError>([] {
              MiniBatchConfig::create(0, BatchOrder::sequential());
            })->kind(),
            BatchErrorKind::ZeroBatchSize);
  EXPECT_EQ(MiniBatchConfig::create(3, BatchOrder::shuffled(7)).batch_size(), 3u);
}

TEST(MiniBatchEpoch, StacksCompleteWindowsAndKeepsTheShortFinalBatch) {
  const MiniBatchEpoch epoch = build(3, BatchOrder::sequential());
  EXPECT_EQ(epoch.window_count(), 5u);
  ASSERT_EQ(epoch.batches().size(), 2u);
  const MiniBatch& first = epoch.batches()[0];
  const MiniBatch& last = epoch.batches()[1];
  EXPECT_EQ(first.shape(), (std::array<std::size_t, 2>{3, 2}));
  EXPECT_EQ(last.shape(), (std::array<std::size_t, 2>{2, 2}));
  EXPECT_EQ(ids(first.inputs()), (Ids{0, 10, 10, 11, 11, 12}));
  EXPECT_EQ(ids(first.targets()), (Ids{10, 11, 11, 12, 12, 1}));
  EXPECT_EQ(ids(last.inputs()), (Ids{0, 20, 20, 21}));
  EXPECT_EQ(ids(last.targets()), (Ids{20, 21, 21, 1}));
  EXPECT_EQ(origins(epoch), (std::vector<std::pair<std::size_t, std::size_t>>{
                                {0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}}));
  EXPECT_EQ(last.origins()[1].document_id, "train-b");
  EXPECT_EQ(last.token_count(), 4u);
}

// The mistake the sanitizer pass found in chapter 33's fixture: names made on
// the spot. BatchDocument copies its name, so nothing dangles (with a view,
// ASan reported the read of the dead temporary inside build()).
TEST(MiniBatchEpoch, KeepsNamesMadeInTheDocumentListItself) {
  const std::string prefix = "train";
  const std::vector<BatchDocument> docs = {{prefix + "-a", Partition::Train, kTrainA},
                                           {prefix + "-b", Partition::Train, kTrainB}};
  const MiniBatchEpoch epoch =
      MiniBatchEpoch::build(Partition::Train, docs, CausalWindowConfig::create(2, 1),
                            MiniBatchConfig::create(3, BatchOrder::sequential()));
  ASSERT_EQ(epoch.batches().size(), 2u);
  EXPECT_EQ(epoch.batches()[0].origins()[0].document_id, "train-a");
  EXPECT_EQ(epoch.batches()[1].origins()[1].document_id, "train-b");
}

// Its tokens are a view, so a vector made in the expression that makes the
// document (a literal, a function's result) would be destroyed before build()
// reads it: such a document does not compile; named tokens and views do.
template <typename Tokens>
constexpr bool makes_a_document = requires {
  BatchDocument{"doc", Partition::Train, std::declval<Tokens>()};
};
static_assert(makes_a_document<const Ids&>);
static_assert(makes_a_document<Ids&>);
static_assert(makes_a_document<std::span<const TokenId>>);
static_assert(!makes_a_document<Ids>, "a temporary vector of tokens must not compile");
static_assert(!makes_a_document<const Ids>, "a temporary const vector must not compile");

// The same for assigning the tokens of a document that exists: a temporary
// vector would be destroyed at the end of the assignment.
template <typename Tokens>
constexpr bool assigns_document_tokens = requires(BatchDocument& document) {
  document.token_ids = std::declval<Tokens>();
};
static_assert(assigns_document_tokens<const Ids&>);
static_assert(assigns_document_tokens<Ids&>);
static_assert(assigns_document_tokens<std::span<const TokenId>>);
static_assert(!assigns_document_tokens<Ids>,
              "assigning a temporary vector of tokens must not compile");
static_assert(!assigns_document_tokens<const Ids>,
              "assigning a temporary const vector must not compile");

TEST(MiniBatchEpoch, SeedSevenGivesTheChapterOrderAndReplays) {
  const MiniBatchEpoch epoch = build(3, BatchOrder::shuffled(7));
  EXPECT_EQ(origins(epoch), (std::vector<std::pair<std::size_t, std::size_t>>{
                                {1, 1}, {0, 1}, {1, 0}, {0, 0}, {0, 2}}));
  EXPECT_EQ(epoch, build(3, BatchOrder::shuffled(7)));
  EXPECT_NE(origins(epoch), origins(build(3, BatchOrder::shuffled(8))));
  auto covered = origins(build(3, BatchOrder::shuffled(8)));
  std::sort(covered.begin(), covered.end());
  EXPECT_EQ(covered, origins(build(3, BatchOrder::sequential())));
  // Row 0 of the first shuffled batch is train-b@1 and copies its own tokens.
  EXPECT_EQ(ids(*epoch.batches()[0].input_row(0)), (Ids{20, 21}));
  EXPECT_EQ(ids(*epoch.batches()[0].target_row(0)), (Ids{21, 1}));
}

TEST(ShufflePositions, FollowsTheSplitMix64Stream) {
  // Seed 7's first draws decide j for i = 4, 3, 2, 1 over five positions.
  std::vector<std::size_t> positions = {0, 1, 2, 3, 4};
  shuffle_positions(positions, 7);
  EXPECT_EQ(positions, (std::vector<std::size_t>{4, 1, 3, 0, 2}));
  std::vector<std::size_t> one = {9};
  shuffle_positions(one, 7);
  EXPECT_EQ(one, (std::vector<std::size_t>{9}));
}

TEST(MiniBatchEpoch, StrideTwoRowsStartWhereTheirWindowsStart) {
  const Ids tokens = {0, 10, 11, 12, 13, 14, 1};
  const std::vector<BatchDocument> docs = {{"stride-two", Partition::Train, tokens}};
  const auto epoch = MiniBatchEpoch::build(Partition::Train, docs, CausalWindowConfig::create(2, 2),
                                           MiniBatchConfig::create(2, BatchOrder::sequential()));
  EXPECT_EQ(origins(epoch),
            (std::vector<std::pair<std::size_t, std::size_t>>{{0, 0}, {0, 2}, {0, 4}}));
  EXPECT_EQ(ids(epoch.batches()[0].inputs()), (Ids{0, 10, 11, 12}));
  EXPECT_EQ(ids(epoch.batches()[1].targets()), (Ids{14, 1}));
}

TEST(MiniBatchEpoch, ShortDocumentsMakeNoBatchAndNoPadding) {
  const Ids tokens = {0, 1};
  const std::vector<BatchDocument> docs = {{"short", Partition::Train, tokens}};
  const auto epoch = MiniBatchEpoch::build(Partition::Train, docs, CausalWindowConfig::create(2, 1),
                                           MiniBatchConfig::create(4, BatchOrder::shuffled(9)));
  EXPECT_EQ(epoch.window_count(), 0u);
  EXPECT_TRUE(epoch.batches().empty());
}

TEST(MiniBatchEpoch, RejectsAmbiguousOrForeignDocumentsBeforeBatching) {
  const auto config = CausalWindowConfig::create(2, 1);
  const auto batches = MiniBatchConfig::create(2, BatchOrder::sequential());
  const std::vector<BatchDocument> foreign = {{"train-a", Partition::Train, kTrainA},
                                              {"validation-a", Partition::Validation, kTrainB}};
  EXPECT_EQ(capture_error<BatchError>([&] {
              MiniBatchEpoch::build(Partition::Train, foreign, config, batches);
            })->kind(),
            BatchErrorKind::PartitionMismatch);
  const std::vector<BatchDocument> repeated = {{"same", Partition::Train, kTrainA},
                                               {"same", Partition::Train, kTrainB}};
  EXPECT_EQ(capture_error<BatchError>([&] {
              MiniBatchEpoch::build(Partition::Train, repeated, config, batches);
            })->kind(),
            BatchErrorKind::DuplicateDocumentId);
  const std::vector<BatchDocument> unnamed = {{"", Partition::Train, kTrainA}};
  EXPECT_EQ(capture_error<BatchError>([&] {
              MiniBatchEpoch::build(Partition::Train, unnamed, config, batches);
            })->kind(),
            BatchErrorKind::EmptyDocumentId);
}

TEST(MiniBatch, RowAccessIsChecked) {
  const MiniBatchEpoch epoch = build(4, BatchOrder::sequential());
  const MiniBatch& batch = epoch.batches()[0];
  EXPECT_EQ(ids(*batch.input_row(0)), (Ids{0, 10}));
  EXPECT_EQ(ids(*batch.target_row(3)), (Ids{20, 21}));
  EXPECT_FALSE(batch.input_row(4));
  EXPECT_FALSE(batch.target_row(std::numeric_limits<std::size_t>::max()));
}

// The denominators of a short last batch: 4 tokens present, not 6 of capacity.
TEST(MiniBatch, ShortFinalBatchDividesByTheTokensPresent) {
  const MiniBatchEpoch epoch = build(3, BatchOrder::sequential());
  const MiniBatch& last = epoch.batches()[1];
  const std::vector<TokenContribution> contributions = {contribution(0.25), contribution(0.5),
                                                        contribution(0.75), contribution(1.0)};
  const TokenMean mean = last.average(contributions);
  EXPECT_EQ(last.width(), 2u);
  EXPECT_EQ(mean.token_count(), 4u);
  EXPECT_EQ(mean.mean_loss(), 0.625);  // 2.5 / 4; capacity would give 2.5 / 6
  EXPECT_EQ(std::vector<double>(mean.mean_gradient().begin(), mean.mean_gradient().end()),
            (std::vector<double>{1.25, 1.375}));
  const auto mismatch = capture_error<BatchError>(
      [&] { last.average(std::span<const TokenContribution>(contributions).first(3)); });
  EXPECT_EQ(mismatch->kind(), BatchErrorKind::ContributionCountMismatch);
}

TEST(MiniBatch, ChapterFinalBatchMeanIsSevenSixteenths) {
  // The chapter's losses for train-a@0 and train-a@2: (8d + 2s + t + 1) / 8.
  const MiniBatchEpoch epoch = build(3, BatchOrder::shuffled(7));
  const MiniBatch& last = epoch.batches()[1];
  std::vector<TokenContribution> contributions;
  for (const WindowOrigin& origin : last.origins()) {
    for (std::size_t t = 0; t < 2; ++t) {
      contributions.push_back(contribution(
          static_cast<double>(origin.document_index * 8 + origin.start * 2 + t + 1) / 8.0));
    }
  }
  const TokenMean mean = last.average(contributions);
  EXPECT_EQ(mean.mean_loss(), 0.4375);
  EXPECT_EQ(mean.mean_gradient()[0], 0.875);
  EXPECT_EQ(mean.mean_gradient()[1], 1.5625);
}

TEST(TokenMeanAccumulator, MergingRawSumsEqualsOnePass) {
  const std::vector<TokenContribution> values = {contribution(0.125), contribution(0.25),
                                                 contribution(0.375), contribution(0.5)};
  auto direct = TokenMeanAccumulator::create(2);
  for (const auto& value : values) direct.add_token(value);
  auto left = TokenMeanAccumulator::create(2);
  auto right = TokenMeanAccumulator::create(2);
  left.add_token(values[0]);
  for (std::size_t i = 1; i < 4; ++i) right.add_token(values[i]);
  // A mean of the two piece means would weigh one token like three.
  const double mean_of_means = (left.finish().mean_loss() + right.finish().mean_loss()) / 2.0;
  left.merge(right);
  EXPECT_EQ(left, direct);
  EXPECT_EQ(left.finish(), direct.finish());
  EXPECT_EQ(direct.finish().mean_loss(), 0.3125);
  EXPECT_EQ(mean_of_means, 0.25);
}

TEST(TokenContribution, RejectsNonFiniteOrEmptyValues) {
  EXPECT_EQ(
      capture_error<BatchError>([] { TokenContribution::create(std::nan(""), {1.0}); })->kind(),
      BatchErrorKind::NonFiniteLoss);
  EXPECT_EQ(capture_error<BatchError>([] { TokenContribution::create(1.0, {}); })->kind(),
            BatchErrorKind::ZeroGradientWidth);
  EXPECT_EQ(capture_error<BatchError>([] {
              TokenContribution::create(1.0, {0.0, std::numeric_limits<double>::infinity()});
            })->kind(),
            BatchErrorKind::NonFiniteGradient);
  EXPECT_EQ(capture_error<BatchError>([] { TokenMeanAccumulator::create(0); })->kind(),
            BatchErrorKind::ZeroGradientWidth);
  EXPECT_EQ(capture_error<BatchError>([] { TokenMeanAccumulator::create(1).finish(); })->kind(),
            BatchErrorKind::EmptyAccumulator);
}

TEST(TokenMeanAccumulator, FailuresLeaveEverySumUnchanged) {
  const double huge = std::numeric_limits<double>::max();
  auto accumulator = TokenMeanAccumulator::create(2);
  accumulator.add_token(TokenContribution::create(0.25, {1.0, huge}));
  const auto before = accumulator;
  const double* storage = accumulator.gradient_sums().data();

  EXPECT_EQ(capture_error<BatchError>([&] {
              accumulator.add_token(TokenContribution::create(0.5, {1.0}));
            })->kind(),
            BatchErrorKind::GradientWidthMismatch);
  // Coordinate 0 would be fine; coordinate 1 overflows, so neither is written.
  const auto late = capture_error<BatchError>([&] {
    accumulator.add_token(TokenContribution::create(0.5, {2.0, huge}));
  });
  EXPECT_EQ(late->kind(), BatchErrorKind::NonFiniteAccumulation);
  EXPECT_NE(std::string(late->what()).find("coordinate 1"), std::string::npos);
  auto other = TokenMeanAccumulator::create(2);
  other.add_token(TokenContribution::create(huge * 0.75, {0.0, 0.0}));
  auto loss_overflow = other;
  EXPECT_EQ(capture_error<BatchError>([&] { loss_overflow.merge(other); })->kind(),
            BatchErrorKind::NonFiniteAccumulation);
  EXPECT_EQ(loss_overflow, other);
  EXPECT_EQ(accumulator, before);
  EXPECT_EQ(accumulator.gradient_sums().data(), storage);
}

}  // namespace
}  // namespace llm
