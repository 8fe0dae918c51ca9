#include "chapter35_file.hpp"

#include <cctype>
#include <stdexcept>
#include <string_view>

namespace checkpoint_fixture {
std::string_view reference_ch35_hex();  // generated from tests/training/fixtures/
}

namespace demo {

std::vector<std::uint8_t> chapter35_checkpoint_bytes() {
  std::vector<std::uint8_t> bytes;
  int high = -1;
  for (char c : checkpoint_fixture::reference_ch35_hex()) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    if (!std::isxdigit(static_cast<unsigned char>(c))) {
      throw std::runtime_error("chapter 35's checkpoint fixture holds a non-hexadecimal character");
    }
    const int digit = std::isdigit(static_cast<unsigned char>(c))
                          ? c - '0'
                          : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10;
    if (high < 0) {
      high = digit;
    } else {
      bytes.push_back(static_cast<std::uint8_t>(high * 16 + digit));
      high = -1;
    }
  }
  if (high >= 0) throw std::runtime_error("chapter 35's checkpoint fixture has an odd digit count");
  return bytes;
}

}  // namespace demo
