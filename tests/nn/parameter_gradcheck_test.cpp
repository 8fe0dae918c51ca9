// check_parameter_gradient: chapter 13's check on one named parameter of a
// model. It passes on a correct rule, fails on a wrong one (a test that can
// fail), and leaves every value and gradient of the set as it found them.
#include "llm/nn/parameter_gradcheck.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "llm/autograd/recorder.hpp"
#include "llm/tensor/elementwise.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::bits_of;
using testing::capture_error;

inline constexpr TensorOperation kWrongSquare{"wrong_square"};

// x^2 elementwise with the VJP 3x (the correct one is 2x).
TensorValue wrong_square(const TensorValue& x) {
  const SharedTensor input = x.value();
  const SharedTensor output = map_values(input, [](double v) { return v * v; });
  return record_operation(kWrongSquare, output,
                          {x, {"times 3 x (wrong)", [input](const SharedTensor& upstream) {
                                 const Tensor three = Tensor::scalar(3.0);
                                 return SharedTensor(mul(upstream, mul(three, input)));
                               }}});
}

TensorValue total(const TensorValue& x) {
  return x.reshape(Shape{x.value().size()}).sum_axis(0);
}

TEST(CheckParameterGradient, PassesACorrectRuleAndRestoresTheSet) {
  const TensorValue weight = TensorValue::parameter(Tensor({2, 2}, {0.5, -1.0, 1.5, 2.0}));
  const TensorValue other = TensorValue::parameter(Tensor({2}, {0.25, -0.75}));
  ParameterSet set;
  set.add("weight", weight);
  set.add("other", other);
  total(other.mul(other)).backward();  // a stored gradient the check must not lose
  const auto weight_bits = bits_of(weight.value());
  const auto other_gradient = bits_of(*other.gradient());
  const TensorGradientCheck check = check_parameter_gradient(
      set, "weight",
      [&] {
        return total(weight.mul(weight).matmul(other.reshape({2, 1})));
      },
      1e-5, 1e-7, 4);
  EXPECT_TRUE(check.passed);
  EXPECT_EQ(check.checks.size(), 4u);
  EXPECT_EQ(bits_of(weight.value()), weight_bits);
  EXPECT_EQ(bits_of(*other.gradient()), other_gradient);
  EXPECT_EQ(bits_of(*weight.gradient()), bits_of(Tensor::zeros(Shape{2, 2})));
}

TEST(CheckParameterGradient, FailsAWrongRule) {
  const TensorValue weight = TensorValue::parameter(Tensor({3}, {0.5, -1.0, 1.5}));
  ParameterSet set;
  set.add("weight", weight);
  const TensorGradientCheck check = check_parameter_gradient(
      set, "weight", [&] { return total(wrong_square(weight)); }, 1e-5, 1e-7, 3);
  EXPECT_FALSE(check.passed);
  ASSERT_EQ(check.checks.size(), 3u);
  EXPECT_DOUBLE_EQ(check.checks[0].comparison.analytic, 1.5);    // 3 x at x = 0.5
  EXPECT_NEAR(check.checks[0].comparison.numerical, 1.0, 1e-8);  // 2 x
}

TEST(CheckParameterGradient, UnknownNamesAndFailingLossesLeaveTheSetUnchanged) {
  const TensorValue weight = TensorValue::parameter(Tensor({2}, {1.0, 2.0}));
  ParameterSet set;
  set.add("weight", weight);
  EXPECT_EQ(capture_error<ParameterError>([&] {
              check_parameter_gradient(
                  set, "missing", [&] { return total(weight); }, 1e-5, 1e-7, 2);
            })->kind(),
            ParameterErrorKind::UnknownName);
  const auto bits = bits_of(weight.value());
  // A step so large that a probe reaches a non-positive input of log.
  EXPECT_THROW(check_parameter_gradient(
                   set, "weight", [&] { return total(weight.log()); }, 1.5, 1e-7, 2),
               Error);
  EXPECT_EQ(bits_of(weight.value()), bits);
}

}  // namespace
}  // namespace llm
