// The type of a token ID, shared by the tokenizer (Part I) and the layers
// that read token IDs (the embedding, the row gather and the loss).
#pragma once

#include <cstdint>

namespace llm {

/// A token ID. Chapter 3's training IDs are bytes 0..255 and merges from 256;
/// chapter 4's tokenizer shifts them by two to make room for BOS and EOS.
/// 32 bits: the tokenizer's vocabulary never needs more, and a batch of IDs
/// takes half the memory of std::size_t.
using TokenId = std::uint32_t;

}  // namespace llm
