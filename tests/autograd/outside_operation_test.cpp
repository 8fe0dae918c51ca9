// The worked example of docs/adding-an-operation.md (docs/examples/sqrt_operation.*),
// compiled as an outside author would compile it: it records, reverses,
// checks against central differences, refuses with its own typed error, and
// is invisible under NoGradScope like every library operation.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "llm/tensor/elementwise.hpp"
#include "sqrt_operation.hpp"
#include "tensor_tape_support.hpp"
#include "vjp_check_support.hpp"

namespace llm {
namespace {

using testing::capture_error;
using testing::tape_state;
using testing::tensor;
using testing::values_of;

TEST(OutsideOperation, TheDocumentedExampleRecordsAndReverses) {
  const TensorValue x = TensorValue::parameter(tensor({3}, {4.0, 0.25, 9.0}));
  const TensorValue y = example::sqrt(x);
  EXPECT_EQ(y.operation(), example::kSqrt);
  EXPECT_EQ(y.operation().name(), "example.sqrt");
  EXPECT_EQ(values_of(y.value()), (std::vector<double>{2.0, 0.5, 3.0}));
  y.backward_with_seed(tensor({3}, {1.0, 1.0, 6.0}), Retention::Release);
  EXPECT_EQ(values_of(*x.gradient()), (std::vector<double>{0.25, 1.0, 1.0}));
  testing::expect_vjp_matches(
      "example.sqrt", tensor({2, 2}, {0.5, 1.5, 2.5, 3.5}),
      [](const TensorValue& p) { return example::sqrt(p.transpose(0, 1)); },
      [](const Tensor& p) {
        return map_values(p.view().transpose(0, 1), [](double v) { return std::sqrt(v); });
      });
}

TEST(OutsideOperation, TheDocumentedExampleRefusesWithItsOwnTypedError) {
  const TensorValue x = TensorValue::parameter(tensor({2}, {1.0, -4.0}));
  const auto before = tape_state({x});
  const auto error = capture_error<example::SqrtError>([&] { example::sqrt(x); });
  EXPECT_EQ(error->kind(), example::SqrtErrorKind::NonPositiveInput);
  EXPECT_EQ(error->area(), "example-sqrt");
  EXPECT_EQ(error->kind_name(), "non-positive-input");
  EXPECT_STREQ(error->what(), "sqrt needs inputs above 0, got -4.0 at coordinate [1]");
  EXPECT_EQ(tape_state({x}), before);
  const NoGradScope scope;
  EXPECT_FALSE(example::sqrt(TensorValue::parameter(tensor({1}, {4.0}))).tracks_gradient());
}

}  // namespace
}  // namespace llm
