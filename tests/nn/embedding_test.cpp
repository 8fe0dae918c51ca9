// The token embedding: chapter 18's worked lookup and gradient, equivalence
// with one-hot multiplication, empty ID lists, bounds, construction errors,
// and gradient checks at several ID shapes with repeated IDs.
#include "llm/nn/embedding.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "llm/autograd/model_ops.hpp"
#include "llm/tensor/matmul.hpp"
#include "nn/nn_test_support.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::bits_of;
using testing::capture_error;
using testing::values_of;

Tensor known_table() {
  return Tensor({4, 2}, {10, 11, 20, 21, 30, 31, 40, 41});
}

TEST(Embedding, LooksUpTheChapterRowsAndScatterAddsRepeatedIds) {
  const Embedding embedding(TensorValue::parameter(known_table()));
  const std::vector<std::size_t> ids = {2, 1, 2};
  const TensorValue output = embedding.forward(ids, Shape{1, 3});
  EXPECT_EQ(output.shape(), (Shape{1, 3, 2}));
  EXPECT_EQ(values_of(output.value()), (std::vector<double>{30, 31, 20, 21, 30, 31}));
  output.backward_with_seed(Tensor({1, 3, 2}, {1, 0, 0, 2, 3, 4}), Retention::Retain);
  EXPECT_EQ(values_of(*embedding.table().gradient()),
            (std::vector<double>{0, 0, 0, 2, 4, 4, 0, 0}));
}

TEST(Embedding, EqualsOneHotRowsTimesTheTableBitForBit) {
  const Tensor table = known_table();
  const Embedding embedding(TensorValue::parameter(table));
  const std::vector<std::size_t> ids = {2, 1, 2, 0, 3};
  Tensor one_hot = Tensor::zeros(Shape{ids.size(), 4});
  for (std::size_t row = 0; row < ids.size(); ++row) {
    one_hot.mutable_values()[row * 4 + ids[row]] = 1.0;
  }
  EXPECT_EQ(bits_of(embedding.forward(ids, Shape{ids.size()}).value()),
            bits_of(matmul(one_hot, table)));
}

TEST(Embedding, AnEmptyIdListGivesNoRowsAndNoGradient) {
  const Embedding embedding(TensorValue::parameter(known_table()));
  const TensorValue empty = embedding.forward({}, Shape{0});
  EXPECT_EQ(empty.shape(), (Shape{0, 2}));
  EXPECT_EQ(empty.value().size(), 0u);
  const TensorValue batch = embedding.forward({}, Shape{2, 0});
  EXPECT_EQ(batch.shape(), (Shape{2, 0, 2}));
}

TEST(Embedding, RejectsOutOfRangeIdsAndCountMismatchesBeforeRecording) {
  const Embedding embedding(TensorValue::parameter(known_table()));
  const std::vector<std::size_t> ids = {1, 4, 7};
  const auto bounds = capture_error<ModelOpError>([&] { embedding.forward(ids, Shape{3}); });
  EXPECT_EQ(bounds->kind(), ModelOpErrorKind::GatherIndexOutOfBounds);
  EXPECT_EQ(bounds->index(), 4u);
  EXPECT_EQ(bounds->position(), 1u);
  EXPECT_EQ(bounds->rows(), 4u);
  const std::vector<std::size_t> two = {1, 2};
  EXPECT_EQ(capture_error<ModelOpError>([&] { embedding.forward(two, Shape{3}); })->kind(),
            ModelOpErrorKind::GatherIndexCountMismatch);
}

TEST(Embedding, ConstructionChecksTheTable) {
  EXPECT_EQ(
      capture_error<LayerError>([] { Embedding(TensorValue::constant(known_table())); })->kind(),
      LayerErrorKind::NotAParameter);
  EXPECT_EQ(capture_error<LayerError>([] {
              Embedding(TensorValue::parameter(Tensor({8}, {0, 0, 0, 0, 0, 0, 0, 0})));
            })->kind(),
            LayerErrorKind::TableRank);
  EXPECT_EQ(capture_error<LayerError>([] {
              Embedding(TensorValue::parameter(Tensor::zeros(Shape{0, 2})));
            })->kind(),
            LayerErrorKind::EmptyVocabulary);
  const auto width = capture_error<LayerError>([] {
    Embedding(TensorValue::parameter(Tensor::zeros(Shape{3, 0})));
  });
  EXPECT_EQ(width->kind(), LayerErrorKind::ZeroEmbeddingWidth);
  EXPECT_EQ(width->kind_name(), "zero-embedding-width");
  EXPECT_EQ(width->shape(), (Shape{3, 0}));
}

TEST(Embedding, InitializedTablesReproduceAndFailuresDrawNothing) {
  SplitMix64 first(18);
  SplitMix64 second(18);
  const Embedding a = Embedding::initialized(4, 2, first);
  const Embedding b = Embedding::initialized(4, 2, second);
  EXPECT_EQ(bits_of(a.table().value()), bits_of(b.table().value()));
  SplitMix64 direct(18);
  EXPECT_EQ(bits_of(a.table().value()), bits_of(xavier_uniform(4, 2, direct)));
  const Embedding copy = a;
  EXPECT_TRUE(copy.table().is_same_node(a.table()));
  const std::uint64_t state = first.state();
  EXPECT_EQ(capture_error<LayerError>([&] { Embedding::initialized(0, 2, first); })->kind(),
            LayerErrorKind::EmptyVocabulary);
  EXPECT_EQ(capture_error<LayerError>([&] { Embedding::initialized(4, 0, first); })->kind(),
            LayerErrorKind::ZeroEmbeddingWidth);
  EXPECT_EQ(first.state(), state);
  const ParameterSet parameters = a.parameters();
  ASSERT_EQ(parameters.size(), 1u);
  EXPECT_EQ(parameters[0].name, "weight");
}

TEST(Embedding, GradientMatchesCentralDifferencesAtSeveralShapes) {
  struct Case {
    const char* label;
    std::vector<std::size_t> ids;
    Shape id_shape;
  };
  const std::vector<Case> cases = {
      {"single id", {3}, Shape{1}},
      {"sequence with repeats", {2, 1, 2, 2, 0}, Shape{5}},
      {"batch [2, 3]", {0, 3, 3, 1, 0, 2}, Shape{2, 3}},
      {"batch [2, 2, 2]", {1, 1, 1, 1, 3, 0, 3, 2}, Shape{2, 2, 2}},
  };
  for (const Case& c : cases) {
    SplitMix64 generator(5);
    const Embedding embedding = Embedding::initialized(4, 3, generator);
    ParameterSet model;
    model.add_all("token_embedding", embedding.parameters());
    testing::expect_parameters_gradchecked(c.label, model, {"token_embedding.weight"}, [&] {
      return testing::smooth_loss(embedding.forward(c.ids, c.id_shape));
    });
  }
}

}  // namespace
}  // namespace llm
