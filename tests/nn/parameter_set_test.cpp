// Named parameter sets: the name grammar, declaration order, duplicates,
// prefixes, zero_grad over parameters a loss does not reach, snapshot and
// restore, and the all-or-nothing update (every parameter unchanged, bit for
// bit, after a rejected value anywhere in the list).
#include "llm/nn/parameter_set.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::bits_of;
using testing::capture_error;
using testing::values_of;

TensorValue parameter_of(Shape shape, std::vector<double> values) {
  return TensorValue::parameter(Tensor(std::move(shape), std::move(values)));
}

// A reference or iterator into the temporary set a layer's parameters()
// returns would dangle (chapter 20's demo once read freed memory that way), so
// the accessors that hand one out do not compile on a temporary; a named set
// (an lvalue) has them, and a range-for over a temporary still works.
template <class Set>
concept HandsOutReferences = requires(Set&& set) {
  std::forward<Set>(set)[0];
  std::forward<Set>(set).begin();
  std::forward<Set>(set).end();
  std::forward<Set>(set).find("w");
  std::forward<Set>(set).at("w");
};
template <class Set>
concept HandsOutAnyReference = requires(Set&& set) {
  std::forward<Set>(set)[0];
}
|| requires(Set&& set) {
  std::forward<Set>(set).begin();
}
|| requires(Set&& set) {
  std::forward<Set>(set).end();
}
|| requires(Set&& set) {
  std::forward<Set>(set).find("w");
}
|| requires(Set&& set) {
  std::forward<Set>(set).at("w");
};
static_assert(HandsOutReferences<const ParameterSet&>);
static_assert(HandsOutReferences<ParameterSet&>);
static_assert(!HandsOutAnyReference<ParameterSet>);
static_assert(!HandsOutAnyReference<const ParameterSet>);

TEST(ParameterSetTemporaries, StillIterateInARangeFor) {
  const TensorValue w = parameter_of({2}, {1.0, 2.0});
  const auto make = [&] {
    ParameterSet set;
    set.add("w", w);
    return set;
  };
  std::vector<std::string> names;
  for (const NamedParameter& entry : make()) names.push_back(entry.name);
  EXPECT_EQ(names, std::vector<std::string>{"w"});
}

TEST(ParameterName, AcceptsDottedSegmentsOfLowercaseDigitsAndUnderscores) {
  EXPECT_NO_THROW(validate_parameter_name("decoder.block.0.attention.query.weight"));
  EXPECT_NO_THROW(validate_parameter_name("block_0.attention2.query_weight"));
  EXPECT_NO_THROW(validate_parameter_name("w"));
}

TEST(ParameterName, ReportsTheFirstFaultWithItsByteOffset) {
  struct Case {
    std::string name;
    std::size_t index;
    std::uint8_t byte;
  };
  const std::vector<Case> cases = {
      {"", 0, 0},      {".bad", 0, 0},       {"valid..weight", 6, 0},   {"valid.", 6, 0},
      {"Bad", 0, 'B'}, {"bad-name", 3, '-'}, {"na\xc3\xafve", 2, 0xc3}, {"a b", 1, ' '},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const auto error = capture_error<ParameterError>([&] { validate_parameter_name(c.name); });
    EXPECT_EQ(error->kind(), ParameterErrorKind::InvalidName);
    EXPECT_EQ(error->area(), "parameter");
    EXPECT_EQ(error->index(), c.index);
    EXPECT_EQ(error->byte(), c.byte);
    EXPECT_EQ(error->name(), c.name);
  }
}

TEST(ParameterSet, KeepsDeclarationOrderAndFindsByName) {
  const TensorValue embedding = parameter_of({2, 2}, {1, 2, 3, 4});
  const TensorValue projection = parameter_of({2, 1}, {5, 6});
  ParameterSet set;
  EXPECT_TRUE(set.empty());
  set.add("token_embedding.weight", embedding);
  set.add("projection.weight", projection);
  ASSERT_EQ(set.size(), 2u);
  EXPECT_EQ(set[0].name, "token_embedding.weight");
  EXPECT_EQ(set[1].name, "projection.weight");
  EXPECT_TRUE(set.at("projection.weight").is_same_node(projection));
  EXPECT_EQ(set.index_of("projection.weight"), 1u);
  EXPECT_EQ(set.find("missing"), nullptr);
  EXPECT_EQ(capture_error<ParameterError>([&] { set.at("missing"); })->kind(),
            ParameterErrorKind::UnknownName);
}

