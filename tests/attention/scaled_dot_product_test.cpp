// Scaled dot-product attention against chapters 27 (unmasked) and 28
// (causal) expected.txt: scores, weights, outputs, losses and gradients;
// the single token, empty batches, causal prefix invariance, queries against
// a longer key list, and every refusal in its documented order.
#include "llm/attention/scaled_dot_product.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "llm/autograd/gradcheck.hpp"
#include "nn/nn_test_support.hpp"
#include "support/printed.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::bits_of;
using testing::capture_error;
using testing::printed;
using testing::printed_shape;
using testing::total;

TensorValue parameter(Shape shape, std::vector<double> values) {
  return TensorValue::parameter(Tensor(std::move(shape), std::move(values)));
}

TensorValue constant(Shape shape, std::vector<double> values) {
  return TensorValue::constant(Tensor(std::move(shape), std::move(values)));
}

std::string gradient_of(const TensorValue& x) {
  return printed(SharedTensor::copy_of(*x.gradient()));
}

TEST(ScaledDotProductAttention, ReproducesChapter27sUnmaskedPass) {
  const TensorValue query = parameter({1, 2, 2}, {0, 3, 2, -1});
  const TensorValue key = parameter({1, 2, 2}, {3, 0, -1, 2});
  const TensorValue value = parameter({1, 2, 2}, {3, -3, 1, 3});
  const AttentionPass pass = scaled_dot_product_attention(query, key, value, Masking::None);
  EXPECT_EQ(format_fixed(pass.scale, 6), "0.707107");
  EXPECT_EQ(printed(pass.scores.value()), "[0.000000,6.000000,6.000000,-4.000000]");
  EXPECT_EQ(printed(pass.scaled_scores.value()), "[0.000000,4.242641,4.242641,-2.828427]");
  EXPECT_EQ(printed(pass.weights.value()), "[0.014166,0.985834,0.999151,0.000849]");
  EXPECT_EQ(printed(pass.output.value()), "[1.028332,2.915004,2.998303,-2.994908]");
  const TensorValue loss = total(pass.output.mul(constant({1, 2, 2}, {1, 0, 0, 1})));
  EXPECT_EQ(format_fixed(loss.item(), 6), "-1.966576");
  loss.backward();
  EXPECT_EQ(gradient_of(query), "[0.079000,-0.039500,-0.014389,0.007195]");
  EXPECT_EQ(gradient_of(key), "[-0.007195,0.062847,0.007195,-0.062847]");
  EXPECT_EQ(gradient_of(value), "[0.014166,0.999151,0.985834,0.000849]");
}

TEST(ScaledDotProductAttention, ReproducesChapter27sSingleTokenAndEmptyBatches) {
  const TensorValue query = parameter({1, 1, 2}, {2, -1});
  const TensorValue key = parameter({1, 1, 2}, {-3, 4});
  const AttentionPass single =
      scaled_dot_product_attention(query, key, constant({1, 1, 2}, {5, -2}), Masking::None);
  EXPECT_EQ(printed(single.weights.value()), "[1.000000]");
  EXPECT_EQ(printed(single.output.value()), "[5.000000,-2.000000]");
  total(single.output).backward();
  EXPECT_EQ(gradient_of(query), "[0.000000,0.000000]");
  EXPECT_EQ(gradient_of(key), "[0.000000,0.000000]");
  const AttentionPass empty = scaled_dot_product_attention(
      constant({0, 2, 2}, {}), constant({0, 2, 2}, {}), constant({0, 2, 3}, {}), Masking::None);
  EXPECT_EQ(printed_shape(empty.weights.shape()), "[0,2,2]");
  EXPECT_EQ(printed_shape(empty.output.shape()), "[0,2,3]");
  const Tensor two = Tensor::zeros({1, 2, 2});
  EXPECT_EQ(printed_shape(scaled_dot_product_attention(TensorValue::constant(two),
                                                       TensorValue::constant(two),
                                                       constant({1, 2, 1}, {1, 2}), Masking::None)
                              .output.shape()),
            "[1,2,1]");
}

const std::vector<double> kQuery{0, 3, 2, -1, 1, 1};
const std::vector<double> kKey{3, 0, -1, 2, 2, 1};
const std::vector<double> kValue{3, -3, 1, 3, -2, 4};

