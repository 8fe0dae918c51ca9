// The neural n-gram of chapter 23: the configuration's checks and parameter
// count, the seeded initialization (the reference edition's worked probe
// digits), exact forward values of a known model, the final shifted target,
// the weighted mean over an epoch, greedy selection, every error kind, and
// gradient checks of all five parameters.
#include "llm/models/neural_ngram.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "llm/text/causal_windows.hpp"
#include "llm/training/neural_ngram_loss.hpp"
#include "nn/nn_test_support.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::bits_of;
using testing::capture_error;
using testing::values_of;
using Ids = std::vector<TokenId>;

Linear weight_only(Shape shape, std::vector<double> values) {
  return Linear(TensorValue::parameter(Tensor(std::move(shape), std::move(values))), std::nullopt);
}

// V = 4, T = 2, D = 1, H = 1, with weights a reader can follow by hand:
// h = down * SiLU(x gate) * (x up) = 2 SiLU(e_a) e_b for the context [a, b].
NeuralNgram known_model() {
  return NeuralNgram(NeuralNgramConfig::create(4, 2, 1, 1),
                     Embedding(TensorValue::parameter(Tensor({4, 1}, {0.1, 0.2, 0.3, 0.4}))),
                     SwiGlu(weight_only({2, 1}, {1.0, 0.0}), weight_only({2, 1}, {0.0, 1.0}),
                            weight_only({1, 1}, {2.0})),
                     weight_only({1, 4}, {1.0, 2.0, -1.0, 0.0}));
}

MiniBatchEpoch epoch_of(const std::vector<Ids>& documents, std::size_t context,
                        std::size_t batch_size) {
  std::vector<std::string> names;
  for (std::size_t d = 0; d < documents.size(); ++d) names.push_back("doc-" + std::to_string(d));
  std::vector<BatchDocument> views;
  for (std::size_t d = 0; d < documents.size(); ++d)
    views.push_back({names[d], Partition::Train, documents[d]});
  return MiniBatchEpoch::build(Partition::Train, views, CausalWindowConfig::create(context, 1),
                               MiniBatchConfig::create(batch_size, BatchOrder::sequential()));
}

double silu(double x) {
  return x / (1.0 + std::exp(-x));
}

TEST(NeuralNgramConfig, CountsParametersAndChecksEveryWidth) {
  const NeuralNgramConfig chapter = NeuralNgramConfig::create(266, 2, 4, 8);
  EXPECT_EQ(chapter.context_feature_width(), 8u);
  EXPECT_EQ(chapter.parameter_count(), 3384u);  // 1064 + 2 * 64 + 64 + 2128
  EXPECT_EQ(NeuralNgramConfig::create(7, 2, 3, 5).parameter_count(), 141u);

  const auto kind = [](std::size_t v, std::size_t c, std::size_t d, std::size_t h) {
    return capture_error<NeuralNgramError>([&] { NeuralNgramConfig::create(v, c, d, h); })->kind();
  };
  EXPECT_EQ(kind(0, 0, 0, 0), NeuralNgramErrorKind::EmptyVocabulary);  // the first check wins
  EXPECT_EQ(kind(1, 0, 1, 1), NeuralNgramErrorKind::ZeroContextLength);
  EXPECT_EQ(kind(1, 1, 0, 1), NeuralNgramErrorKind::ZeroEmbeddingWidth);
  EXPECT_EQ(kind(1, 1, 1, 0), NeuralNgramErrorKind::ZeroHiddenWidth);
  constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
  const auto features =
      capture_error<NeuralNgramError>([] { NeuralNgramConfig::create(1, kMax, 2, 1); });
  EXPECT_EQ(features->kind(), NeuralNgramErrorKind::SizeOverflow);
  EXPECT_STREQ(features->what(), "the context feature width T * D does not fit in size_t");
  EXPECT_EQ(kind(kMax, 1, 1, 2), NeuralNgramErrorKind::SizeOverflow);  // the parameter count
}

