// The typed-error fixture of chapter 16: see fixtures.hpp.
#include <limits>
#include <stdexcept>
#include <utility>

#include "demo_bits.hpp"
#include "fixtures.hpp"
#include "llm/autograd/model_ops.hpp"

namespace ch16 {

using llm::Tensor;
using llm::TensorValue;

namespace {

// The error's class and kind name, whichever module threw it.
std::pair<std::string, std::string> classify(const llm::Error& error) {
  if (const auto* model = dynamic_cast<const llm::ModelOpError*>(&error)) {
    return {"ModelOpError", std::string(model->kind_name())};
  }
  if (const auto* tensor = dynamic_cast<const llm::TensorError*>(&error)) {
    return {"TensorError", std::string(tensor->kind_name())};
  }
  if (const auto* tape = dynamic_cast<const llm::TensorAutodiffError*>(&error)) {
    return {"TensorAutodiffError", std::string(tape->kind_name())};
  }
  return {"Error", "unknown"};
}

// Runs `request`, which must throw, comparing the gradient bits of every
// watched parameter immediately before and after it.
template <class Request>
ModelErrorCase rejected(std::string label, const std::string& parameter_name,
                        const TensorValue& parameter, const std::vector<TensorValue>& watched,
                        Request&& request) {
  Tensor before = *parameter.gradient();
  const auto bits_before = demo::gradient_bits(watched);
  try {
    request();
  } catch (const llm::Error& error) {
    auto [type, kind] = classify(error);
    return {std::move(label),
            std::move(type),
            std::move(kind),
            error.what(),
            parameter_name,
            std::move(before),
            demo::gradient_bits(watched) == bits_before};
  }
  throw std::runtime_error("the " + label + " request was accepted");
}

}  // namespace

// region: model-op-errors-example
std::vector<ModelErrorCase> model_error_example() {
  const TensorValue table = TensorValue::parameter(Tensor({2, 2}, {1, 2, 3, 4}));
  const TensorValue logits = TensorValue::parameter(Tensor({2, 2}, {1, -1, 0.5, -0.5}));
  const TensorValue empty_logits = TensorValue::parameter(Tensor({0, 2}, {}));
  const TensorValue overflow =
      TensorValue::parameter(Tensor::scalar(std::numeric_limits<double>::max()));

  // Real passes store the gradients to protect: ones for table, logits and
  // overflow; the [0, 2] gradient has no element to be non-zero.
  sum_to_scalar(table).backward();
  sum_to_scalar(logits).backward();
  sum_to_scalar(empty_logits).backward();
  overflow.backward();

  const std::vector<TensorValue> watched = {table, logits, empty_logits, overflow};
  const std::vector<std::size_t> row_two = {2};
  const std::vector<std::size_t> class_two = {0, 2};
  const std::vector<std::size_t> no_targets = {};
  std::vector<ModelErrorCase> cases;
  cases.push_back(rejected("invalid-id", "table", table, watched,
                           [&] { table.gather_rows(row_two, {1}); }));  // rows are 0 and 1
  cases.push_back(rejected("invalid-target", "logits", logits, watched,
                           [&] { logits.indexed_mean_nll(1, class_two); }));  // classes 0 and 1
  cases.push_back(rejected("empty-targets", "empty_logits", empty_logits, watched,
                           [&] { empty_logits.indexed_mean_nll(1, no_targets); }));  // G = 0
  cases.push_back(rejected("exp-overflow", "overflow", overflow, watched,
                           [&] { overflow.exp(); }));  // e^(1.8e308) is +inf
  return cases;
}
// endregion: model-op-errors-example

}  // namespace ch16
