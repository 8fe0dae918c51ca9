// Shifted input/target pairs inside one document (chapter 5).
#include "llm/text/causal_windows.hpp"

#include <cassert>
#include <limits>

namespace llm {

std::string CausalWindowErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "context_length") return std::to_string(evidence.context_length);
  if (field == "stride") return std::to_string(evidence.stride);
  error_detail::unknown_field(area, field);
}

CausalWindowConfig CausalWindowConfig::create(std::size_t context_length, std::size_t stride) {
  if (context_length == 0)
    throw CausalWindowError(CausalWindowErrorKind::ZeroContextLength, {.stride = stride});
  if (stride == 0)
    throw CausalWindowError(CausalWindowErrorKind::ZeroStride, {.context_length = context_length});
  if (context_length == std::numeric_limits<std::size_t>::max()) {
    throw CausalWindowError(CausalWindowErrorKind::ContextLengthOverflow,
                            {.context_length = context_length, .stride = stride});
  }
  return CausalWindowConfig(context_length, stride);
}

// region: causal-window-count
std::size_t CausalWindowConfig::window_count(std::size_t document_length) const noexcept {
  const std::size_t required = required_source_tokens();
  if (document_length < required) return 0;
  return (document_length - required) / stride_ +
         1;  // starts 0, S, ..., the last with T + 1 tokens
}
// endregion: causal-window-count

// region: causal-window-slices
CausalWindow CausalWindowConfig::window(std::span<const TokenId> tokens, std::size_t k) const {
  assert(k < window_count(tokens.size()));
  const std::size_t start = k * stride_;
  return {start, tokens.subspan(start, context_length_),
          tokens.subspan(start + 1, context_length_)};
}

std::vector<CausalWindow> CausalWindowConfig::windows(std::span<const TokenId> tokens) const {
  std::vector<CausalWindow> pairs;
  const std::size_t count = window_count(tokens.size());
  pairs.reserve(count);
  for (std::size_t k = 0; k < count; ++k) pairs.push_back(window(tokens, k));
  return pairs;
}
// endregion: causal-window-slices

// region: causal-window-tail
std::optional<IncompleteTail> CausalWindowConfig::incomplete_tail(
    std::span<const TokenId> tokens) const {
  const std::size_t count = window_count(tokens.size());
  std::size_t start = 0;
  if (count > 0) {
    const std::size_t last_start = (count - 1) * stride_;  // <= length - (T + 1): no overflow
    if (stride_ >= tokens.size() - last_start) return std::nullopt;  // next start is past the end
    start = last_start + stride_;
  }
  if (start >= tokens.size()) return std::nullopt;  // an empty document leaves no suffix
  return IncompleteTail{start, tokens.subspan(start)};
}
// endregion: causal-window-tail

}  // namespace llm
