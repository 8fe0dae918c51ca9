// Command-line parsing shared by the book's programs (llm-train, llm-generate).
#pragma once

#include <cerrno>
#include <cstdlib>
#include <optional>

namespace llm::apps {

/// `text` read as a base-10 non-negative integer; nothing when it is empty,
/// carries a sign, has characters after the digits, or does not fit in an
/// unsigned long long. Each program words its own usage error around it.
inline std::optional<unsigned long long> parse_whole_number(const char* text) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || text[0] == '-') return std::nullopt;
  return value;
}

}  // namespace llm::apps