TEST(ParameterSet, RejectsDuplicatesBadNamesAndNonParametersUnchanged) {
  ParameterSet set;
  set.add("a.weight", parameter_of({1}, {1}));
  set.add("b.weight", parameter_of({1}, {2}));
  const auto duplicate =
      capture_error<ParameterError>([&] { set.add("a.weight", parameter_of({1}, {3})); });
  EXPECT_EQ(duplicate->kind(), ParameterErrorKind::DuplicateName);
  EXPECT_EQ(duplicate->index(), 0u);
  EXPECT_EQ(duplicate->name(), "a.weight");
  EXPECT_EQ(capture_error<ParameterError>([&] { set.add("A", parameter_of({1}, {3})); })->kind(),
            ParameterErrorKind::InvalidName);
  const TensorValue constant = TensorValue::constant(Tensor::scalar(1.0));
  EXPECT_EQ(capture_error<ParameterError>([&] { set.add("c.weight", constant); })->kind(),
            ParameterErrorKind::NotAParameter);
  EXPECT_EQ(set.size(), 2u);
}

TEST(ParameterSet, ListsASharedNodeOnlyOnce) {
  const TensorValue tied = parameter_of({2, 2}, {1, 2, 3, 4});
  ParameterSet set;
  set.add("token_embedding.weight", tied);
  const auto shared =
      capture_error<ParameterError>([&] { set.add("output_projection.weight", tied); });
  EXPECT_EQ(shared->kind(), ParameterErrorKind::SharedParameter);
  EXPECT_EQ(shared->index(), 0u);
  EXPECT_EQ(shared->first_name(), "token_embedding.weight");
  ParameterSet layer;
  layer.add("weight", tied);
  EXPECT_EQ(capture_error<ParameterError>([&] { set.add_all("output_projection", layer); })->kind(),
            ParameterErrorKind::SharedParameter);
  EXPECT_EQ(set.size(), 1u);
}

TEST(ParameterSet, AddAllPutsALayersNamesUnderItsPrefix) {
  ParameterSet layer;
  layer.add("weight", parameter_of({2, 2}, {1, 2, 3, 4}));
  layer.add("bias", parameter_of({2}, {0, 0}));
  ParameterSet model;
  model.add("token_embedding.weight", parameter_of({4, 2}, {0, 0, 0, 0, 0, 0, 0, 0}));
  model.add_all("decoder.block.0.attention.query", layer);
  ASSERT_EQ(model.size(), 3u);
  EXPECT_EQ(model[1].name, "decoder.block.0.attention.query.weight");
  EXPECT_EQ(model[2].name, "decoder.block.0.attention.query.bias");
  EXPECT_TRUE(model[1].parameter.is_same_node(layer[0].parameter));
  // The same layer under the same prefix again: rejected as a whole.
  const auto duplicate = capture_error<ParameterError>(
      [&] { model.add_all("decoder.block.0.attention.query", layer); });
  EXPECT_EQ(duplicate->kind(), ParameterErrorKind::DuplicateName);
  EXPECT_EQ(duplicate->index(), 1u);
  EXPECT_EQ(capture_error<ParameterError>([&] { model.add_all("decoder.", layer); })->kind(),
            ParameterErrorKind::InvalidName);
  EXPECT_EQ(model.size(), 3u);
}

TEST(ParameterSet, ZeroGradReachesParametersTheLossDoesNotUse) {
  const TensorValue used = parameter_of({2}, {1, 2});
  const TensorValue unused = parameter_of({2}, {3, 4});
  ParameterSet set;
  set.add("used", used);
  set.add("unused", unused);
  unused.mul(unused).sum_axis(0).backward();  // an earlier loss leaves a gradient on `unused`
  const TensorValue loss = used.mul(used).sum_axis(0);
  loss.backward();
  EXPECT_EQ(values_of(*unused.gradient()), (std::vector<double>{6, 8}));
  loss.zero_grad();  // the loss's own zero_grad misses `unused`
  EXPECT_EQ(values_of(*unused.gradient()), (std::vector<double>{6, 8}));
  set.zero_grad();
  EXPECT_EQ(values_of(*used.gradient()), (std::vector<double>{0, 0}));
  EXPECT_EQ(values_of(*unused.gradient()), (std::vector<double>{0, 0}));
}

