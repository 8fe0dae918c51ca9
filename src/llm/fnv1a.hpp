// FNV-1a 64 (Fowler, Noll and Vo): the byte hash behind chapter 35's
// checkpoint checksum and chapter 34's test-epoch fingerprint. Each byte is
// XORed into the state, which is then multiplied by the FNV prime modulo
// 2^64. Fast and exactly specified; it detects accidental change (a flipped
// or missing byte), not deliberate tampering.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace llm {

/// A running FNV-1a 64 hash.
class Fnv1a64 {
 public:
  /// Mixes in one byte.
  void add(std::uint8_t byte) noexcept { hash_ = (hash_ ^ byte) * kPrime; }
  /// Mixes in the `width` low bytes of `value`, least significant first.
  void add_little_endian(std::uint64_t value, int width) noexcept {
    for (int i = 0; i < width; ++i) add(static_cast<std::uint8_t>(value >> (8 * i)));
  }
  /// The hash of every byte added so far.
  std::uint64_t value() const noexcept { return hash_; }

 private:
  static constexpr std::uint64_t kOffsetBasis = 0xcbf29ce484222325ULL;
  static constexpr std::uint64_t kPrime = 0x00000100000001b3ULL;
  std::uint64_t hash_ = kOffsetBasis;
};

/// `fnv1a64:` and the hash as sixteen lowercase hexadecimal digits.
inline std::string fnv1a64_text(std::uint64_t hash) {
  char text[32];
  std::snprintf(text, sizeof text, "fnv1a64:%016llx", static_cast<unsigned long long>(hash));
  return text;
}

}  // namespace llm
