// Chapters 33 and 35: a set's global gradient norm in its fixed order,
// gradient scaling in place without a version bump (a retained graph stays
// valid), and the named export and all-or-nothing import of values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "llm/nn/parameter_set.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::bits_of;
using testing::capture_error;
using testing::values_of;

TensorValue parameter_of(Shape shape, std::vector<double> values) {
  return TensorValue::parameter(Tensor(std::move(shape), std::move(values)));
}

void seed(const TensorValue& parameter, std::vector<double> gradient) {
  parameter.backward_with_seed(Tensor(parameter.shape(), std::move(gradient)), Retention::Retain);
}

struct TwoParameters {
  TensorValue a = parameter_of(Shape{2}, {1.0, 2.0});
  TensorValue b = parameter_of(Shape{2, 2}, {0.5, -0.5, 1.5, -1.5});
  ParameterSet set;
  TwoParameters() {
    set.add("model.a", a);
    set.add("model.b", b);
  }
};

TEST(GradientNorm, IsTheL2NormOfEveryGradientTogether) {
  TwoParameters p;
  seed(p.a, {3.0, 0.0});
  seed(p.b, {0.0, -4.0, 0.0, 12.0});
  const GradientNorm norm = p.set.gradient_norm();
  EXPECT_EQ(norm.largest, 12.0);
  EXPECT_EQ(norm.value, 13.0);  // sqrt(9 + 16 + 144)
  EXPECT_DOUBLE_EQ(norm.scaled_root, 13.0 / 12.0);
}

TEST(GradientNorm, IsZeroForZeroGradients) {
  TwoParameters p;
  const GradientNorm norm = p.set.gradient_norm();
  EXPECT_EQ(norm.largest, 0.0);
  EXPECT_EQ(norm.scaled_root, 0.0);
  EXPECT_EQ(norm.value, 0.0);
}

// Squares of 1e200 overflow and squares of 1e-200 underflow; the scaled sum
// does neither.
TEST(GradientNorm, NeitherOverflowsNorUnderflows) {
  TwoParameters big, tiny;
  seed(big.a, {3e200, 4e200});
  EXPECT_DOUBLE_EQ(big.set.gradient_norm().value, 5e200);
  seed(tiny.b, {3e-200, 0.0, 0.0, 4e-200});
  EXPECT_DOUBLE_EQ(tiny.set.gradient_norm().value, 5e-200);
  TwoParameters huge;
  const double max = std::numeric_limits<double>::max();
  seed(huge.a, {max, max});
  EXPECT_EQ(huge.set.gradient_norm().value, max);  // sqrt(2) * max is reported as max
  EXPECT_EQ(huge.set.gradient_norm().largest, max);
}

// The running rescale makes the bits depend on the order; the order is the
// set's, elements row-major, so the same set always gives the same bits.
TEST(GradientNorm, FollowsSetOrderThenRowMajorOrder) {
  TwoParameters p;
  seed(p.a, {0.1, 0.7});
  seed(p.b, {0.3, 0.9, 0.2, 0.4});
  double largest = 0.0, squares = 1.0;
  for (double g : {0.1, 0.7, 0.3, 0.9, 0.2, 0.4}) {
    if (largest < g) {
      squares = 1.0 + squares * (largest / g) * (largest / g);
      largest = g;
    } else {
      squares += (g / largest) * (g / largest);
    }
  }
  EXPECT_EQ(p.set.gradient_norm().value, largest * std::sqrt(squares));
}

TEST(ScaleGradients, ScalesInPlaceWithoutAVersionBump) {
  TwoParameters p;
  // A retained graph that reads both parameters (backward() releases by default).
  const TensorValue loss = p.a.sum_axis(0).add(p.b.sum_axis(0).sum_axis(0));
  loss.backward(Retention::Retain);
  const std::uint64_t version_a = p.a.version(), version_b = p.b.version();
  const double* storage = p.b.gradient()->values().data();
  p.set.scale_gradients(0.25);
  EXPECT_EQ(values_of(*p.a.gradient()), (std::vector<double>{0.25, 0.25}));
  EXPECT_EQ(values_of(*p.b.gradient()), (std::vector<double>{0.25, 0.25, 0.25, 0.25}));
  EXPECT_EQ(p.b.gradient()->values().data(), storage);  // in place
  EXPECT_EQ(p.a.version(), version_a);
  EXPECT_EQ(p.b.version(), version_b);
  loss.backward();  // the graph is not stale: no StaleOperand
  EXPECT_EQ(values_of(*p.a.gradient()), (std::vector<double>{1.25, 1.25}));
}

TEST(ScaleGradients, TheTwoArgumentFormDividesFirst) {
  TwoParameters p;
  const double max = std::numeric_limits<double>::max();
  seed(p.a, {max, -max});
  p.set.scale_gradients(1e-150, max);  // max * 1e-150 / max would overflow first
  EXPECT_EQ(values_of(*p.a.gradient()), (std::vector<double>{1e-150, -1e-150}));
}

