// Word and scalar splitting, the historical contrast of chapter 1.
#include "historical.hpp"

#include "llm/text/text_units.hpp"

namespace ch01 {

// region: historical-splitting
std::vector<std::string> split_words(std::string_view text) {
  constexpr std::string_view kWhiteSpace = " \t\n\r\v\f";
  std::vector<std::string> words;
  std::size_t start = text.find_first_not_of(kWhiteSpace);
  while (start != std::string_view::npos) {
    const std::size_t end = text.find_first_of(kWhiteSpace, start);
    words.emplace_back(text.substr(start, end - start));  // npos - start: to the end
    start = text.find_first_not_of(kWhiteSpace, end);
  }
  return words;
}

std::vector<std::string> split_scalars(std::string_view text) {
  std::vector<std::string> units;
  for (char32_t scalar : llm::unicode_scalars(text)) units.push_back(llm::scalar_utf8(scalar));
  return units;
}
// endregion: historical-splitting

}  // namespace ch01