TEST(NeuralNgram, InitializesTheFiveMatricesInOrderFromOneStream) {
  const NeuralNgramConfig config = NeuralNgramConfig::create(7, 2, 3, 5);
  SplitMix64 left(23), right(23);
  const NeuralNgram a = NeuralNgram::initialized(config, left);
  const NeuralNgram b = NeuralNgram::initialized(config, right);
  const ParameterSet pa = a.parameters(), pb = b.parameters();
  const std::vector<std::string> names = {"ngram.embedding.weight", "ngram.ffn.gate.weight",
                                          "ngram.ffn.up.weight", "ngram.ffn.down.weight",
                                          "ngram.output.weight"};
  const std::vector<Shape> shapes = {{7, 3}, {6, 5}, {6, 5}, {5, 5}, {5, 7}};
  ASSERT_EQ(pa.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(pa[i].name, names[i]);
    EXPECT_EQ(pa[i].parameter.shape(), shapes[i]);
    EXPECT_EQ(bits_of(pa[i].parameter.value()), bits_of(pb[i].parameter.value()));
    EXPECT_FALSE(pa[i].parameter.is_same_node(pb[i].parameter));
  }
  EXPECT_EQ(left.state(), right.state());
  // The same draws as the layers made one after another from one generator.
  SplitMix64 layers(23);
  const Embedding table = Embedding::initialized(7, 3, layers);
  const SwiGlu block = SwiGlu::initialized(6, 5, 5, layers);
  const Linear head = Linear::initialized(5, 7, Bias::No, layers);
  EXPECT_EQ(layers.state(), left.state());
  EXPECT_EQ(bits_of(table.table().value()), bits_of(pa[0].parameter.value()));
  EXPECT_EQ(bits_of(block.down().weight().value()), bits_of(pa[3].parameter.value()));
  EXPECT_EQ(bits_of(head.weight().value()), bits_of(pa[4].parameter.value()));
}

TEST(NeuralNgram, ReproducesTheReferenceProbeOfTheUntrainedModel) {
  // Seed 23, V = 266, T = 2, D = 4, H = 8 and the context [67, 118] ("At"):
  // the digits the earlier edition printed, which depend on no corpus.
  SplitMix64 generator(23);
  const NeuralNgram model =
      NeuralNgram::initialized(NeuralNgramConfig::create(266, 2, 4, 8), generator);
  const Ids context = {67, 118};
  const NeuralNgramPass pass = model.forward(context, 1);
  const auto expect_printed = [](const std::vector<double>& actual,
                                 const std::vector<double>& printed) {
    ASSERT_EQ(actual.size(), printed.size());
    for (std::size_t i = 0; i < printed.size(); ++i)
      EXPECT_NEAR(actual[i], printed[i], 5e-7) << "element " << i;  // six printed decimals
  };
  EXPECT_EQ(pass.embeddings.shape(), (Shape{1, 2, 4}));
  expect_printed(values_of(pass.embeddings.value()), {0.064154, 0.021328, 0.083333, -0.012260,
                                                      0.057176, 0.111494, -0.126703, -0.068284});
  EXPECT_EQ(bits_of(pass.concatenated.value()), bits_of(pass.embeddings.value()));
  EXPECT_EQ(pass.hidden.shape(), (Shape{1, 8}));
  expect_printed(values_of(pass.hidden.value()), {-0.002448, -0.000051, 0.003220, 0.003477,
                                                  0.002033, 0.004016, 0.003727, 0.003874});
  EXPECT_EQ(pass.logits.shape(), (Shape{1, 266}));
  const std::vector<double> logits = values_of(pass.logits.value());
  expect_printed({logits.begin(), logits.begin() + 6},
                 {0.000075, -0.000037, 0.000496, -0.001047, -0.000055, -0.001032});
  EXPECT_EQ(model.greedy_next(context, {}), 44u);
  EXPECT_NEAR(logits[44], 0.002350, 5e-7);
}

TEST(NeuralNgram, ComputesEveryStageOfAKnownModel) {
  const NeuralNgram model = known_model();
  const Ids context = {1, 2};
  const NeuralNgramPass pass = model.forward(context, 1);
  EXPECT_EQ(values_of(pass.embeddings.value()), (std::vector<double>{0.2, 0.3}));
  EXPECT_EQ(pass.concatenated.shape(), (Shape{1, 2}));
  const double h = 2.0 * (silu(0.2) * 0.3);
  EXPECT_NEAR(values_of(pass.hidden.value())[0], h, 1e-15);
  const std::vector<double> logits = values_of(pass.logits.value());
  ASSERT_EQ(logits.size(), 4u);
  EXPECT_NEAR(logits[0], h, 1e-15);
  EXPECT_NEAR(logits[1], 2.0 * h, 1e-15);
  EXPECT_NEAR(logits[2], -h, 1e-15);
  EXPECT_EQ(logits[3], 0.0);
  // The context's order matters: [2, 1] gates with e_2 and scales by e_1.
  const Ids swapped = {2, 1};
  EXPECT_NEAR(values_of(model.forward(swapped, 1).hidden.value())[0], 2.0 * (silu(0.3) * 0.2),
              1e-15);
}

