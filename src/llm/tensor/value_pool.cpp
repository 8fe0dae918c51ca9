// The per-thread cache of value buffers: size classes a quarter of a power of
// two apart, each a LIFO list of cached buffers, in fixed arrays (taking and
// giving never allocate).
#include "llm/tensor/value_pool.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>

namespace llm::value_pool {
namespace {

// Class of a capacity c >= kSmallestPooled: with e = floor(log2 c) and the
// quantum q = 2^(e-2), c lies in [4q, 8q); classes are 4q, 5q, 6q, 7q.
constexpr std::size_t kClassesPerOctave = 4;
constexpr std::size_t kOctaves = 64;
constexpr std::size_t kClasses = kClassesPerOctave * kOctaves;
constexpr std::uint16_t kNone = 0xFFFF;
static_assert(kMaximumBuffers < kNone);
static_assert(std::bit_width(kSmallestPooled) > 3);

// The largest class whose size is at most `capacity` (a buffer of that
// capacity can serve any count of the class).
std::size_t class_at_most(std::size_t capacity) noexcept {
  const std::size_t octave = static_cast<std::size_t>(std::bit_width(capacity)) - 1;
  const std::size_t quantum = std::size_t{1} << (octave - 2);
  return octave * kClassesPerOctave + (capacity / quantum - 4);
}

std::size_t class_size(std::size_t size_class) noexcept {
  const std::size_t octave = size_class / kClassesPerOctave;
  return (std::size_t{4} + size_class % kClassesPerOctave) << (octave - 2);
}

// The smallest class whose size is at least `count`.
std::size_t class_at_least(std::size_t count) noexcept {
  const std::size_t below = class_at_most(count);
  return class_size(below) == count ? below : below + 1;
}

struct Cache {
  std::array<std::vector<double>, kMaximumBuffers> slots;  // empty vectors own nothing
  std::array<std::uint16_t, kMaximumBuffers> next;         // list links, per class or free
  std::array<std::uint16_t, kClasses> head;                // first cached slot of each class
  std::uint16_t free_head = 0;                             // first unused slot
  std::size_t bytes = 0;

  Cache() noexcept {
    head.fill(kNone);
    for (std::size_t slot = 0; slot < kMaximumBuffers; ++slot) {
      next[slot] = static_cast<std::uint16_t>(slot + 1 < kMaximumBuffers ? slot + 1 : kNone);
    }
  }
};

// The cache is reached through a plain pointer, so a Tensor destroyed after
// this thread's cache (a static Tensor at exit) finds it gone instead of
// touching a destroyed object.
thread_local Cache* cache = nullptr;
thread_local bool cache_finished = false;

// The cache itself is on the heap (about 100 KiB: too much to add to every
// thread's static TLS); without memory for it, this thread caches nothing.
struct CacheOwner {
  std::unique_ptr<Cache> storage;
  CacheOwner() noexcept : storage(new (std::nothrow) Cache) { cache = storage.get(); }
  ~CacheOwner() {
    cache = nullptr;
    cache_finished = true;
  }
};

Cache* this_thread_cache() noexcept {
  if (cache == nullptr && !cache_finished) {
    thread_local CacheOwner owner;  // constructed once per thread, noexcept
  }
  return cache;
}

std::size_t bytes_of(const std::vector<double>& values) noexcept {
  return values.capacity() * sizeof(double);
}

// A cached buffer of `count`'s class (capacity at least count), moved out of
// the cache with its size unchanged; empty if none.
std::vector<double> take_cached(std::size_t count) noexcept {
  if (!kEnabled || count < kSmallestPooled) return {};
  Cache* pool = this_thread_cache();
  if (pool == nullptr) return {};
  const std::size_t size_class = class_at_least(count);
  if (size_class >= kClasses) return {};
  const std::uint16_t slot = pool->head[size_class];
  if (slot == kNone) return {};
  pool->head[size_class] = pool->next[slot];
  pool->next[slot] = pool->free_head;
  pool->free_head = slot;
  std::vector<double> values = std::move(pool->slots[slot]);
  pool->slots[slot] = std::vector<double>();
  pool->bytes -= bytes_of(values);
  return values;
}

}  // namespace

std::size_t pooled_capacity(std::size_t count) noexcept {
  if (!kEnabled || count < kSmallestPooled) return count;
  const std::size_t size_class = class_at_least(count);
  return size_class < kClasses ? class_size(size_class) : count;
}

std::vector<double> take(std::size_t count) {
  std::vector<double> values = take_cached(count);
  if (values.capacity() == 0) values.reserve(pooled_capacity(count));
  values.assign(count, 0.0);  // within capacity: no allocation
  return values;
}

std::vector<double> take_for_overwrite(std::size_t count) noexcept {
  std::vector<double> values = take_cached(count);
  // Shrinking writes nothing; growing (within the class's capacity) zeroes
  // only the elements the buffer's last user did not have.
  if (values.capacity() != 0) values.resize(count);
  return values;
}

void give(std::vector<double>&& values) noexcept {
  if (!kEnabled || values.capacity() < kSmallestPooled) return;
  Cache* pool = this_thread_cache();
  if (pool == nullptr || pool->free_head == kNone ||
      pool->bytes + bytes_of(values) > kMaximumBytes) {
    return;
  }
  const std::size_t size_class = class_at_most(values.capacity());
  if (size_class >= kClasses) return;
  const std::uint16_t slot = pool->free_head;
  pool->free_head = pool->next[slot];
  pool->next[slot] = pool->head[size_class];
  pool->head[size_class] = slot;
  pool->bytes += bytes_of(values);
  pool->slots[slot] = std::move(values);  // a move between vectors: no allocation
}

std::size_t cached_bytes() noexcept {
  const Cache* pool = this_thread_cache();
  return pool == nullptr ? 0 : pool->bytes;
}

}  // namespace llm::value_pool
