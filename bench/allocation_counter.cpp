// Replacement global operator new/delete that count allocations while asked.
#include "allocation_counter.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace bench {
namespace {

std::atomic<std::uint64_t> counted{0};
std::atomic<bool> counting_on{false};

void* allocate(std::size_t size) {
  if (counting_on.load(std::memory_order_relaxed)) counted.fetch_add(1, std::memory_order_relaxed);
  if (void* memory = std::malloc(size == 0 ? 1 : size)) return memory;
  throw std::bad_alloc();
}

void* allocate_aligned(std::size_t size, std::align_val_t alignment) {
  if (counting_on.load(std::memory_order_relaxed)) counted.fetch_add(1, std::memory_order_relaxed);
  const std::size_t align = static_cast<std::size_t>(alignment);
  const std::size_t rounded = (size + align - 1) / align * align;
  if (void* memory = std::aligned_alloc(align, rounded == 0 ? align : rounded)) return memory;
  throw std::bad_alloc();
}

}  // namespace

std::uint64_t allocations() noexcept {
  return counted.load(std::memory_order_relaxed);
}

bool set_counting(bool on) noexcept {
  return counting_on.exchange(on, std::memory_order_relaxed);
}

}  // namespace bench

void* operator new(std::size_t size) {
  return bench::allocate(size);
}
void* operator new[](std::size_t size) {
  return bench::allocate(size);
}
void* operator new(std::size_t size, std::align_val_t alignment) {
  return bench::allocate_aligned(size, alignment);
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return bench::allocate_aligned(size, alignment);
}
void operator delete(void* memory) noexcept {
  std::free(memory);
}
void operator delete[](void* memory) noexcept {
  std::free(memory);
}
void operator delete(void* memory, std::size_t) noexcept {
  std::free(memory);
}
void operator delete[](void* memory, std::size_t) noexcept {
  std::free(memory);
}
void operator delete(void* memory, std::align_val_t) noexcept {
  std::free(memory);
}
void operator delete[](void* memory, std::align_val_t) noexcept {
  std::free(memory);
}
void operator delete(void* memory, std::size_t, std::align_val_t) noexcept {
  std::free(memory);
}
void operator delete[](void* memory, std::size_t, std::align_val_t) noexcept {
  std::free(memory);
}
