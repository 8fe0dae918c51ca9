// A closed whole-word vocabulary: the historical contrast of chapters 3 and
// 4. Words are split at ASCII white space; the distinct words, sorted by
// their bytes, take IDs 1, 2, ...; every other word is ID 0, which decodes
// only to the marker <UNK>: the spelling of an unseen word is lost.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace demo {

/// The ID of every word a closed table has not seen.
inline constexpr std::uint32_t kUnknownWordId = 0;

// region: whole-word-vocabulary
/// Fits the table: every distinct word of `documents`, in byte order, numbered from 1.
inline std::map<std::string, std::uint32_t> fit_whole_word_vocabulary(
    const std::vector<std::string_view>& documents) {
  constexpr std::string_view kWhiteSpace = " \t\n\r\v\f";
  std::map<std::string, std::uint32_t> vocabulary;  // ordered: IDs follow the sorted words
  for (std::string_view document : documents) {
    for (std::size_t start = document.find_first_not_of(kWhiteSpace);
         start != std::string_view::npos;) {
      const std::size_t end = document.find_first_of(kWhiteSpace, start);
      vocabulary.emplace(document.substr(start, end - start), 0);
      start = document.find_first_not_of(kWhiteSpace, end);
    }
  }
  std::uint32_t next_id = 1;
  for (auto& [word, id] : vocabulary) id = next_id++;
  return vocabulary;
}

/// The word's ID, or kUnknownWordId for a word the table has not seen.
inline std::uint32_t encode_whole_word(const std::map<std::string, std::uint32_t>& vocabulary,
                                       std::string_view word) {
  const auto found = vocabulary.find(std::string(word));
  return found == vocabulary.end() ? kUnknownWordId : found->second;
}

/// The word of `token_id`, or `<UNK>` for ID 0 and every ID the table lacks.
inline std::string decode_whole_word(const std::map<std::string, std::uint32_t>& vocabulary,
                                     std::uint32_t token_id) {
  for (const auto& [word, id] : vocabulary) {
    if (id == token_id) return word;
  }
  return "<UNK>";
}
// endregion: whole-word-vocabulary

}  // namespace demo
