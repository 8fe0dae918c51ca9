// The root of every error the llm library throws.
//
// Each module (tensor, gradcheck, scalar tape, tensor tape, model operations)
// derives one error type from llm::Error. That type carries an `enum class`
// kind and the offending values as const fields; its what() reads like a
// sentence naming them. Catch llm::Error to handle any of them.
#pragma once

#include <stdexcept>
#include <string>

namespace llm {

/// Base class of every exception thrown by the llm library.
///
/// Operations that throw give the strong guarantee: stored gradients, values
/// and graph state are bit-for-bit as they were before the call.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace llm
