// A per-thread cache of value buffers (internal to the tensor area).
//
// A training step frees and allocates the same blocks every step. With
// glibc's default settings the memory a step frees at its end goes back to
// the kernel (the heap top is trimmed, large blocks are unmapped) and comes
// back as fresh pages on the next step, so a step can spend a quarter of its
// time in page faults. Tensor and SharedTensor storage hand their buffers of
// 4 KiB and more to this cache when they die, and allocate_values() takes one
// of the right size class from it before asking malloc. Size classes are a
// quarter of a power of two apart (a fresh buffer's capacity is its count
// rounded up to its class, at most 25 % more), so taking and giving cost a
// few instructions whatever the cache holds. Each thread keeps at most
// kMaximumBuffers buffers and kMaximumBytes bytes; nothing is shared between
// threads, so nothing is locked. Builds with AddressSanitizer cache nothing,
// so a read of freed storage is still reported. See docs/data-model.md (storage).
#pragma once

#include <cstddef>
#include <vector>

// Under AddressSanitizer nothing is cached: a freed buffer must stay freed,
// so that a read through a dangling view is reported instead of landing in a
// recycled block.
#if defined(__SANITIZE_ADDRESS__)
#define LLM_VALUE_POOL_ENABLED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LLM_VALUE_POOL_ENABLED 0
#endif
#endif
#ifndef LLM_VALUE_POOL_ENABLED
#define LLM_VALUE_POOL_ENABLED 1
#endif

/// The per-thread cache of large value buffers (internal to the tensor area).
namespace llm::value_pool {

/// Whether this build caches buffers at all: false under AddressSanitizer
/// (see above), where take() always allocates and give() always frees.
inline constexpr bool kEnabled = LLM_VALUE_POOL_ENABLED != 0;

/// Buffers smaller than this many doubles are left to malloc (4 KiB).
inline constexpr std::size_t kSmallestPooled = 512;

/// The most buffers one thread's cache holds: more than chapter 40's
/// training step frees, so a step reuses every buffer of the last one.
inline constexpr std::size_t kMaximumBuffers = 4096;
/// The most bytes one thread's cache holds (1 GiB): more than chapter 40's
/// training step frees at its end.
inline constexpr std::size_t kMaximumBytes = std::size_t{1} << 30;

/// The capacity a fresh pooled buffer of `count` doubles gets: `count`
/// rounded up to its size class (four classes per power of two); `count`
/// itself below kSmallestPooled.
std::size_t pooled_capacity(std::size_t count) noexcept;

/// A buffer of `count` zeros, reusing a cached buffer of its size class when
/// there is one.
/// @throws std::bad_alloc or std::length_error as std::vector would.
std::vector<double> take(std::size_t count);

/// A cached buffer of `count` doubles with stale values, for a kernel that
/// writes every element of its output before anyone reads it; an empty
/// vector when no cached buffer fits (the caller then allocates). Never throws
/// (growing within the capacity writes zeros, never allocates).
std::vector<double> take_for_overwrite(std::size_t count) noexcept;

/// Offers `values` to the cache (kept if it is large enough and the cache has
/// room, freed otherwise). Never throws, never allocates.
void give(std::vector<double>&& values) noexcept;

/// Bytes of the buffers this thread's cache holds now (test hook).
std::size_t cached_bytes() noexcept;

}  // namespace llm::value_pool
