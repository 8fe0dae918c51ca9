// The unsafe way to split a corpus that chapter 2 contrasts with whole
// documents: cut overlapping excerpts first, then assign the excerpts.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ch02 {

/// Every run of `width` consecutive words of `text` (words split at ASCII
/// white space), in order; none when `width` is 0 or exceeds the word count.
/// `("north star glows softly", 3)` gives [north star glows], [star glows softly].
std::vector<std::vector<std::string>> overlapping_word_windows(std::string_view text,
                                                               std::size_t width);

/// The words of `left` that also occur in `right`, in the order of `left`.
std::vector<std::string> shared_words(const std::vector<std::string>& left,
                                      const std::vector<std::string>& right);

}  // namespace ch02
