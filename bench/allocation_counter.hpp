// Counts heap allocations made through operator new while a counter is
// active, so a benchmark can report allocations per iteration. The replacement
// operator new/delete live in allocation_counter.cpp (this binary only).
#pragma once

#include <cstdint>

namespace bench {

/// Allocations counted so far (only while counting() is true).
std::uint64_t allocations() noexcept;

/// Starts or stops counting; returns the previous state.
bool set_counting(bool on) noexcept;

/// Counts the allocations of one scope.
class CountAllocations {
 public:
  CountAllocations() noexcept : start_(allocations()), previous_(set_counting(true)) {}
  ~CountAllocations() { set_counting(previous_); }
  CountAllocations(const CountAllocations&) = delete;
  CountAllocations& operator=(const CountAllocations&) = delete;
  /// Allocations since this object was made.
  std::uint64_t count() const noexcept { return allocations() - start_; }

 private:
  std::uint64_t start_;
  bool previous_;
};

}  // namespace bench
