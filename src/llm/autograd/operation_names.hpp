// Every operation name the library records, in one list, and a compile-time
// check that keeps the name of an operation written outside the library
// distinct from them (docs/adding-an-operation.md, "Names").
//
// TensorOperation compares by name, so two operations with one name would be
// one operation to a trace lookup (TensorBackwardTrace::pass_adjoint) and to
// every reader of an error message. The library's own names are listed here
// and tested to be distinct (tests/autograd/operation_names_test.cpp); an
// operation outside the library takes its name through outside_operation(),
// which does not compile when the name is one of the library's. Two outside
// files cannot see each other at compile time: give their names a prefix of
// their own, e.g. `probe.cube`.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "llm/autograd/tensor_value.hpp"

namespace llm {

// region: library-operation-names
/// The name of every operation the library records: the leaves and the
/// operations of chapters 15-16 (TensorOperation's constants) and of Part V
/// (kScale ... kRotaryPairs).
inline constexpr std::array<std::string_view, 28> kLibraryOperationNames{
    "parameter",   "constant",         "detached",    "reshape",     "transpose", "permute",
    "slice",       "broadcast_to",     "materialize", "add",         "mul",       "sum_axis",
    "mean_axis",   "matmul",           "gather_rows", "exp",         "log",       "silu",
    "log_softmax", "indexed_mean_nll", "scale",       "sub",         "div",       "rsqrt",
    "softmax",     "causal_softmax",   "rms_norm",    "rotary_pairs"};

/// Whether `name` is the name of an operation the library records.
constexpr bool is_library_operation_name(std::string_view name) {
  for (std::string_view library : kLibraryOperationNames) {
    if (library == name) return true;
  }
  return false;
}

/// The operation of a tape operation written outside the library:
/// `inline constexpr TensorOperation kCube = outside_operation("probe.cube");`.
/// Evaluated while compiling; a name the library already uses (say "sub")
/// stops the build with an error pointing at this function.
consteval TensorOperation outside_operation(std::string_view name) {
  if (is_library_operation_name(name)) {
    throw "this operation name is already one of the library's (kLibraryOperationNames)";
  }
  return TensorOperation(name);
}
// endregion: library-operation-names

}  // namespace llm
