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

#include <array>
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

/// The offending values of a ModelOpError; a kind leaves the fields it does
/// not use zero or empty.
struct ModelOpErrorEvidence {
  std::size_t rank = 0;      ///< the table's rank (GatherTableRank)
  std::size_t expected = 0;  ///< elements of index_shape (GatherIndexCountMismatch)
  std::size_t actual = 0;    ///< selectors supplied (GatherIndexCountMismatch)
  std::size_t position = 0;  ///< flat position of the first bad selector (GatherIndexOutOfBounds)
  std::size_t index = 0;     ///< the bad selector itself (GatherIndexOutOfBounds)
  std::size_t rows = 0;      ///< the table's row count R (GatherIndexOutOfBounds)
  Shape shape{};  ///< the offending operand's shape (GatherTableRank, LogNonPositiveInput)
  std::vector<std::size_t> coordinate{};  ///< coordinate of the first non-positive input
  double value = 0.0;                     ///< the non-positive input value (LogNonPositiveInput)
};

/// The `model-operation` area: each kind's stable name and message, in enum order.
struct ModelOpErrorTraits {
  using Kind = ModelOpErrorKind;                               ///< the area's kinds
  using Evidence = ModelOpErrorEvidence;                       ///< the offending values
  static constexpr std::string_view area = "model-operation";  ///< Error::area()
  /// Each kind's stable name and message, in enum order.
  static constexpr std::array<ErrorKindSpec<Kind>, 4> kinds{{
      {Kind::GatherTableRank, "gather-table-rank",
       "gather_rows needs a rank-two table [R, D], but the table has shape {shape} of rank {rank}"},
      {Kind::GatherIndexCountMismatch, "gather-index-count-mismatch",
       "gather_rows index shape has {expected} positions, but {actual} ids were given"},
      {Kind::GatherIndexOutOfBounds, "gather-index-out-of-bounds",
       "gather_rows id {index} at flat position {position} is out of bounds for a table with "
       "{rows} rows"},
      {Kind::LogNonPositiveInput, "log-non-positive-input",
       "log needs positive inputs, but the value at coordinate {coordinate} of shape {shape} is "
       "{value}"},
  }};
  /// A field as the message prints it.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};

/// An error of a chapter 16 model operation. It is thrown only while
/// validating, before any value is computed or recorded, so every stored
/// gradient, value and graph state is bit-for-bit as before the call.
/// Fields a kind does not use are zero or empty.
class ModelOpError : public KindedError<ModelOpErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw ModelOpError(ModelOpErrorKind::..., {.field = value});`
  explicit ModelOpError(ModelOpErrorKind kind, ModelOpErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}

  /// The table's rank (GatherTableRank).
  std::size_t rank() const noexcept { return evidence().rank; }
  /// Elements of index_shape (GatherIndexCountMismatch).
  std::size_t expected() const noexcept { return evidence().expected; }
  /// Selectors supplied (GatherIndexCountMismatch).
  std::size_t actual() const noexcept { return evidence().actual; }
  /// Flat position of the first bad selector (GatherIndexOutOfBounds).
  std::size_t position() const noexcept { return evidence().position; }
  /// The bad selector itself (GatherIndexOutOfBounds).
  std::size_t index() const noexcept { return evidence().index; }
  /// The table's row count R (GatherIndexOutOfBounds).
  std::size_t rows() const noexcept { return evidence().rows; }
  /// The offending operand's shape (GatherTableRank, LogNonPositiveInput).
  const Shape& shape() const noexcept { return evidence().shape; }
  /// Coordinate of the first non-positive input (LogNonPositiveInput).
  const std::vector<std::size_t>& coordinate() const noexcept { return evidence().coordinate; }
  /// The non-positive input value (LogNonPositiveInput).
  double value() const noexcept { return evidence().value; }
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
