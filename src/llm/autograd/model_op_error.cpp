// Messages and evidence of the model operations' typed errors (chapter 16).
#include <string>
#include <utility>

#include "llm/autograd/model_ops.hpp"
#include "llm/format.hpp"

namespace llm {

std::string_view model_op_error_kind_name(ModelOpErrorKind kind) {
  switch (kind) {
    case ModelOpErrorKind::GatherTableRank:
      return "gather-table-rank";
    case ModelOpErrorKind::GatherIndexCountMismatch:
      return "gather-index-count-mismatch";
    case ModelOpErrorKind::GatherIndexOutOfBounds:
      return "gather-index-out-of-bounds";
    case ModelOpErrorKind::LogNonPositiveInput:
      return "log-non-positive-input";
  }
  return "unknown";
}

ModelOpError::ModelOpError(ModelOpErrorKind kind, const std::string& message)
    : Error("model-operation", model_op_error_kind_name(kind), message), kind_(kind) {}

ModelOpError ModelOpError::gather_table_rank(Shape shape) {
  ModelOpError error(ModelOpErrorKind::GatherTableRank,
                     "gather_rows needs a rank-two table [R, D], but the table has shape " +
                         shape_text(shape) + " of rank " + std::to_string(shape.size()));
  error.rank_ = shape.size();
  error.shape_ = std::move(shape);
  return error;
}

ModelOpError ModelOpError::gather_index_count_mismatch(std::size_t expected, std::size_t actual) {
  ModelOpError error(ModelOpErrorKind::GatherIndexCountMismatch,
                     "gather_rows index shape has " + std::to_string(expected) +
                         " positions, but " + std::to_string(actual) + " ids were given");
  error.expected_ = expected;
  error.actual_ = actual;
  return error;
}

ModelOpError ModelOpError::gather_index_out_of_bounds(std::size_t position, std::size_t index,
                                                      std::size_t rows) {
  ModelOpError error(ModelOpErrorKind::GatherIndexOutOfBounds,
                     "gather_rows id " + std::to_string(index) + " at flat position " +
                         std::to_string(position) + " is out of bounds for a table with " +
                         std::to_string(rows) + " rows");
  error.position_ = position;
  error.index_ = index;
  error.rows_ = rows;
  return error;
}

ModelOpError ModelOpError::log_non_positive_input(Shape shape, std::vector<std::size_t> coordinate,
                                                  double value) {
  ModelOpError error(ModelOpErrorKind::LogNonPositiveInput,
                     "log needs positive inputs, but the value at coordinate " +
                         format_list(std::span<const std::size_t>(coordinate)) + " of shape " +
                         shape_text(shape) + " is " + format_shortest(value));
  error.shape_ = std::move(shape);
  error.coordinate_ = std::move(coordinate);
  error.value_ = value;
  return error;
}

}  // namespace llm
