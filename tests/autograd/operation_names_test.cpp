// Operation names: the library's own are listed once and distinct, every
// constant the library records is in the list, and outside_operation() gives
// an outside operation its name (a colliding name does not compile: the
// CTest pair outside_operation_name_* builds tests/autograd/operation_name_collision.cpp).
#include "llm/autograd/operation_names.hpp"

#include <gtest/gtest.h>

#include <string_view>

#include "llm/autograd/elementwise_ops.hpp"
#include "llm/autograd/rms_norm_op.hpp"
#include "llm/autograd/rotary.hpp"
#include "llm/autograd/softmax_ops.hpp"

namespace llm {
namespace {

consteval bool library_names_are_distinct() {
  for (std::size_t i = 0; i < kLibraryOperationNames.size(); ++i) {
    for (std::size_t j = i + 1; j < kLibraryOperationNames.size(); ++j) {
      if (kLibraryOperationNames[i] == kLibraryOperationNames[j]) return false;
    }
  }
  return true;
}
static_assert(library_names_are_distinct());

TEST(OperationNames, EveryOperationTheLibraryRecordsIsListed) {
  const TensorOperation recorded[] = {TensorOperation::Parameter,
                                      TensorOperation::Constant,
                                      TensorOperation::Detached,
                                      TensorOperation::Reshape,
                                      TensorOperation::Transpose,
                                      TensorOperation::Permute,
                                      TensorOperation::Slice,
                                      TensorOperation::BroadcastTo,
                                      TensorOperation::Materialize,
                                      TensorOperation::Add,
                                      TensorOperation::Mul,
                                      TensorOperation::SumAxis,
                                      TensorOperation::MeanAxis,
                                      TensorOperation::MatMul,
                                      TensorOperation::GatherRows,
                                      TensorOperation::Exp,
                                      TensorOperation::Log,
                                      TensorOperation::Silu,
                                      TensorOperation::LogSoftmax,
                                      TensorOperation::IndexedMeanNll,
                                      kScale,
                                      kSub,
                                      kDiv,
                                      kRsqrt,
                                      kSoftmax,
                                      kCausalSoftmax,
                                      kRmsNorm,
                                      kRotaryPairs};
  EXPECT_EQ(std::size(recorded), kLibraryOperationNames.size());
  for (const TensorOperation operation : recorded) {
    EXPECT_TRUE(is_library_operation_name(operation.name())) << operation.name();
  }
}

TEST(OperationNames, AnOutsideNameIsAcceptedAndALibraryNameIsRecognized) {
  constexpr TensorOperation outside = outside_operation("probe.sub");
  static_assert(outside.name() == "probe.sub");
  EXPECT_FALSE(outside == kSub);
  EXPECT_TRUE(is_library_operation_name("sub"));
  EXPECT_FALSE(is_library_operation_name("probe.sub"));
}

}  // namespace
}  // namespace llm
