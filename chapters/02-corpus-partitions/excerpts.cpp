// Overlapping excerpts and the words they share (chapter 2's contrast).
#include "excerpts.hpp"

#include <algorithm>

namespace ch02 {

// region: overlapping-excerpts
std::vector<std::vector<std::string>> overlapping_word_windows(std::string_view text,
                                                               std::size_t width) {
  std::vector<std::string> words;
  constexpr std::string_view kWhiteSpace = " \t\n\r\v\f";
  for (std::size_t start = text.find_first_not_of(kWhiteSpace); start != std::string_view::npos;) {
    const std::size_t end = text.find_first_of(kWhiteSpace, start);
    words.emplace_back(text.substr(start, end - start));
    start = text.find_first_not_of(kWhiteSpace, end);
  }
  std::vector<std::vector<std::string>> windows;
  for (std::size_t start = 0; width > 0 && start + width <= words.size(); ++start) {
    windows.emplace_back(words.begin() + static_cast<std::ptrdiff_t>(start),
                         words.begin() + static_cast<std::ptrdiff_t>(start + width));
  }
  return windows;
}

std::vector<std::string> shared_words(const std::vector<std::string>& left,
                                      const std::vector<std::string>& right) {
  std::vector<std::string> shared;
  for (const std::string& word : left) {
    if (std::find(right.begin(), right.end(), word) != right.end()) shared.push_back(word);
  }
  return shared;
}
// endregion: overlapping-excerpts

}  // namespace ch02
