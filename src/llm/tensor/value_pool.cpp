// The per-thread cache of large value buffers: 64 slots, 64 MiB at most.
#include "llm/tensor/value_pool.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace llm::value_pool {
namespace {

constexpr std::size_t kSlots = 64;
constexpr std::size_t kMaximumBytes = std::size_t{64} << 20;

struct Cache {
  std::array<std::vector<double>, kSlots> slots;  // empty vectors own nothing
  std::size_t bytes = 0;
};

// The cache is reached through a plain pointer, so a Tensor destroyed after
// this thread's cache (a static Tensor at exit) finds it gone instead of
// touching a destroyed object.
thread_local Cache* cache = nullptr;
thread_local bool cache_finished = false;

struct CacheOwner {
  Cache storage;
  CacheOwner() noexcept { cache = &storage; }
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

// The cached buffer that fits `count` best (capacity in [count, 2 count],
// holding at least `count` values), moved out of the cache; empty if none.
std::vector<double> take_cached(std::size_t count) noexcept {
  if (!kEnabled || count < kSmallestPooled) return {};
  Cache* pool = this_thread_cache();
  if (pool == nullptr) return {};
  std::vector<double>* best = nullptr;
  for (std::vector<double>& slot : pool->slots) {
    const std::size_t capacity = slot.capacity();
    if (slot.size() >= count && capacity <= 2 * count &&
        (best == nullptr || capacity < best->capacity())) {
      best = &slot;
    }
  }
  if (best == nullptr) return {};
  pool->bytes -= bytes_of(*best);
  std::vector<double> values = std::move(*best);
  *best = std::vector<double>();
  return values;
}

}  // namespace

std::vector<double> take(std::size_t count) {
  std::vector<double> values = take_cached(count);
  if (values.empty()) return std::vector<double>(count, 0.0);
  values.assign(count, 0.0);  // within capacity: no allocation
  return values;
}

std::vector<double> take_for_overwrite(std::size_t count) noexcept {
  std::vector<double> values = take_cached(count);
  values.resize(std::min(values.size(), count));  // shrinking: no allocation, no writes
  return values;
}

void give(std::vector<double>&& values) noexcept {
  if (!kEnabled || values.capacity() < kSmallestPooled) return;
  Cache* pool = this_thread_cache();
  if (pool == nullptr || pool->bytes + bytes_of(values) > kMaximumBytes) return;
  for (std::vector<double>& slot : pool->slots) {
    if (slot.capacity() == 0) {
      pool->bytes += bytes_of(values);
      slot = std::move(values);  // a move between vectors: no allocation
      return;
    }
  }
}

std::size_t cached_bytes() noexcept {
  const Cache* pool = this_thread_cache();
  return pool == nullptr ? 0 : pool->bytes;
}

}  // namespace llm::value_pool
