// Whether this test binary runs under AddressSanitizer (make test SANITIZE=1,
// or the *_asan_test builds), for the few tests whose subject ASan changes.
#pragma once

#if defined(__SANITIZE_ADDRESS__)  // GCC
#define LLM_TEST_UNDER_ASAN 1
#elif defined(__has_feature)  // clang
#if __has_feature(address_sanitizer)
#define LLM_TEST_UNDER_ASAN 1
#endif
#endif

namespace llm::testing {

/// True when AddressSanitizer instruments this build.
#if defined(LLM_TEST_UNDER_ASAN)
inline constexpr bool kUnderAddressSanitizer = true;
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif

}  // namespace llm::testing
