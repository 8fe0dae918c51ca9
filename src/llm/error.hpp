// The root of every error the llm library throws.
//
// Each area (text units, corpus, BPE training, tokenizer, causal windows,
// bigram model, metrics, tensor, gradient check, scalar tape, tensor tape,
// model operations) derives one error type from llm::Error. That type carries an
// `enum class` kind and the offending values as const fields; its what()
// reads like a sentence naming them. Every error also names its area and its
// kind as stable kebab-case text, so a caller that only reports errors (a demo,
// a log line) reads `error.area()` and `error.kind_name()` from the base class
// without knowing which derived type it caught.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace llm {

/// Base class of every exception thrown by the llm library.
///
/// Operations that throw give the strong guarantee: stored gradients, values
/// and graph state are bit-for-bit as they were before the call.
class Error : public std::runtime_error {
 public:
  /// `area` and `kind_name` must outlive every copy of the error: pass string
  /// literals or the views the kind-name functions return.
  Error(std::string_view area, std::string_view kind_name, const std::string& message)
      : std::runtime_error(message), area_(area), kind_name_(kind_name) {}

  /// The area that threw, e.g. `corpus`, `tokenizer`, `tensor`,
  /// `gradient-check`, `scalar-tape`, `tensor-tape` or `model-operation`.
  std::string_view area() const noexcept { return area_; }
  /// The kind's stable kebab-case name, e.g. `shape-overflow` or `released-graph`.
  std::string_view kind_name() const noexcept { return kind_name_; }

 private:
  std::string_view area_;
  std::string_view kind_name_;
};

}  // namespace llm
