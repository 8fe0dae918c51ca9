// Shared immutable storage with a layout, and the live-storage counters.
#include "llm/tensor/shared_tensor.hpp"

#include <atomic>
#include <utility>

#include "llm/tensor/value_pool.hpp"

namespace llm {
namespace {

std::atomic<std::size_t> live_blocks{0};
std::atomic<std::size_t> live_bytes{0};

}  // namespace

// region: shared-storage
// One immutable block of values. The counters let tests check that a
// released graph frees what it held (docs/data-model.md, graph lifetime).
struct SharedTensor::Storage {
  explicit Storage(std::vector<double> values_in) noexcept : values(std::move(values_in)) {
    live_blocks.fetch_add(1, std::memory_order_relaxed);
    live_bytes.fetch_add(values.size() * sizeof(double), std::memory_order_relaxed);
  }
  ~Storage() {
    live_blocks.fetch_sub(1, std::memory_order_relaxed);
    live_bytes.fetch_sub(values.size() * sizeof(double), std::memory_order_relaxed);
    value_pool::give(std::move(values));  // a large buffer is kept for reuse
  }
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  std::vector<double> values;
};
// endregion: shared-storage

StorageStatistics storage_statistics() noexcept {
  return {live_blocks.load(std::memory_order_relaxed), live_bytes.load(std::memory_order_relaxed)};
}

SharedTensor::SharedTensor() : SharedTensor(Tensor()) {}

SharedTensor::SharedTensor(Tensor&& tensor)
    : storage_(std::make_shared<Storage>(std::move(tensor.values_))),
      layout_(std::move(tensor.shape_)) {
}  // the moved-from tensor may only be assigned or destroyed

SharedTensor::SharedTensor(std::shared_ptr<Storage> storage, Layout layout) noexcept
    : storage_(std::move(storage)), layout_(std::move(layout)) {}

SharedTensor SharedTensor::copy_of(const TensorView& tensor) {
  return SharedTensor(tensor.materialize());
}

double* SharedTensor::storage_data() const noexcept {
  return storage_->values.data();
}

TensorView SharedTensor::view() const& noexcept {
  // The layout was checked against this storage when the handle was made.
  return TensorView(storage_->values, layout_);
}

std::span<const double> SharedTensor::contiguous_values() const& {
  return view().contiguous_values();
}

double SharedTensor::at(std::span<const std::size_t> coordinate) const {
  return storage_->values[layout_.offset_of(coordinate)];
}

Tensor SharedTensor::materialize() const {
  return view().materialize();
}

SharedTensor SharedTensor::transpose(std::size_t axis_a, std::size_t axis_b) const {
  return SharedTensor(storage_, layout_.transpose(axis_a, axis_b));
}
SharedTensor SharedTensor::matrix_transpose() const {
  return SharedTensor(storage_, layout_.matrix_transpose());
}
SharedTensor SharedTensor::permute(const Axes& axes) const {
  return SharedTensor(storage_, layout_.permute(axes));
}
SharedTensor SharedTensor::slice(std::size_t axis, std::size_t start, std::size_t end) const {
  return SharedTensor(storage_, layout_.slice(axis, start, end));
}
SharedTensor SharedTensor::reshape(const Shape& shape) const {
  return SharedTensor(storage_, layout_.reshape(shape));
}
SharedTensor SharedTensor::broadcast_to(const Shape& shape) const {
  return SharedTensor(storage_, layout_.broadcast_to(shape));
}

SharedTensor SharedTensor::contiguous() const {
  if (is_contiguous()) return *this;
  return SharedTensor(materialize());
}

double* SharedTensor::exclusive_storage() noexcept {
  return storage_->values.data();
}

}  // namespace llm