TEST(CausalAttention, ReproducesChapter28sMaskedPass) {
  const TensorValue query = parameter({1, 3, 2}, kQuery);
  const TensorValue key = parameter({1, 3, 2}, kKey);
  const TensorValue value = parameter({1, 3, 2}, kValue);
  const AttentionPass pass = scaled_dot_product_attention(query, key, value, Masking::Causal);
  EXPECT_EQ(printed(pass.scores.value()),
            "[0.000000,6.000000,3.000000,6.000000,-4.000000,3.000000,3.000000,1.000000,3.000000]");
  EXPECT_EQ(printed(pass.scaled_scores.value()),
            "[0.000000,4.242641,2.121320,4.242641,-2.828427,2.121320,2.121320,0.707107,2.121320]");
  EXPECT_EQ(printed(pass.weights.value()),
            "[1.000000,0.000000,0.000000,0.999151,0.000849,0.000000,0.445808,0.108383,0.445808]");
  EXPECT_EQ(printed(pass.output.value()),
            "[3.000000,-3.000000,2.998303,-2.994908,0.554192,0.770959]");
  const TensorValue loss =
      total(pass.output.mul(constant({1, 3, 2}, {1, -0.5, 0.25, 2, -1, 0.75})));
  EXPECT_EQ(format_fixed(loss.item(), 6), "-0.716214");
  loss.backward();
  EXPECT_EQ(gradient_of(query), "[0.000000,0.000000,-0.027579,0.013790,-1.944424,1.756510]");
  EXPECT_EQ(gradient_of(key), "[-1.676343,-1.655658,0.107746,0.087062,1.568596,1.568596]");
  EXPECT_EQ(gradient_of(value), "[0.803980,1.832659,-0.108171,0.082985,-0.445808,0.334356]");
}

TEST(CausalAttention, ReproducesChapter28sPrefixInvarianceAndSuffixGradients) {
  const auto output_of = [](std::vector<double> key, std::vector<double> value) {
    return scaled_dot_product_attention(constant({1, 3, 2}, kQuery), constant({1, 3, 2}, key),
                                        constant({1, 3, 2}, value), Masking::Causal)
        .output.value();
  };
  const SharedTensor baseline = output_of(kKey, kValue);
  const SharedTensor perturbed = output_of({3, 0, -1, 2, -2, 4}, {3, -3, 1, 3, 5, -1});
  EXPECT_EQ(printed(perturbed), "[3.000000,-3.000000,2.998303,-2.994908,3.287932,-1.591834]");
  EXPECT_EQ(bits_of(baseline.slice(1, 0, 2)), bits_of(perturbed.slice(1, 0, 2)));
  EXPECT_NE(bits_of(baseline.slice(1, 2, 3)), bits_of(perturbed.slice(1, 2, 3)));
  // A seed that touches positions 0 and 1 only sends nothing to position 2.
  const TensorValue query = parameter({1, 3, 2}, kQuery);
  const TensorValue key = parameter({1, 3, 2}, kKey);
  const TensorValue value = parameter({1, 3, 2}, kValue);
  scaled_dot_product_attention(query, key, value, Masking::Causal)
      .output.backward_with_seed(Tensor({1, 3, 2}, {1, -1, 0.5, 2, 0, 0}), Retention::Release);
  for (const TensorValue* input : {&query, &key, &value}) {
    EXPECT_EQ(input->gradient()->values()[4], 0.0);
    EXPECT_EQ(input->gradient()->values()[5], 0.0);
  }
}

TEST(CausalAttention, ANewQueryBlockAgainstAllKeysMatchesTheFullPassBitForBit) {
  // What a key/value cache does: the last query alone against all three keys.
  const AttentionPass full =
      scaled_dot_product_attention(constant({1, 3, 2}, kQuery), constant({1, 3, 2}, kKey),
                                   constant({1, 3, 2}, kValue), Masking::Causal);
  const AttentionPass last =
      scaled_dot_product_attention(constant({1, 1, 2}, {1, 1}), constant({1, 3, 2}, kKey),
                                   constant({1, 3, 2}, kValue), Masking::Causal);
  const SharedTensor full_output = full.output.value();
  EXPECT_EQ(bits_of(last.output.value()), bits_of(full_output.slice(1, 2, 3)));
}

