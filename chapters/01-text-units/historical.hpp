// The two older ways of cutting text that chapter 1 compares: whole words
// split at white space, and one unit per Unicode scalar value.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ch01 {

/// The words of `text`: maximal runs of characters other than the ASCII
/// white space characters (space, tab, newline, carriage return, vertical
/// tab, form feed). `"red  fox"` gives ["red", "fox"].
std::vector<std::string> split_words(std::string_view text);

/// One string per Unicode scalar value of `text`, each its UTF-8 bytes.
/// `"кот"` gives ["к", "о", "т"].
/// @throws llm::TextUnitError InvalidUtf8 when `text` is not UTF-8.
std::vector<std::string> split_scalars(std::string_view text);

}  // namespace ch01
