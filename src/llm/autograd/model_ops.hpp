// Model operations on the tensor tape: the checked row-gather plan and the
// chapter's error type. Taught in chapter 16.
//
// The operations themselves (matmul, gather_rows, exp, log, silu,
// log_softmax, indexed_mean_nll) are TensorValue members declared in
// tensor_value.hpp and defined in src/llm/autograd/model_*.cpp, each beside
// its VJP. This header holds what they need besides the tape:
//   - ModelOpError, for the facts a tensor kernel does not check: a gather
//     table of the wrong rank, a selector count or a selector out of bounds,
//     and a logarithm of a non-positive value;
//   - RowGatherPlan, the sealed result of validating one gather request.
// Errors of the kernels underneath propagate unchanged: TensorError for shapes,
// axes and targets (TargetOutOfRange, EmptyTargets), TensorAutodiffError
// NonFiniteResult for an overflowing forward value such as exp(1000).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "llm/error.hpp"
#include "llm/tensor/index_span.hpp"
#include "llm/tensor/tensor.hpp"

namespace llm {

// region: model-op-errors
/// What a model operation rejected before computing anything.
enum class ModelOpErrorKind {
  GatherTableRank,           ///< the gathered table is not rank two [R, D]
  GatherIndexCountMismatch,  ///< the selector count differs from index_shape's element count
  GatherIndexOutOfBounds,    ///< a selector is not smaller than the table's row count R
  LogNonPositiveInput,       ///< log() met a value <= 0, where ln is -inf or undefined
};

/// Stable kebab-case name of a kind, e.g. `gather-index-out-of-bounds`.
std::string_view model_op_error_kind_name(ModelOpErrorKind kind);

/// An error of a chapter 16 model operation. It is thrown only while
/// validating, before any value is computed or recorded, so every stored
/// gradient, value and graph state is bit-for-bit as before the call.
/// Fields a kind does not use are zero or empty.
class ModelOpError : public Error {
 public:
  ModelOpErrorKind kind() const noexcept { return kind_; }
  /// The table's rank (GatherTableRank).
  std::size_t rank() const noexcept { return rank_; }
  /// Elements of index_shape (GatherIndexCountMismatch).
  std::size_t expected() const noexcept { return expected_; }
  /// Selectors supplied (GatherIndexCountMismatch).
  std::size_t actual() const noexcept { return actual_; }
  /// Flat position of the first bad selector (GatherIndexOutOfBounds).
  std::size_t position() const noexcept { return position_; }
  /// The bad selector itself (GatherIndexOutOfBounds).
  std::size_t index() const noexcept { return index_; }
  /// The table's row count R (GatherIndexOutOfBounds).
  std::size_t rows() const noexcept { return rows_; }
  /// The offending operand's shape (GatherTableRank, LogNonPositiveInput).
  const Shape& shape() const noexcept { return shape_; }
  /// Coordinate of the first non-positive input (LogNonPositiveInput).
  const std::vector<std::size_t>& coordinate() const noexcept { return coordinate_; }
  /// The non-positive input value (LogNonPositiveInput).
  double value() const noexcept { return value_; }

  static ModelOpError gather_table_rank(Shape shape);
  static ModelOpError gather_index_count_mismatch(std::size_t expected, std::size_t actual);
  static ModelOpError gather_index_out_of_bounds(std::size_t position, std::size_t index,
                                                 std::size_t rows);
  static ModelOpError log_non_positive_input(Shape shape, std::vector<std::size_t> coordinate,
                                             double value);

 private:
  ModelOpError(ModelOpErrorKind kind, const std::string& message);

  ModelOpErrorKind kind_;
  std::size_t rank_ = 0;
  std::size_t expected_ = 0;
  std::size_t actual_ = 0;
  std::size_t position_ = 0;
  std::size_t index_ = 0;
  std::size_t rows_ = 0;
  Shape shape_;
  std::vector<std::size_t> coordinate_;
  double value_ = 0.0;
};
// endregion: model-op-errors

// region: model-row-gather-plan-contract
/// The established facts of one row gather: a table [R, D], selectors in
/// row-major order of `index_shape`, and the output shape index_shape + [D]
/// ([4] selectors into [3, 2] give [4, 2]; [B, T] token IDs into [V, C] give
/// [B, T, C]). Its members are private and the only way to make one is
/// checked(), so a plan always holds selectors that were counted and bounds-
/// checked for a table of exactly this shape: the row copy and the VJP's
/// scatter-add consume it without scanning the request again.
/// Taught in chapter 16.
class RowGatherPlan {
 public:
  /// Validates one gather request, in this order (the first failing fact is
  /// reported):
  ///   1. the table is rank two;
  ///   2. `index_shape` is a valid row-major shape (its element count fits);
  ///   3. that count equals `ids.size()`;
  ///   4. each selector, in flat order, is smaller than R (the first one that
  ///      is not is named with its flat position);
  /// and only then appends D to `index_shape` and validates the output shape.
  /// @throws ModelOpError GatherTableRank, then TensorError ShapeOverflow for
  ///         `index_shape`, then ModelOpError GatherIndexCountMismatch, then
  ///         GatherIndexOutOfBounds, then TensorError ShapeOverflow for the output.
  static RowGatherPlan checked(const Shape& table_shape, IndexSpan ids, const Shape& index_shape);

  /// The selectors, one per output row, in row-major order of index_shape().
  const std::vector<std::size_t>& ids() const noexcept { return ids_; }
  /// The logical shape of the selectors, e.g. [B, T].
  const Shape& index_shape() const noexcept { return index_shape_; }
  /// The table's shape [R, D].
  const Shape& table_shape() const noexcept { return table_shape_; }
  /// index_shape() + [D].
  const Shape& output_shape() const noexcept { return output_shape_; }
  /// Elements of output_shape(): ids().size() * D.
  std::size_t output_size() const noexcept { return output_size_; }
  /// D, the features copied per selector.
  std::size_t width() const noexcept { return table_shape_[1]; }

 private:
  RowGatherPlan(std::vector<std::size_t> ids, Shape index_shape, Shape table_shape,
                Shape output_shape, std::size_t output_size);

  std::vector<std::size_t> ids_;
  Shape index_shape_;
  Shape table_shape_;
  Shape output_shape_;
  std::size_t output_size_;
};
// endregion: model-row-gather-plan-contract

}  // namespace llm