TEST(CausalAttention, GradientsPassTheSampledCheckForHeadsAndCachedKeys) {
  const Tensor query =
      Tensor({2, 2, 2, 3}, {0.3, -0.2, 0.5,  0.1, 0.4, -0.6, -0.3, 0.2, 0.7,  0.9, -0.1, 0.2,
                            0.5, 0.5,  -0.4, 0.3, 0.8, -0.2, 0.1,  0.6, -0.5, 0.4, -0.3, 0.2});
  const Tensor keys = testing::loss_weights({2, 2, 4, 3});
  const Tensor values = testing::loss_weights({2, 2, 4, 2});
  const Tensor seed = testing::loss_weights({2, 2, 2, 2});
  const auto objective = [&](const Tensor& q, const Tensor& k, const Tensor& v) {
    const NoGradScope scope;
    const SharedTensor out =
        scaled_dot_product_attention(TensorValue::constant(q), TensorValue::constant(k),
                                     TensorValue::constant(v), Masking::Causal)
            .output.value();
    const Tensor values_out = out.materialize();
    double sum = 0.0;
    for (std::size_t i = 0; i < values_out.size(); ++i)
      sum += values_out.values()[i] * seed.values()[i];
    return sum;
  };
  const TensorValue q = TensorValue::parameter(query);
  const TensorValue k = TensorValue::parameter(keys);
  const TensorValue v = TensorValue::parameter(values);
  scaled_dot_product_attention(q, k, v, Masking::Causal)
      .output.backward_with_seed(seed, Retention::Release);
  const std::pair<const TensorValue*, int> inputs[] = {{&q, 0}, {&k, 1}, {&v, 2}};
  for (const auto& [input, role] : inputs) {
    const int probe = role;  // clang 14 cannot capture a structured binding in a lambda
    Tensor point = input->value().materialize();
    const TensorGradientCheck check = sampled_tensor_gradient_check(
        point, input->gradient()->view(), 1e-6, 1e-7, point.size(), [&](const Tensor& candidate) {
          return probe == 0   ? objective(candidate, keys, values)
                 : probe == 1 ? objective(query, candidate, values)
                              : objective(query, keys, candidate);
        });
    EXPECT_TRUE(check.passed) << "input " << probe;
  }
}

TEST(ScaledDotProductAttention, RefusesInTheDocumentedOrder) {
  const TensorValue ok = TensorValue::constant(Tensor::zeros({1, 3, 2}));
  auto kind_of = [](auto call) { return capture_error<AttentionError>(call)->kind(); };
  const auto rank = capture_error<AttentionError>([&] {
    scaled_dot_product_attention(TensorValue::constant(Tensor::zeros({3, 2})), ok, ok,
                                 Masking::None);
  });
  EXPECT_EQ(rank->kind(), AttentionErrorKind::OperandRank);
  EXPECT_EQ(rank->evidence().role, "query");
  EXPECT_EQ(kind_of([&] {
              scaled_dot_product_attention(ok, TensorValue::constant(Tensor::zeros({2, 3, 2})), ok,
                                           Masking::None);
            }),
            AttentionErrorKind::BatchMismatch);
  const auto tokens = capture_error<AttentionError>([&] {
    scaled_dot_product_attention(ok, TensorValue::constant(Tensor::zeros({1, 2, 2})), ok,
                                 Masking::None);
  });
  EXPECT_EQ(tokens->kind(), AttentionErrorKind::KeyValueTokenMismatch);
  EXPECT_STREQ(tokens->what(),
               "key and value must hold the same tokens, got [1, 2, 2] and [1, 3, 2]");
  const TensorValue none = TensorValue::constant(Tensor::zeros({1, 0, 2}));
  EXPECT_EQ(kind_of([&] { scaled_dot_product_attention(none, none, none, Masking::Causal); }),
            AttentionErrorKind::EmptyKeys);
  EXPECT_EQ(kind_of([&] {
              const TensorValue flat = TensorValue::constant(Tensor::zeros({1, 3, 0}));
              scaled_dot_product_attention(flat, flat, ok, Masking::None);
            }),
            AttentionErrorKind::ZeroFeatureWidth);
  EXPECT_EQ(kind_of([&] {
              scaled_dot_product_attention(TensorValue::constant(Tensor::zeros({1, 3, 3})), ok, ok,
                                           Masking::None);
            }),
            AttentionErrorKind::QueryKeyWidthMismatch);
  const TensorValue short_keys = TensorValue::constant(Tensor::zeros({1, 2, 2}));
  EXPECT_EQ(
      kind_of([&] { scaled_dot_product_attention(ok, short_keys, short_keys, Masking::Causal); }),
      AttentionErrorKind::MoreQueriesThanKeys);
  // Unmasked attention has no such limit: three queries may read two keys.
  EXPECT_EQ(
      printed_shape(
          scaled_dot_product_attention(ok, short_keys, short_keys, Masking::None).weights.shape()),
      "[1,3,2]");
}

}  // namespace
}  // namespace llm
