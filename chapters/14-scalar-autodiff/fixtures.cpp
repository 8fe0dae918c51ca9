// The chapter 14 examples: see fixtures.hpp.
#include "fixtures.hpp"

#include <functional>
#include <limits>
#include <stdexcept>
#include <utility>

#include "demo_bits.hpp"

namespace ch14 {

using llm::Scalar;
using llm::ScalarError;
using llm::ScalarErrorKind;

namespace {

StoredGradients snapshot(const Scalar& x, const Scalar& square, const Scalar& loss) {
  return {x.gradient().value(), square.gradient().value(), loss.gradient().value()};
}

}  // namespace

// region: shared-scalar-fixture
ReusedSquareExample reused_square_example() {
  Scalar x = Scalar::parameter(kReusedInput);
  Scalar square = x.mul(x);
  Scalar loss = square.add(square);

  llm::BackwardPass first_pass = loss.backward();
  const StoredGradients first = snapshot(x, square, loss);
  loss.backward();
  const StoredGradients repeated = snapshot(x, square, loss);
  loss.zero_grad();
  const StoredGradients zeroed = snapshot(x, square, loss);
  loss.backward();
  const StoredGradients after_zero = snapshot(x, square, loss);

  return {x.value(), square.value(), loss.value(), std::move(first_pass),
          first,     repeated,       zeroed,       after_zero};
}
// endregion: shared-scalar-fixture

// region: asymmetric-product-example
AsymmetricProductExample asymmetric_product_example() {
  Scalar x = Scalar::parameter(kAsymmetricX);
  Scalar y = Scalar::parameter(kAsymmetricY);
  Scalar product = x.mul(y);
  Scalar loss = product.add(x);
  llm::BackwardPass pass = loss.backward();
  const double x_gradient = x.gradient().value();
  const double y_gradient = y.gradient().value();

  // One central difference per input, each on the plain function with the other input fixed.
  const double y0 = kAsymmetricY;
  const double x0 = kAsymmetricX;
  llm::ScalarGradientCheck x_check = llm::scalar_gradient_check(
      x0, x_gradient, kGradcheckStep, kGradcheckTolerance, [y0](double v) { return v * y0 + v; });
  llm::ScalarGradientCheck y_check = llm::scalar_gradient_check(
      y0, y_gradient, kGradcheckStep, kGradcheckTolerance, [x0](double v) { return x0 * v + x0; });
  return {x.value(),  y.value(),  loss.value(), std::move(pass),
          x_gradient, y_gradient, x_check,      y_check};
}
// endregion: asymmetric-product-example

// region: detach-example
DetachExample detach_example() {
  Scalar x = Scalar::parameter(kReusedInput);
  const Scalar square = x.mul(x);
  const Scalar detached = x.detach();
  const Scalar stopped = detached.mul(Scalar::constant(3.0));
  Scalar loss = square.add(stopped);
  loss.backward();
  return {x.value(), loss.value(), x.gradient().value(), detached.gradient()};
}
// endregion: detach-example

// region: nonlinear-example
NonlinearExample nonlinear_example() {
  Scalar x = Scalar::parameter(0.5);
  Scalar output = x.tanh().exp();
  output.backward();
  return {x.value(), output.value(), x.gradient().value()};
}
// endregion: nonlinear-example

// region: gradcheck-example
llm::ScalarGradientCheck gradcheck_example() {
  Scalar x = Scalar::parameter(kReusedInput);
  Scalar square = x.mul(x);
  Scalar loss = square.add(square);
  loss.backward();
  // The numerical side evaluates the plain function; it never sees the graph.
  return llm::scalar_gradient_check(kReusedInput, x.gradient().value(), kGradcheckStep,
                                    kGradcheckTolerance,
                                    [](double value) { return 2.0 * value * value; });
}
// endregion: gradcheck-example

// region: typed-error-example
namespace {

// Runs `request`, which must throw a ScalarError of kind `expected`, and
// compares the gradient bits of `watched` before and after the failure.
TypedErrorCase expect_rejection(std::string label, ScalarErrorKind expected,
                                const std::vector<Scalar>& watched,
                                const std::function<void()>& request) {
  const auto before = demo::gradient_bits(watched);
  try {
    request();
  } catch (const ScalarError& error) {
    if (error.kind() != expected) throw;
    return {std::move(label), error, demo::gradient_bits(watched) == before};
  }
  throw std::logic_error(label + " was accepted but must be rejected");
}

}  // namespace

std::vector<TypedErrorCase> typed_error_example() {
  Scalar x = Scalar::parameter(kReusedInput);
  Scalar square = x.mul(x);
  Scalar loss = square.add(square);
  loss.backward();
  Scalar constant = Scalar::constant(kReusedInput);
  const std::vector<Scalar> reused = {x, square, loss, constant};

  // large.backward() below leaves d(large)/d(small) = 1e308 stored in small; a
  // second pass would make that stored sum 2e308, which overflows a double.
  Scalar small = Scalar::parameter(1.0);
  Scalar large = small.mul(Scalar::constant(1e308));
  large.backward();

  std::vector<TypedErrorCase> cases;
  cases.push_back(expect_rejection("constant-output", ScalarErrorKind::UntrackedOutput, reused,
                                   [&] { constant.backward(); }));
  cases.push_back(expect_rejection("non-finite-seed", ScalarErrorKind::NonFiniteSeed, reused, [&] {
    loss.backward_with_seed(std::numeric_limits<double>::infinity());
  }));
  cases.push_back(expect_rejection("non-finite-accumulated-gradient",
                                   ScalarErrorKind::NonFiniteAccumulatedGradient, {small, large},
                                   [&] { large.backward(); }));
  return cases;
}
// endregion: typed-error-example

}  // namespace ch14
