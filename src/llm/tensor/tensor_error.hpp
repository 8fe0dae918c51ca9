// The tensor area's error type: one kind per fact a tensor operation checks.
// Every kind is thrown only while validating, before any output is written.
// Written in the one pattern of src/llm/error.hpp: the kinds, one table of
// names and messages, the evidence.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "llm/error.hpp"
#include "llm/tensor/shape.hpp"

namespace llm {

/// What went wrong in a tensor operation.
enum class TensorErrorKind {
  ShapeOverflow,       ///< the product of a shape's nonzero extents does not fit in size_t
  AllocationFailed,    ///< the element count fits in size_t, but memory cannot hold the values
  ValueCountMismatch,  ///< a value list's length differs from the shape's element count
  RankMismatch,        ///< a coordinate's (or a strides list's) rank differs from the tensor's rank
  CoordinateOutOfBounds,  ///< a coordinate component is not smaller than its extent
  OffsetOutOfBounds,      ///< a flat offset is not smaller than the element count
  ViewOutOfBounds,        ///< a strided layout reaches an offset outside its storage
  NonContiguousView,      ///< contiguous_values() of a view that is not row-major contiguous
  NonContiguousReshape,   ///< reshape of a view that is not row-major contiguous
  InvalidAxis,            ///< an axis is not smaller than the rank
  InvalidPermutation,     ///< a list of axes is not a permutation of 0..rank-1
  InvalidSlice,           ///< a slice's start exceeds its end, or its end exceeds the extent
  ShapeMismatch,          ///< two shapes that must be equal differ (a copy into a view)
  EmptyAxis,              ///< a mean or probability axis has extent zero
  IncompatibleBroadcast,  ///< two shapes do not broadcast under NumPy rules
  ReshapeCountMismatch,   ///< a reshape would change the element count
  MatMulRank,             ///< a matrix-product operand has rank below two
  MatMulInnerMismatch,    ///< the inner extents K of a matrix product differ
  TargetCountMismatch,    ///< target count differs from the number of class-axis groups
  EmptyTargets,           ///< a mean over zero targets is undefined
  TargetOutOfRange,       ///< a target class is not smaller than the class extent
  NonFiniteValue,         ///< an input value is NaN or infinite where finiteness is required
};

/// The offending values of a TensorError; a kind leaves the fields it does
/// not use empty or zero.
struct TensorErrorEvidence {
  Shape shape{};        ///< the shape of the offending (first) operand
  Shape other_shape{};  ///< the second operand's shape, or the requested target shape
  /// The offending strides (RankMismatch of a layout, ViewOutOfBounds,
  /// NonContiguousView, NonContiguousReshape).
  Strides strides{};
  /// The offending coordinate, or the axes of an InvalidPermutation.
  std::vector<std::size_t> coordinate{};
  std::size_t axis = 0;      ///< the offending axis, when one is named
  std::size_t index = 0;     ///< the offending position, offset, group, target index or slice start
  std::size_t expected = 0;  ///< the count or extent required (ViewOutOfBounds: the storage size)
  std::size_t actual = 0;    ///< the count supplied (InvalidSlice: the slice end)
  double value = 0.0;        ///< the offending floating-point value (NonFiniteValue)
  /// RankMismatch: the strides of a layout, not a coordinate, have the wrong rank.
  bool strides_rank = false;
};

/// The `tensor` area: each kind's stable name and message, in enum order.
/// Taught in chapters 08-12.
struct TensorErrorTraits {
  using Kind = TensorErrorKind;                       ///< the area's kinds
  using Evidence = TensorErrorEvidence;               ///< the offending values
  static constexpr std::string_view area = "tensor";  ///< Error::area()
  /// Each kind's stable name and message, in enum order.
  static constexpr std::array<ErrorKindSpec<Kind>, 22> kinds{{
      {Kind::ShapeOverflow, "shape-overflow",
       "tensor shape {shape} has more elements than size_t can count"},
      {Kind::AllocationFailed, "allocation-failed",
       "tensor shape {shape} needs {expected} values, more than memory can hold"},
      {Kind::ValueCountMismatch, "value-count-mismatch",
       "tensor shape {shape} needs {expected} values, got {actual}"},
      {Kind::RankMismatch, "rank-mismatch",
       "{ranked_operand} but {ranked_against} {shape} has rank {rank}"},
      {Kind::CoordinateOutOfBounds, "coordinate-out-of-bounds",
       "coordinate {coordinate} is out of bounds for shape {shape} at axis {axis} "
       "({coordinate_at_axis} >= {extent_at_axis})"},
      {Kind::OffsetOutOfBounds, "offset-out-of-bounds",
       "flat offset {index} is out of bounds for shape {shape} with {expected} elements"},
      {Kind::ViewOutOfBounds, "view-out-of-bounds",
       "a view of shape {shape} with strides {strides} reaches storage offset {index}, but the "
       "storage holds {expected} values"},
      {Kind::NonContiguousView, "non-contiguous-view",
       "a view of shape {shape} with strides {strides} is not row-major contiguous; read it "
       "through its strides or materialize it"},
      {Kind::NonContiguousReshape, "non-contiguous-reshape",
       "cannot reshape a view of shape {shape} with strides {strides} to {other_shape}: it is not "
       "row-major contiguous; materialize it first"},
      {Kind::InvalidAxis, "invalid-axis",
       "axis {axis} is out of range for shape {shape} of rank {rank}"},
      {Kind::InvalidPermutation, "invalid-permutation",
       "axes {coordinate} are not a permutation of the {rank} axes of shape {shape}"},
      {Kind::InvalidSlice, "invalid-slice",
       "slice {index}..{actual} of axis {axis} of shape {shape} is invalid: {slice_fault}"},
      {Kind::ShapeMismatch, "shape-mismatch", "shapes {shape} and {other_shape} must be equal"},
      {Kind::EmptyAxis, "empty-axis", "axis {axis} of shape {shape} has extent zero"},
      {Kind::IncompatibleBroadcast, "incompatible-broadcast",
       "shapes {shape} and {other_shape} cannot broadcast at axis {axis} counted from the right "
       "(0 = last): extents {extent_from_right} and {other_extent_from_right}"},
      {Kind::ReshapeCountMismatch, "reshape-count-mismatch",
       "cannot reshape {shape} to {other_shape}: the element counts differ"},
      {Kind::MatMulRank, "matmul-rank",
       "matrix product needs operands of rank two or more, got {shape} and {other_shape}"},
      {Kind::MatMulInnerMismatch, "matmul-inner-mismatch",
       "matrix product {shape} times {other_shape} has inner extents {inner_extent} and "
       "{other_inner_extent} that differ"},
      {Kind::TargetCountMismatch, "target-count-mismatch",
       "the class axis has {expected} groups but {actual} targets were given"},
      {Kind::EmptyTargets, "empty-targets",
       "indexed mean NLL needs at least one target: a mean over zero targets is undefined"},
      {Kind::TargetOutOfRange, "target-out-of-range",
       "target {actual} of group {index} is out of range for {expected} classes"},
      {Kind::NonFiniteValue, "non-finite-value",
       "value {value} at coordinate {coordinate} of shape {shape} is not finite"},
  }};
  /// A field as the message prints it; besides the evidence fields, `rank`
  /// (of shape), the RankMismatch clauses, the coordinate and extent at
  /// `axis`, the extents from the right, the inner extents and the slice fault.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};

/// An error from tensor storage, layouts, views, shape operations, matrix
/// products or probabilities. Its area() is `tensor`. Fields not used by a
/// kind are empty or zero. Taught in chapters 08-12.
class TensorError : public KindedError<TensorErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw TensorError(TensorErrorKind::..., {.field = value});`
  explicit TensorError(TensorErrorKind kind, TensorErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}

  /// The shape of the offending (first) operand.
  const Shape& shape() const noexcept { return evidence().shape; }
  /// The shape of the second operand or requested target shape.
  const Shape& other_shape() const noexcept { return evidence().other_shape; }
  /// The offending strides (RankMismatch of a layout, ViewOutOfBounds,
  /// NonContiguousView, NonContiguousReshape).
  const Strides& strides() const noexcept { return evidence().strides; }
  /// The offending coordinate, or the axes of an InvalidPermutation.
  const std::vector<std::size_t>& coordinate() const noexcept { return evidence().coordinate; }
  /// The offending axis, when one is named.
  std::size_t axis() const noexcept { return evidence().axis; }
  /// The offending position, offset, group, target index or slice start.
  std::size_t index() const noexcept { return evidence().index; }
  /// The count or extent the operation required (or the storage size of ViewOutOfBounds).
  std::size_t expected() const noexcept { return evidence().expected; }
  /// The count the caller supplied (or the slice end of InvalidSlice).
  std::size_t actual() const noexcept { return evidence().actual; }
  /// The offending floating-point value (NonFiniteValue).
  double value() const noexcept { return evidence().value; }
};

}  // namespace llm
