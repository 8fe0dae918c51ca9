// A tensor that grows along one axis, sharing its committed rows (chapter 37).
#include "llm/tensor/append_buffer.hpp"

#include <algorithm>
#include <utility>

namespace llm {

std::string AppendBufferErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "expected") return shape_text(evidence.expected);
  if (field == "actual") return shape_text(evidence.actual);
  if (field == "axis") return std::to_string(evidence.axis);
  if (field == "rank") return std::to_string(evidence.rank);
  if (field == "length") return std::to_string(evidence.length);
  if (field == "capacity") return std::to_string(evidence.capacity);
  if (field == "rows") return std::to_string(evidence.rows);
  error_detail::unknown_field(area, field);
}

AppendBuffer AppendBuffer::create(Shape shape, std::size_t axis) {
  if (axis >= shape.size()) {
    throw AppendBufferError(AppendBufferErrorKind::InvalidAxis,
                            {.axis = axis, .rank = shape.size()});
  }
  return AppendBuffer(SharedTensor(Tensor::zeros(shape)), axis);
}

// region: append-buffer-append
void AppendBuffer::append(const TensorView& rows) {
  const Shape& shape = storage_.shape();
  Shape expected = shape;
  expected[axis_] = rows.rank() == shape.size() ? rows.shape()[axis_] : 0;
  if (rows.shape() != expected) {
    throw AppendBufferError(AppendBufferErrorKind::RowShapeMismatch,
                            {.expected = expected, .actual = rows.shape(), .axis = axis_});
  }
  const std::size_t count = rows.shape()[axis_];
  if (count > capacity() - length_) {
    throw AppendBufferError(AppendBufferErrorKind::CapacityExceeded,
                            {.length = length_, .capacity = capacity(), .rows = count});
  }
  const Tensor contiguous = rows.materialize();  // row-major, whatever the rows' strides
  // After reset(), a prefix handle that is still alive may read the rows we
  // would overwrite: then the appends go to fresh storage instead.
  if (length_ == 0 && !storage_.is_sole_owner()) storage_ = SharedTensor(Tensor::zeros(shape));

  // Row-major: `outer` blocks before the axis, each holding capacity rows of
  // `inner` values; the new rows of each block go right after its committed ones.
  std::size_t outer = 1, inner = 1;
  for (std::size_t a = 0; a < axis_; ++a) outer *= shape[a];
  for (std::size_t a = axis_ + 1; a < shape.size(); ++a) inner *= shape[a];
  double* storage = storage_.storage_data();
  const double* source = contiguous.values().data();
  for (std::size_t block = 0; block < outer; ++block) {
    std::copy_n(source + block * count * inner, count * inner,
                storage + (block * capacity() + length_) * inner);
  }
  length_ += count;
}
// endregion: append-buffer-append

SharedTensor AppendBuffer::prefix() const {
  return storage_.slice(axis_, 0, length_);
}

}  // namespace llm
