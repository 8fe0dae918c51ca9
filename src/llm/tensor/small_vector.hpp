// A vector of a few trivially copyable values stored inline: shapes, strides
// and coordinates of small rank cost no heap allocation.
//
// SmallVector<T, N> keeps up to N elements inside the object and moves them to
// the heap only when it grows past N. It offers the part of std::vector's
// interface the library uses (construction from a list, a count or an
// iterator range; size, indexing, iteration, back, push_back, pop_back, erase,
// insert, comparison), and its iterators are plain pointers, so a
// SmallVector<std::size_t, N> converts to std::span<const std::size_t>.
// Taught in chapter 08 (a shape of rank at most six lives inside the tensor).
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <new>
#include <type_traits>

namespace llm {

/// A sequence of trivially copyable `T` with the first `N` elements stored
/// inline. Copying copies the elements; moving a heap-backed vector steals
/// its buffer. Growing past `N` allocates (and may throw std::bad_alloc).
template <class T, std::size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>, "SmallVector holds trivially copyable values");
  static_assert(N > 0, "SmallVector needs an inline capacity");

 public:
  using value_type = T;                    ///< the element type
  using size_type = std::size_t;           ///< counts and indices
  using difference_type = std::ptrdiff_t;  ///< iterator distances
  using reference = T&;                    ///< a writable element
  using const_reference = const T&;        ///< a read-only element
  using pointer = T*;                      ///< a writable element's address
  using const_pointer = const T*;          ///< a read-only element's address
  using iterator = T*;                     ///< contiguous: a plain pointer
  using const_iterator = const T*;         ///< contiguous: a plain pointer

  /// An empty vector (no allocation).
  SmallVector() noexcept = default;
  /// `count` copies of `value`.
  explicit SmallVector(std::size_t count, const T& value = T()) { assign_fill(count, value); }
  /// The listed values: `Shape{2, 3}`.
  SmallVector(std::initializer_list<T> values) { assign_range(values.begin(), values.size()); }
  /// The elements of [first, last).
  template <std::input_iterator Iterator>
  SmallVector(Iterator first, Iterator last) {
    for (; first != last; ++first) push_back(*first);
  }

  /// A copy of `other`'s elements (inline if they fit).
  SmallVector(const SmallVector& other) { assign_range(other.data(), other.size()); }
  /// Takes `other`'s elements (its heap block, if it has one), leaving it empty.
  SmallVector(SmallVector&& other) noexcept { steal(other); }
  /// Replaces the elements by a copy of `other`'s.
  SmallVector& operator=(const SmallVector& other) {
    if (this != &other) {
      size_ = 0;
      assign_range(other.data(), other.size());
    }
    return *this;
  }
  /// Replaces the elements by `other`'s, leaving it empty.
  SmallVector& operator=(SmallVector&& other) noexcept {
    if (this != &other) {
      release();
      steal(other);
    }
    return *this;
  }
  ~SmallVector() { release(); }

  /// Number of elements.
  std::size_t size() const noexcept { return size_; }
  /// Whether there are no elements.
  bool empty() const noexcept { return size_ == 0; }
  /// Elements that fit before the next allocation (N while inline).
  std::size_t capacity() const noexcept { return capacity_; }
  /// Whether the elements live inside the object (no heap buffer).
  bool is_inline() const noexcept { return capacity_ == N; }

  /// The first element (elements are contiguous).
  T* data() noexcept { return is_inline() ? storage_.inline_values : storage_.heap_values; }
  /// The first element (elements are contiguous).
  const T* data() const noexcept {
    return is_inline() ? storage_.inline_values : storage_.heap_values;
  }
  /// The first element; iterators are plain pointers.
  T* begin() noexcept { return data(); }
  /// One past the last element.
  T* end() noexcept { return data() + size_; }
  /// The first element.
  const T* begin() const noexcept { return data(); }
  /// One past the last element.
  const T* end() const noexcept { return data() + size_; }

  /// Element `index`. Precondition: `index < size()`.
  T& operator[](std::size_t index) noexcept {
    assert(index < size_);
    return data()[index];
  }
  /// Element `index`. Precondition: `index < size()`.
  const T& operator[](std::size_t index) const noexcept {
    assert(index < size_);
    return data()[index];
  }
  /// The first element. Precondition: not empty.
  T& front() noexcept { return (*this)[0]; }
  /// The first element. Precondition: not empty.
  const T& front() const noexcept { return (*this)[0]; }
  /// The last element. Precondition: not empty.
  T& back() noexcept { return (*this)[size_ - 1]; }
  /// The last element. Precondition: not empty.
  const T& back() const noexcept { return (*this)[size_ - 1]; }

  /// Appends `value` (allocates when growing past the capacity).
  void push_back(const T& value) {
    const T copy = value;  // `value` may live in this vector's buffer
    if (size_ == capacity_) grow(size_ + 1);
    data()[size_++] = copy;
  }
  /// Removes the last element. Precondition: not empty.
  void pop_back() noexcept {
    assert(size_ > 0);
    --size_;
  }
  /// Removes every element (the capacity stays).
  void clear() noexcept { size_ = 0; }
  /// Shrinks to `count` elements or grows with copies of `value`.
  void resize(std::size_t count, const T& value = T()) {
    if (count > capacity_) grow(count);
    for (std::size_t i = size_; i < count; ++i) data()[i] = value;
    size_ = count;
  }
  /// Removes the element at `position`; returns the position after it.
  T* erase(const T* position) noexcept {
    T* at = begin() + (position - begin());
    std::memmove(static_cast<void*>(at), at + 1, (end() - at - 1) * sizeof(T));
    --size_;
    return at;
  }
  /// Inserts `value` before `position`; returns the position of the new element.
  T* insert(const T* position, const T& value) {
    const std::ptrdiff_t index = position - begin();
    const T copy = value;
    if (size_ == capacity_) grow(size_ + 1);
    T* at = begin() + index;
    std::memmove(static_cast<void*>(at + 1), at, (end() - at) * sizeof(T));
    *at = copy;
    ++size_;
    return at;
  }

  /// Equal sizes and equal elements.
  friend bool operator==(const SmallVector& left, const SmallVector& right) noexcept {
    return std::equal(left.begin(), left.end(), right.begin(), right.end());
  }

 private:
  void assign_fill(std::size_t count, const T& value) {
    if (count > capacity_) grow(count);
    std::fill_n(data(), count, value);
    size_ = count;
  }
  void assign_range(const T* values, std::size_t count) {
    if (count > capacity_) grow(count);
    if (count > 0) std::memcpy(static_cast<void*>(data()), values, count * sizeof(T));
    size_ = count;
  }
  // Moves the elements to a heap buffer of at least `minimum` elements.
  void grow(std::size_t minimum) {
    const std::size_t capacity = std::max(minimum, 2 * capacity_);
    T* buffer = static_cast<T*>(::operator new(capacity * sizeof(T)));
    if (size_ > 0) std::memcpy(static_cast<void*>(buffer), data(), size_ * sizeof(T));
    release();
    storage_.heap_values = buffer;
    capacity_ = capacity;
  }
  void release() noexcept {
    if (!is_inline()) ::operator delete(storage_.heap_values);
    capacity_ = N;
  }
  void steal(SmallVector& other) noexcept {
    if (other.is_inline()) {
      std::memcpy(static_cast<void*>(storage_.inline_values), other.storage_.inline_values,
                  other.size_ * sizeof(T));
    } else {
      storage_.heap_values = other.storage_.heap_values;
      capacity_ = other.capacity_;
      other.capacity_ = N;
    }
    size_ = other.size_;
    other.size_ = 0;
  }

  union Storage {
    T inline_values[N];
    T* heap_values;
  } storage_{};
  std::size_t size_ = 0;
  std::size_t capacity_ = N;
};

}  // namespace llm
