// An operation written outside the library, the way docs/adding-an-operation.md
// describes: its name, its typed error, and its declaration.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "llm/autograd/operation_names.hpp"
#include "llm/autograd/tensor_value.hpp"
#include "llm/error.hpp"

namespace example {

/// The operation name traces and errors print; outside_operation() refuses,
/// at compile time, a name the library already uses.
inline constexpr llm::TensorOperation kSqrt = llm::outside_operation("example.sqrt");

/// What sqrt() rejects.
enum class SqrtErrorKind {
  NonPositiveInput,  ///< x <= 0: the square root has no finite derivative there
};

/// The offending values of a SqrtError.
struct SqrtErrorEvidence {
  std::vector<std::size_t> coordinate{};  ///< the first offending element
  double value = 0.0;                     ///< its value
};

/// The `example-sqrt` area: one row per kind, in enum order.
struct SqrtErrorTraits {
  using Kind = SqrtErrorKind;
  using Evidence = SqrtErrorEvidence;
  static constexpr std::string_view area = "example-sqrt";
  static constexpr std::array<llm::ErrorKindSpec<Kind>, 1> kinds{{
      {Kind::NonPositiveInput, "non-positive-input",
       "sqrt needs inputs above 0, got {value} at coordinate {coordinate}"},
  }};
  static std::string field_text(const Evidence& evidence, std::string_view field);
};

/// An error of sqrt(): thrown before anything is recorded.
class SqrtError : public llm::KindedError<SqrtErrorTraits> {
 public:
  using KindedError::KindedError;
};

/// sqrt(x) elementwise, same shape; every x must be above 0.
/// VJP: d sqrt(x)/dx = 1 / (2 sqrt(x)), from the saved output.
/// @throws SqrtError NonPositiveInput naming the first x <= 0 in row-major order.
llm::TensorValue sqrt(const llm::TensorValue& x);

}  // namespace example
