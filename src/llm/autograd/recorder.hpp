// The recorder: how an operation puts its result on the tensor tape.
//
// Include this header to write a new tape operation as a free function in
// its own file, beside its VJP (docs/adding-an-operation.md walks through
// one). Every operation, the members of chapters 15-16 included, does the
// same three things:
//   1. compute its forward value with a tensor kernel on its operands'
//      values (TensorValue::value(), SharedTensor handles), letting a
//      TensorError propagate before anything is recorded;
//   2. build one VjpRule per operand slot: a closure that captures exactly
//      the saved context its rule needs (SharedTensor handles, shapes, axes,
//      indices), never a TensorValue (a node must not own another node
//      through a closure: graphs are freed by following edges only);
//   3. return record_operation(operation, value, operands...).
// record_operation() checks that the forward value is finite
// (NonFiniteResult naming the operation), honours NoGradScope, stores each
// operand's version for the stale-operand guard and keeps one rule per slot.
// The reverse pass calls the rules, checks every contribution's shape and
// finiteness, and adds them up; nothing else about an operation is special.
#pragma once

#include <functional>
#include <span>
#include <string_view>

#include "llm/autograd/tensor_value.hpp"
#include "llm/tensor/shared_tensor.hpp"

namespace llm {

// region: tensor-record-extension-point
/// The local reverse rule of one operand slot: maps the consumer's adjoint
/// `upstream` (the result's shape, any strides) to this operand's
/// contribution (exactly the operand's shape, any strides). A rule may return
/// a view of `upstream` or of its saved context without copying.
using VjpFunction = std::function<SharedTensor(const SharedTensor& upstream)>;

/// A named VJP. The name is printed by traces; pass a string literal.
struct VjpRule {
  std::string_view name;  ///< e.g. `sum to operand shape`; a string literal
  VjpFunction apply;      ///< upstream adjoint -> this operand's contribution
};

/// One operand slot handed to record_operation(): the operand and its rule.
struct RecordedOperand {
  TensorValue operand;  ///< the value the operation read
  VjpRule rule;         ///< how the result's adjoint reaches it
};

/// Records the result of one operation: checks that `value` is finite
/// (NonFiniteResult naming `operation`), then returns a node that keeps, for
/// each operand slot in order, the operand, its version and its VJP rule.
/// The result tracks a gradient when an operand does and no NoGradScope is
/// active; otherwise it is an untracked node without operands and the rules
/// (with their saved context) are dropped at once. The rules of untracked
/// operands are dropped too (nothing will flow into them).
/// @throws TensorAutodiffError NonFiniteResult.
TensorValue record_operation(TensorOperation operation, SharedTensor value,
                             std::span<RecordedOperand> operands);

/// record_operation for a unary operation.
/// @throws TensorAutodiffError NonFiniteResult.
TensorValue record_operation(TensorOperation operation, SharedTensor value,
                             RecordedOperand operand);

/// record_operation for a binary operation (slot 0 `left`, slot 1 `right`).
/// @throws TensorAutodiffError NonFiniteResult.
TensorValue record_operation(TensorOperation operation, SharedTensor value, RecordedOperand left,
                             RecordedOperand right);
// endregion: tensor-record-extension-point

}  // namespace llm