TEST(NeuralNgram, ScoresOnlyTheTokenAfterTheWholeContext) {
  const NeuralNgram model = known_model();
  const MiniBatchEpoch epoch = epoch_of({{1, 2, 3}}, 2, 8);
  const MiniBatch& batch = epoch.batches()[0];
  const std::span<const TokenId> targets = *batch.target_row(0);
  ASSERT_EQ(Ids(targets.begin(), targets.end()), (Ids{2, 3}));  // shifted by one: 2 is inside
  const TensorValue loss = neural_ngram_loss(model, batch);
  const Ids context = {1, 2};
  const std::vector<std::size_t> last = {3};
  const TensorValue expected = model.forward(context, 1).logits.indexed_mean_nll(1, last);
  EXPECT_EQ(bits_of(loss.value()), bits_of(expected.value()));
  loss.backward_with_seed(Tensor::scalar(1.0), Retention::Release);
  for (const NamedParameter& entry : model.parameters()) {
    bool nonzero = false;
    for (double value : entry.parameter.gradient()->values()) nonzero = nonzero || value != 0.0;
    EXPECT_TRUE(nonzero) << entry.name;
  }
}

TEST(NeuralNgram, WeighsEachBatchOfAnEpochByItsRows) {
  const NeuralNgram model = known_model();
  const std::vector<Ids> documents = {{0, 1, 2, 3, 1}, {0, 3, 2, 1}};  // 3 + 2 windows
  const MiniBatchEpoch in_pieces = epoch_of(documents, 2, 2);          // widths 2, 2, 1
  const MiniBatchEpoch at_once = epoch_of(documents, 2, 8);            // width 5
  ASSERT_EQ(in_pieces.batches().size(), 3u);
  const double whole = neural_ngram_loss(model, at_once.batches()[0]).value().at({});
  const std::size_t nodes = TensorValue::live_node_count();
  EXPECT_NEAR(neural_ngram_mean_loss(model, in_pieces), whole, 1e-15);
  EXPECT_EQ(TensorValue::live_node_count(), nodes);  // evaluation kept no graph
  double mean_of_means = 0.0;
  for (const MiniBatch& batch : in_pieces.batches())
    mean_of_means += neural_ngram_loss(model, batch).value().at({});
  mean_of_means /= 3.0;
  EXPECT_GT(std::abs(mean_of_means - whole), 1e-6);  // the short batch would weigh double
}

TEST(NeuralNgram, GreedySkipsMaskedIdsAndKeepsTheLowerOfEqualLogits) {
  const NeuralNgram model = known_model();  // logits [h, 2h, -h, 0] with h > 0
  const Ids context = {1, 2};
  EXPECT_EQ(model.greedy_next(context, {}), 1u);
  EXPECT_EQ(model.greedy_next(context, Ids{1}), 0u);
  EXPECT_EQ(model.greedy_next(context, Ids{0, 1}), 3u);
  // Equal logits: a zero output weight makes every logit 0, and ID 0 wins.
  const NeuralNgram flat(NeuralNgramConfig::create(4, 2, 1, 1),
                         Embedding(TensorValue::parameter(Tensor({4, 1}, {0.1, 0.2, 0.3, 0.4}))),
                         SwiGlu(weight_only({2, 1}, {1.0, 0.0}), weight_only({2, 1}, {0.0, 1.0}),
                                weight_only({1, 1}, {2.0})),
                         weight_only({1, 4}, {0.0, 0.0, 0.0, 0.0}));
  EXPECT_EQ(flat.greedy_next(context, {}), 0u);
  EXPECT_EQ(flat.greedy_next(context, Ids{0}), 1u);

  const auto out_of_range =
      capture_error<NeuralNgramError>([&] { (void)model.greedy_next(context, Ids{4}); });
  EXPECT_EQ(out_of_range->kind(), NeuralNgramErrorKind::MaskedTokenOutOfRange);
  EXPECT_STREQ(out_of_range->what(), "masked ID 4 is not below the vocabulary size 4");
  const auto none = capture_error<NeuralNgramError>([&] {
    (void)model.greedy_next(context, Ids{0, 1, 2, 3});
  });
  EXPECT_EQ(none->kind(), NeuralNgramErrorKind::NoUnmaskedToken);
  EXPECT_EQ(none->kind_name(), "no-unmasked-token");
}

