// The reference edition's own chapter-35 checkpoint file (version 1, 6330
// bytes: chapter 33's decoder at its selected step 8), embedded from
// tests/training/fixtures/reference-ch35-selected-step8.hex at build time.
#pragma once

#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace checkpoint_fixture {
std::string_view reference_ch35_hex();  // generated from tests/training/fixtures/
}

namespace llm::testing {

/// The file's bytes: the fixture's hexadecimal pairs, whitespace ignored.
inline std::vector<std::uint8_t> reference_ch35_bytes() {
  std::string digits;
  for (char c : checkpoint_fixture::reference_ch35_hex()) {
    if (!std::isspace(static_cast<unsigned char>(c))) digits += c;
  }
  std::vector<std::uint8_t> bytes;
  for (std::size_t i = 0; i + 1 < digits.size(); i += 2) {
    bytes.push_back(static_cast<std::uint8_t>(std::stoul(digits.substr(i, 2), nullptr, 16)));
  }
  return bytes;
}

}  // namespace llm::testing
