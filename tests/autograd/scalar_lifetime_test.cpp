// Graph lifetime on the scalar tape: a million-operation chain is built,
// reversed and freed on an 8 MiB stack. Freeing used to recurse once per node
// and overflowed the stack at about 1.8 * 10^5 nodes. Also built with
// AddressSanitizer (scalar_lifetime_asan_test).
#include <gtest/gtest.h>

#include <cstddef>

#include "llm/autograd/scalar.hpp"
#include "support/fixed_stack.hpp"

namespace llm {
namespace {

TEST(ScalarGraphLifetime, AMillionOperationChainIsReversedAndFreedOnAnEightMiBStack) {
  testing::run_with_stack(testing::kDefaultStackBytes, [] {
    const Scalar x = Scalar::parameter(0.75);
    {
      Scalar chain = x;
      for (std::size_t k = 0; k < 1'000'000; ++k) chain = chain.neg();  // an even count: +x
      EXPECT_EQ(chain.value(), 0.75);
      const BackwardPass pass = chain.backward();
      EXPECT_EQ(pass.nodes.size(), 1'000'001u);
      EXPECT_EQ(x.gradient(), 1.0);
    }  // the chain's last handle goes here
    EXPECT_EQ(x.gradient(), 1.0);
  });
}

TEST(ScalarGraphLifetime, ANodeSharedByTwoChainsIsFreedOnceWithTheLastOne) {
  testing::run_with_stack(testing::kDefaultStackBytes, [] {
    const Scalar x = Scalar::parameter(2.0);
    Scalar left = x.mul(x);  // two operand uses of one node
    Scalar right = left;
    for (int k = 0; k < 300'000; ++k) left = left.add(right);
    const double value = left.value();
    EXPECT_GT(value, 0.0);
    left = Scalar::constant(0.0);  // the long chain goes; `right` still names x*x
    EXPECT_EQ(right.value(), 4.0);
    right.backward();
    EXPECT_EQ(x.gradient(), 4.0);
  });
}

}  // namespace
}  // namespace llm
