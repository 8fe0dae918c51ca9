// Owned row-major tensors, borrowed strided views, and the checked
// allocation that turns an impossible size into a typed error.
#include "llm/tensor/tensor.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <new>
#include <stdexcept>
#include <utility>

#include "llm/tensor/kernel_output.hpp"
#include "llm/tensor/parallel.hpp"
#include "llm/tensor/strided_walk.hpp"
#include "llm/tensor/value_pool.hpp"

namespace llm {

// region: checked-allocation
std::vector<double> allocate_values(const Shape& shape, std::size_t count) {
  // A count can fit in size_t and still be far more than memory holds:
  // [2^30, 2^30] needs 8 EiB. Report it as a tensor error naming the shape.
  if (count > std::vector<double>().max_size()) {
    throw TensorError(TensorErrorKind::AllocationFailed, {.shape = shape, .expected = count});
  }
  try {
    return value_pool::take(count);
  } catch (const std::bad_alloc&) {
    throw TensorError(TensorErrorKind::AllocationFailed, {.shape = shape, .expected = count});
  } catch (const std::length_error&) {
    throw TensorError(TensorErrorKind::AllocationFailed, {.shape = shape, .expected = count});
  }
}
// endregion: checked-allocation

Tensor::Tensor() : values_(1, 0.0) {}

Tensor::~Tensor() {
  value_pool::give(std::move(values_));
}

// region: tensor-construction
Tensor::Tensor(Shape shape, std::vector<double> values)
    : shape_(std::move(shape)), values_(std::move(values)) {
  const std::size_t expected = element_count(shape_);
  if (values_.size() != expected) {
    throw TensorError(TensorErrorKind::ValueCountMismatch,
                      {.shape = shape_, .expected = expected, .actual = values_.size()});
  }
}
// endregion: tensor-construction

Tensor Tensor::zeros(Shape shape) {
  const std::size_t count = element_count(shape);
  std::vector<double> values = allocate_values(shape, count);
  return Tensor(std::move(shape), std::move(values));
}

Tensor Tensor::filled(Shape shape, double value) {
  Tensor result = zeros(std::move(shape));
  std::fill(result.values_.begin(), result.values_.end(), value);
  return result;
}

Tensor Tensor::scalar(double value) {
  return Tensor({}, {value});
}

// region: tensor-element-access
double Tensor::at(std::span<const std::size_t> coordinate) const {
  return values_[offset_from_coordinate(shape_, coordinate)];
}

void Tensor::set(std::span<const std::size_t> coordinate, double value) {
  values_[offset_from_coordinate(shape_, coordinate)] = value;
}
// endregion: tensor-element-access

TensorView Tensor::view() const noexcept {
  // The row-major layout of a valid shape over exactly its values: nothing to check.
  return TensorView(values_, Layout(shape_));
}

Tensor::operator TensorView() const noexcept {
  return view();
}

MutableTensorView Tensor::mutable_view() noexcept {
  return MutableTensorView(values_, Layout(shape_));
}

namespace {

// region: view-bounds-check
// Throws ViewOutOfBounds unless every offset `layout` reaches is below `storage_size`.
void require_inside(const Layout& layout, std::size_t storage_size) {
  if (layout.size() == 0) return;
  const std::size_t end = layout.end_offset();
  if (end > storage_size) {
    throw TensorError(TensorErrorKind::ViewOutOfBounds, {.shape = layout.shape(),
                                                         .strides = layout.strides(),
                                                         .index = end - 1,
                                                         .expected = storage_size});
  }
}
// endregion: view-bounds-check

// The row-major layout of `shape` over exactly `storage_size` values.
Layout counted_layout(Shape shape, std::size_t storage_size) {
  Layout layout(std::move(shape));
  if (layout.size() != storage_size) {
    throw TensorError(TensorErrorKind::ValueCountMismatch,
                      {.shape = layout.shape(), .expected = layout.size(), .actual = storage_size});
  }
  return layout;
}

}  // namespace

// region: tensor-view-construction
TensorView::TensorView(std::span<const double> values, Shape shape)
    : storage_(values), layout_(counted_layout(std::move(shape), values.size())) {}

TensorView::TensorView(std::span<const double> storage, Layout layout)
    : storage_(storage), layout_(std::move(layout)) {
  require_inside(layout_, storage_.size());
}
// endregion: tensor-view-construction

std::span<const double> TensorView::contiguous_values() const {
  if (!is_contiguous())
    throw TensorError(TensorErrorKind::NonContiguousView, {.shape = shape(), .strides = strides()});
  if (size() == 0) return {};
  return storage_.subspan(offset(), size());
}

double TensorView::at(std::span<const std::size_t> coordinate) const {
  return storage_[layout_.offset_of(coordinate)];
}

std::size_t TensorView::offset_of(std::span<const std::size_t> coordinate) const {
  return layout_.offset_of(coordinate);
}

// region: view-transforms
// A transformed layout reaches a subset of the offsets the original reached,
// so the O(rank) bounds check the constructor repeats here cannot fail for a
// correct transform; it only catches a transform that computed a wrong layout.
TensorView TensorView::transpose(std::size_t axis_a, std::size_t axis_b) const {
  return TensorView(storage_, layout_.transpose(axis_a, axis_b));
}
TensorView TensorView::matrix_transpose() const {
  return TensorView(storage_, layout_.matrix_transpose());
}
TensorView TensorView::permute(const Axes& axes) const {
  return TensorView(storage_, layout_.permute(axes));
}
TensorView TensorView::slice(std::size_t axis, std::size_t start, std::size_t end) const {
  return TensorView(storage_, layout_.slice(axis, start, end));
}
TensorView TensorView::reshape(const Shape& shape) const {
  return TensorView(storage_, layout_.reshape(shape));
}
TensorView TensorView::broadcast_to(const Shape& shape) const {
  return TensorView(storage_, layout_.broadcast_to(shape));
}
// endregion: view-transforms

// region: materialize
Tensor TensorView::materialize() const {
  Tensor result = kernel_output(shape());
  double* out = result.mutable_values().data();
  const double* in = storage_.data();
  const Strides dense = row_major_strides(shape());
  // Copies the elements whose first coordinate lies in [first, end): a slab
  // of the view, walked like the whole.
  const auto copy_slab = [&](std::size_t first, std::size_t end) {
    Shape slab = shape();
    slab[0] = end - first;
    for_each_run<2>(
        slab, {dense, strides()}, {first * dense[0], offset() + first * strides()[0]},
        [&](std::array<std::size_t, 2> at, std::array<std::size_t, 2> step, std::size_t count) {
          for (std::size_t i = 0; i < count; ++i) {
            out[at[0] + i * step[0]] = in[at[1] + i * step[1]];
          }
        });
  };
  if (rank() == 0) {
    out[0] = in[offset()];
  } else {  // a large copy is split into slabs for several threads (chapter 11)
    parallel_rows(shape()[0], dense[0], copy_slab);
  }
  return result;
}
// endregion: materialize

MutableTensorView::MutableTensorView(std::span<double> values, Shape shape)
    : storage_(values), layout_(counted_layout(std::move(shape), values.size())) {}

MutableTensorView::MutableTensorView(std::span<double> storage, Layout layout)
    : storage_(storage), layout_(std::move(layout)) {
  require_inside(layout_, storage_.size());
}

TensorView MutableTensorView::view() const noexcept {
  return TensorView(storage_, layout_);
}

double MutableTensorView::at(std::span<const std::size_t> coordinate) const {
  return storage_[layout_.offset_of(coordinate)];
}

void MutableTensorView::set(std::span<const std::size_t> coordinate, double value) {
  storage_[layout_.offset_of(coordinate)] = value;
}

void MutableTensorView::fill(double value) noexcept {
  double* out = storage_.data();
  for_each_run<1>(
      shape(), {strides()}, {offset()},
      [&](std::array<std::size_t, 1> at, std::array<std::size_t, 1> step, std::size_t count) {
        for (std::size_t i = 0; i < count; ++i) out[at[0] + i * step[0]] = value;
      });
}

// region: copy-into-view
void MutableTensorView::copy_from(const TensorView& source) {
  if (source.shape() != shape())
    throw TensorError(TensorErrorKind::ShapeMismatch,
                      {.shape = shape(), .other_shape = source.shape()});
  // Storage ranges that overlap are read completely before anything is written.
  const std::less<const double*> before;
  const double* source_first = source.storage().data();
  const double* source_end = source_first + source.storage().size();
  const bool overlaps = before(source_first, storage_.data() + storage_.size()) &&
                        before(storage_.data(), source_end);
  const Tensor copy = overlaps ? source.materialize() : Tensor();
  const TensorView from = overlaps ? copy.view() : source;
  double* out = storage_.data();
  const double* in = from.storage().data();
  for_each_run<2>(
      shape(), {strides(), from.strides()}, {offset(), from.offset()},
      [&](std::array<std::size_t, 2> at, std::array<std::size_t, 2> step, std::size_t count) {
        for (std::size_t i = 0; i < count; ++i) {
          out[at[0] + i * step[0]] = in[at[1] + i * step[1]];
        }
      });
}
// endregion: copy-into-view

MutableTensorView MutableTensorView::transpose(std::size_t axis_a, std::size_t axis_b) const {
  return MutableTensorView(storage_, layout_.transpose(axis_a, axis_b));
}
MutableTensorView MutableTensorView::permute(const Axes& axes) const {
  return MutableTensorView(storage_, layout_.permute(axes));
}
MutableTensorView MutableTensorView::slice(std::size_t axis, std::size_t start,
                                           std::size_t end) const {
  return MutableTensorView(storage_, layout_.slice(axis, start, end));
}
MutableTensorView MutableTensorView::reshape(const Shape& shape) const {
  return MutableTensorView(storage_, layout_.reshape(shape));
}

}  // namespace llm
