// A per-thread cache of large value buffers (internal to the tensor area).
//
// A training step frees and allocates the same large blocks every step. With
// glibc's default settings each freed megabyte goes back to the kernel and
// each new one comes back as fresh pages, so a step can spend more time in
// page faults than in arithmetic. Tensor and SharedTensor storage hand their
// buffers of 64 KiB and more to this cache when they die, and
// allocate_values() takes one of the right size from it before asking malloc.
// Each thread keeps at most 64 buffers and 64 MiB; nothing is shared between
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

/// Buffers smaller than this many doubles are left to malloc (64 KiB).
inline constexpr std::size_t kSmallestPooled = 8192;

/// A buffer of `count` zeros, reusing a cached buffer when one fits
/// (capacity between count and 2 * count).
/// @throws std::bad_alloc or std::length_error as std::vector would.
std::vector<double> take(std::size_t count);

/// A cached buffer of `count` doubles with stale values, for a kernel that
/// writes every element of its output before anyone reads it; an empty
/// vector when no cached buffer fits (the caller then allocates). Never throws.
std::vector<double> take_for_overwrite(std::size_t count) noexcept;

/// Offers `values` to the cache (kept if it is large enough and the cache has
/// room, freed otherwise). Never throws, never allocates.
void give(std::vector<double>&& values) noexcept;

/// Bytes of the buffers this thread's cache holds now (test hook).
std::size_t cached_bytes() noexcept;

}  // namespace llm::value_pool
