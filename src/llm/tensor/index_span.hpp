// A borrowed list of indices in either width the library meets: std::size_t
// (positions, class numbers) or the tokenizer's 32-bit TokenId. The row gather
// and the loss read token IDs through it, so a batch of TokenIds from the
// tokenizer is passed as it is, without a conversion copy.
#pragma once

#include <concepts>
#include <cstddef>
#include <ranges>
#include <type_traits>

#include "llm/token_id.hpp"

namespace llm {

/// An element type IndexSpan borrows: std::size_t or TokenId.
template <class T>
concept IndexElement = std::same_as<T, std::size_t> || std::same_as<T, TokenId>;

/// A contiguous range of indices IndexSpan can borrow (a std::vector,
/// std::array, std::span or C array of std::size_t or TokenId).
template <class Range>
concept IndexRange =
    std::ranges::contiguous_range<const Range&> && std::ranges::sized_range<const Range&> &&
    IndexElement<std::remove_cv_t<std::ranges::range_value_t<const Range&>>>;

// region: index-span-class
/// A read-only view of indices, borrowed, never copied: element i reads as a
/// std::size_t whatever the width stored. Valid while the range it views
/// lives (pass it as a function argument; do not keep it). Empty by default,
/// so `embedding.forward({}, Shape{0})` reads as an empty list.
class IndexSpan {
 public:
  /// No indices.
  constexpr IndexSpan() noexcept = default;

  /// Views `range`; implicit, so a std::vector<TokenId> or std::vector<std::size_t>
  /// is passed as it is.
  template <IndexRange Range>
  constexpr IndexSpan(const Range& range) noexcept  // NOLINT(google-explicit-constructor)
      : size_(std::ranges::size(range)) {
    if constexpr (std::same_as<std::ranges::range_value_t<const Range&>, TokenId>) {
      narrow_ = std::ranges::data(range);
    } else {
      wide_ = std::ranges::data(range);
    }
  }

  /// The number of indices.
  constexpr std::size_t size() const noexcept { return size_; }
  /// Whether there are none.
  constexpr bool empty() const noexcept { return size_ == 0; }
  /// Index `position` (precondition: position < size()), widened to std::size_t.
  constexpr std::size_t operator[](std::size_t position) const noexcept {
    return wide_ != nullptr ? wide_[position] : static_cast<std::size_t>(narrow_[position]);
  }

 private:
  const std::size_t* wide_ = nullptr;
  const TokenId* narrow_ = nullptr;
  std::size_t size_ = 0;
};
// endregion: index-span-class

}  // namespace llm