TEST(ScaleGradients, ARejectedScaleChangesNoGradient) {
  TwoParameters p;
  seed(p.a, {1.0, 2.0});
  seed(p.b, {1e300, 0.0, 0.0, 3.0});
  const auto a_before = bits_of(*p.a.gradient()), b_before = bits_of(*p.b.gradient());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (auto call : std::vector<std::function<void()>>{
           [&] { p.set.scale_gradients(-1.0); }, [&] { p.set.scale_gradients(nan); },
           [&] { p.set.scale_gradients(1.0, 0.0); },
           [&] { p.set.scale_gradients(1.0, std::numeric_limits<double>::infinity()); }}) {
    EXPECT_EQ(capture_error<ParameterError>(call)->kind(),
              ParameterErrorKind::InvalidGradientScale);
  }
  const auto overflow = capture_error<ParameterError>([&] { p.set.scale_gradients(1e10); });
  EXPECT_EQ(overflow->kind(), ParameterErrorKind::NonFiniteScaledGradient);
  EXPECT_EQ(overflow->name(), "model.b");
  EXPECT_EQ(overflow->index(), 0u);
  // model.a was checked first and would have scaled fine: still untouched.
  EXPECT_EQ(bits_of(*p.a.gradient()), a_before);
  EXPECT_EQ(bits_of(*p.b.gradient()), b_before);
}

TEST(NamedValues, ExportSharesEveryValueInSetOrder) {
  TwoParameters p;
  const std::vector<NamedValue> values = p.set.named_values();
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values[0].name, "model.a");
  EXPECT_EQ(values[1].name, "model.b");
  EXPECT_TRUE(values[1].value.shares_storage_with(p.b.value()));
}

TEST(NamedValues, LoadFindsValuesByNameInAnyOrder) {
  TwoParameters source, target;
  source.set.load(std::vector<NamedValue>{
      {"model.b", Tensor(Shape{2, 2}, {9.0, 8.0, 7.0, 6.0})},
      {"model.a", Tensor(Shape{2}, {-1.0, -2.0})},
  });
  target.set.load(source.set.named_values());
  EXPECT_EQ(values_of(target.a.value()), (std::vector<double>{-1.0, -2.0}));
  EXPECT_EQ(values_of(target.b.value()), (std::vector<double>{9.0, 8.0, 7.0, 6.0}));
  EXPECT_EQ(target.a.version(), 1u);
}

TEST(NamedValues, EveryRejectedLoadChangesNothing) {
  TwoParameters p;
  seed(p.a, {0.5, 0.5});
  const auto a_before = bits_of(p.a.value()), b_before = bits_of(p.b.value());
  const SharedTensor good_a = Tensor(Shape{2}, {3.0, 4.0});
  const SharedTensor good_b = Tensor(Shape{2, 2}, {1.0, 1.0, 1.0, 1.0});
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    std::vector<NamedValue> values;
    ParameterErrorKind kind;
    std::string name;
    std::string_view cause;
  };
  const std::vector<Case> cases = {
      {{{"model.a", good_a}, {"model.a", good_a}},
       ParameterErrorKind::DuplicateValue,
       "model.a",
       ""},
      {{{"model.a", good_a}, {"model.b", good_b}, {"model.c", good_a}},
       ParameterErrorKind::UnexpectedValue,
       "model.c",
       ""},
      {{{"model.b", good_b}}, ParameterErrorKind::MissingValue, "model.a", ""},
      {{{"model.a", good_a}, {"model.b", Tensor(Shape{4}, {1.0, 1.0, 1.0, 1.0})}},
       ParameterErrorKind::RejectedValue,
       "model.b",
       "assign-shape-mismatch"},
      {{{"model.a", good_a}, {"model.b", Tensor(Shape{2, 2}, {1.0, inf, 1.0, 1.0})}},
       ParameterErrorKind::RejectedValue,
       "model.b",
       "non-finite-leaf"},
  };
  for (const Case& c : cases) {
    const auto error = capture_error<ParameterError>([&] { p.set.load(c.values); });
    EXPECT_EQ(error->kind(), c.kind) << error->what();
    EXPECT_EQ(error->name(), c.name);
    EXPECT_EQ(error->cause_kind(), c.cause);
    EXPECT_EQ(bits_of(p.a.value()), a_before);
    EXPECT_EQ(bits_of(p.b.value()), b_before);
    EXPECT_EQ(p.a.version(), 0u);
    EXPECT_EQ(values_of(*p.a.gradient()), (std::vector<double>{0.5, 0.5}));
  }
}

// Chapters 37-38: a cache's binding tells its own model's unchanged weights
// from another model's, from the same model after an update, and from a
// set of another shape.
TEST(ParameterBinding, RecognisesOnlyTheSameNodesAtTheSameVersions) {
  TwoParameters p;
  const ParameterBinding binding = ParameterBinding::capture(p.set);
  EXPECT_FALSE(binding.compare(p.set));
  p.set.scale_gradients(0.5);  // a gradient transform is not a new value
  EXPECT_FALSE(binding.compare(p.set));

  TwoParameters other;  // same names and shapes, other nodes
  const auto node = binding.compare(other.set);
  ASSERT_TRUE(node);
  EXPECT_EQ(node->kind, BindingMismatchKind::Node);
  EXPECT_EQ(node->index, 0u);

  p.b.assign(Tensor(Shape{2, 2}, {0.0, 0.0, 0.0, 0.0}));  // an update
  const auto version = binding.compare(p.set);
  ASSERT_TRUE(version);
  EXPECT_EQ(version->kind, BindingMismatchKind::Version);
  EXPECT_EQ(version->name, "model.b");
  EXPECT_EQ(version->captured, 0u);
  EXPECT_EQ(version->current, 1u);

  ParameterSet smaller;
  smaller.add("model.a", p.a);
  EXPECT_EQ(binding.compare(smaller)->kind, BindingMismatchKind::Count);
  ParameterSet renamed;
  renamed.add("model.x", p.a);
  renamed.add("model.b", p.b);
  EXPECT_EQ(binding.compare(renamed)->kind, BindingMismatchKind::Name);
}

}  // namespace
}  // namespace llm