TEST(NeuralNgram, RejectsBadBatchesAndTargetsBeforeRecordingAnything) {
  const NeuralNgram model = known_model();
  const std::size_t nodes = TensorValue::live_node_count();
  const auto empty = capture_error<NeuralNgramError>([&] { (void)model.forward({}, 0); });
  EXPECT_EQ(empty->kind(), NeuralNgramErrorKind::EmptyBatch);
  const Ids one = {1};
  const auto count = capture_error<NeuralNgramError>([&] { (void)model.forward(one, 1); });
  EXPECT_EQ(count->kind(), NeuralNgramErrorKind::ContextCountMismatch);
  EXPECT_STREQ(count->what(), "the contexts must hold B * T = 2 token IDs, got 1");
  const MiniBatchEpoch short_rows = epoch_of({{1, 2}}, 1, 8);
  const auto length = capture_error<NeuralNgramError>(
      [&] { (void)neural_ngram_loss(model, short_rows.batches()[0]); });
  EXPECT_EQ(length->kind(), NeuralNgramErrorKind::BatchContextMismatch);
  EXPECT_STREQ(length->what(), "a mini-batch row must hold the model's T = 2 tokens, got 1");
  const MiniBatchEpoch bad_target = epoch_of({{1, 2, 3, 2, 9}}, 2, 8);
  const auto target = capture_error<NeuralNgramError>(
      [&] { (void)neural_ngram_loss(model, bad_target.batches()[0]); });
  EXPECT_EQ(target->kind(), NeuralNgramErrorKind::TargetOutOfRange);
  EXPECT_EQ(target->evidence().row, 2u);
  EXPECT_STREQ(target->what(), "target ID 9 of row 2 is not below the vocabulary size 4");
  EXPECT_EQ(TensorValue::live_node_count(), nodes);
  for (const NamedParameter& entry : model.parameters())
    for (double value : entry.parameter.gradient()->values()) EXPECT_EQ(value, 0.0);
}

TEST(NeuralNgram, RejectsLayersOfTheWrongShape) {
  const NeuralNgramConfig config = NeuralNgramConfig::create(4, 2, 1, 1);
  const auto table = [] { return Embedding(TensorValue::parameter(Tensor({4, 1}, {1, 2, 3, 4}))); };
  const auto block = [] {
    return SwiGlu(weight_only({2, 1}, {1, 0}), weight_only({2, 1}, {0, 1}),
                  weight_only({1, 1}, {2}));
  };
  const auto wrong_table = capture_error<NeuralNgramError>([&] {
    NeuralNgram(config, Embedding(TensorValue::parameter(Tensor({3, 1}, {1, 2, 3}))), block(),
                weight_only({1, 4}, {1, 2, 3, 4}));
  });
  EXPECT_EQ(wrong_table->kind(), NeuralNgramErrorKind::PartShapeMismatch);
  EXPECT_STREQ(wrong_table->what(), "the embedding weight must have shape [4, 1], got [3, 1]");
  const auto wrong_head = capture_error<NeuralNgramError>([&] {
    NeuralNgram(config, table(), block(), weight_only({1, 3}, {1, 2, 3}));
  });
  EXPECT_EQ(wrong_head->evidence().part, "output");
  const auto bias = capture_error<NeuralNgramError>([&] {
    NeuralNgram(config, table(), block(),
                Linear(TensorValue::parameter(Tensor({1, 4}, {1, 2, 3, 4})),
                       TensorValue::parameter(Tensor({4}, {0, 0, 0, 0}))));
  });
  EXPECT_EQ(bias->kind(), NeuralNgramErrorKind::OutputBias);
}

TEST(NeuralNgram, GradientsOfAllFiveParametersMatchCentralDifferences) {
  SplitMix64 generator(5);
  const NeuralNgram model =
      NeuralNgram::initialized(NeuralNgramConfig::create(6, 3, 2, 3), generator);
  const MiniBatchEpoch epoch = epoch_of({{0, 2, 5, 3, 4, 1}, {0, 4, 4, 2, 1}}, 3, 8);
  const ParameterSet parameters = model.parameters();
  std::vector<std::string> names;
  for (const NamedParameter& entry : parameters) names.push_back(entry.name);
  testing::expect_parameters_gradchecked("neural n-gram loss", parameters, names, [&] {
    return neural_ngram_loss(model, epoch.batches()[0]);
  });
}

}  // namespace
}  // namespace llm