TEST(ParameterSet, AssignAllIsAllOrNothing) {
  const TensorValue first = parameter_of({2}, {1, 2});
  const TensorValue second = parameter_of({2, 1}, {3, 4});
  ParameterSet set;
  set.add("first", first);
  set.add("second", second);
  const auto before_first = bits_of(first.value());
  const auto before_second = bits_of(second.value());

  // The second value has the wrong shape: the first must not change either.
  const auto shape = capture_error<ParameterError>([&] {
    set.assign_all({Tensor({2}, {10, 20}), Tensor({2}, {30, 40})});
  });
  EXPECT_EQ(shape->kind(), ParameterErrorKind::RejectedValue);
  EXPECT_EQ(shape->index(), 1u);
  EXPECT_EQ(shape->name(), "second");
  EXPECT_EQ(shape->cause_kind(), "assign-shape-mismatch");
  const auto nan = capture_error<ParameterError>([&] {
    set.assign_all(
        {Tensor({2}, {10, 20}), Tensor({2, 1}, {30, std::numeric_limits<double>::quiet_NaN()})});
  });
  EXPECT_EQ(nan->cause_kind(), "non-finite-leaf");
  EXPECT_EQ(capture_error<ParameterError>([&] {
              set.assign_all({Tensor({2}, {10, 20})});
            })->kind(),
            ParameterErrorKind::UpdateCountMismatch);
  EXPECT_EQ(bits_of(first.value()), before_first);
  EXPECT_EQ(bits_of(second.value()), before_second);
  EXPECT_EQ(first.version(), 0u);
  EXPECT_EQ(second.version(), 0u);

  set.assign_all({Tensor({2}, {10, 20}), Tensor({2, 1}, {30, 40})});
  EXPECT_EQ(values_of(first.value()), (std::vector<double>{10, 20}));
  EXPECT_EQ(values_of(second.value()), (std::vector<double>{30, 40}));
  EXPECT_EQ(first.version(), 1u);
  EXPECT_EQ(second.version(), 1u);
}

TEST(ParameterSet, APreparedUpdateChangesNothingUntilCommitted) {
  const TensorValue weight = parameter_of({2}, {1, 2});
  ParameterSet set;
  set.add("weight", weight);
  const SharedTensor old_value = weight.value();
  ParameterUpdate update = set.prepare_update({Tensor({2}, {5, 6})});
  EXPECT_EQ(values_of(weight.value()), (std::vector<double>{1, 2}));
  EXPECT_FALSE(update.committed());
  update.commit();
  update.commit();  // a second commit does nothing
  EXPECT_TRUE(update.committed());
  EXPECT_EQ(values_of(weight.value()), (std::vector<double>{5, 6}));
  EXPECT_EQ(weight.version(), 1u);
  EXPECT_EQ(values_of(old_value), (std::vector<double>{1, 2}));  // earlier handles keep theirs
}

TEST(ParameterSet, SnapshotAndRestoreRoundTripValuesAndGradients) {
  const TensorValue weight = parameter_of({2}, {1, 2});
  const TensorValue bias = parameter_of({1}, {0.5});
  ParameterSet set;
  set.add("weight", weight);
  set.add("bias", bias);
  weight.mul(bias.broadcast_to({2})).sum_axis(0).backward();
  const ParameterSnapshot saved = set.snapshot();
  EXPECT_EQ(saved.size(), 2u);
  EXPECT_EQ(saved.name(1), "bias");

  set.assign_all({Tensor({2}, {7, 8}), Tensor({1}, {9})});
  set.zero_grad();
  set.restore(saved);
  EXPECT_EQ(values_of(weight.value()), (std::vector<double>{1, 2}));
  EXPECT_EQ(values_of(bias.value()), (std::vector<double>{0.5}));
  EXPECT_EQ(values_of(*weight.gradient()), (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(values_of(*bias.gradient()), (std::vector<double>{3}));
  EXPECT_EQ(weight.version(), 2u);

  // A snapshot of another set is refused before anything changes.
  ParameterSet other;
  other.add("bias", bias);
  other.add("weight", weight);
  const auto mismatch = capture_error<ParameterError>([&] { other.restore(saved); });
  EXPECT_EQ(mismatch->kind(), ParameterErrorKind::SnapshotMismatch);
  EXPECT_EQ(mismatch->index(), 0u);
  ParameterSet shorter;
  shorter.add("weight", weight);
  EXPECT_EQ(capture_error<ParameterError>([&] { shorter.restore(saved); })->kind(),
            ParameterErrorKind::UpdateCountMismatch);
  EXPECT_EQ(weight.version(), 2u);
}

TEST(PreparedAssignment, TheTapeChecksLikeAssign) {
  const TensorValue constant = TensorValue::constant(Tensor::scalar(1.0));
  EXPECT_EQ(capture_error<TensorAutodiffError>([&] {
              (void)constant.prepare_assignment(Tensor::scalar(2.0));
            })->kind(),
            TensorAutodiffErrorKind::NotAParameter);
  const TensorValue weight = parameter_of({2}, {1, 2});
  EXPECT_EQ(capture_error<TensorAutodiffError>([&] {
              (void)weight.prepare_restore(weight.value(), Tensor({3}, {0, 0, 0}));
            })->kind(),
            TensorAutodiffErrorKind::AssignShapeMismatch);
  PreparedAssignment prepared = weight.prepare_assignment(Tensor({2}, {3, 4}));
  EXPECT_TRUE(prepared.parameter().is_same_node(weight));
  EXPECT_EQ(weight.version(), 0u);
  TensorValue::commit_assignment(prepared);
  EXPECT_EQ(values_of(weight.value()), (std::vector<double>{3, 4}));
  EXPECT_EQ(weight.version(), 1u);
}

}  // namespace
}  // namespace llm
