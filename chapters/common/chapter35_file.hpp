// The version-1 checkpoint that chapters 35 and 36 read: chapter 33's
// decoder at its selected step 8, with its AdamW state and the sampling
// generator's state, 6,330 bytes. It is the reference edition's own file
// (tests/training/fixtures/reference-ch35-selected-step8.hex, embedded at
// build time). Our run of chapter 33's fixture stores the same layout and
// header with parameter values within 50 ULP of these (56 of 144 differ,
// for a reason in the training loop not yet found; see
// tests/training/decoder_checkpoint_test.cpp), so its bytes and checksum differ; the chapters read
// this file so that every printed byte can be checked against the reference edition.
#pragma once

#include <cstdint>
#include <vector>

namespace demo {

/// The file's 6,330 bytes.
std::vector<std::uint8_t> chapter35_checkpoint_bytes();

}  // namespace demo
