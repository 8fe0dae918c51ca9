// Next-token training pairs cut from one encoded document. Taught in chapter 5.
//
// With context length T and stride S, the candidate starts of a document z
// are s = 0, S, 2S, ...; a start makes a pair when T + 1 tokens remain:
//     input  x = z[s, s + T)      target y = z[s + 1, s + T + 1)
// so target i is the token that follows input i. The last target of a
// document can be EOS; BOS is only ever an input. No padding is invented:
// the suffix at the first start without T + 1 tokens makes no pair (its
// tokens can already be inside earlier pairs).
//
// A window function sees one document's tokens and nothing else, so a pair
// can never join two documents. EncodedCorpusPartitions (encoded_corpus.hpp)
// keeps each document separate and inside its partition.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "llm/error.hpp"
#include "llm/text/bpe_trainer.hpp"

namespace llm {

// region: causal-window-errors
/// What a window configuration rejected.
enum class CausalWindowErrorKind {
  ZeroContextLength,      ///< T = 0: an empty input predicts nothing
  ZeroStride,             ///< S = 0: the same start would repeat forever
  ContextLengthOverflow,  ///< T + 1 does not fit in size_t
};

/// The requested configuration a CausalWindowError rejected.
struct CausalWindowErrorEvidence {
  std::size_t context_length = 0;  ///< the requested context length T
  std::size_t stride = 0;          ///< the requested stride S
};

/// The `causal-windows` area: each kind's stable name and message, in enum order.
struct CausalWindowErrorTraits {
  using Kind = CausalWindowErrorKind;                         ///< the area's kinds
  using Evidence = CausalWindowErrorEvidence;                 ///< the requested configuration
  static constexpr std::string_view area = "causal-windows";  ///< Error::area()
  /// Each kind's stable name and message, in enum order.
  static constexpr std::array<ErrorKindSpec<Kind>, 3> kinds{{
      {Kind::ZeroContextLength, "zero-context-length",
       "context length must be positive, got 0 (stride {stride})"},
      {Kind::ZeroStride, "zero-stride",
       "stride must be positive, got 0 (context length {context_length})"},
      {Kind::ContextLengthOverflow, "context-length-overflow",
       "context length {context_length} is too large: one more source token cannot be counted"},
  }};
  /// A field as the message prints it.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};

/// An error of the chapter 5 window configuration, thrown by
/// CausalWindowConfig::create before a configuration exists.
class CausalWindowError : public KindedError<CausalWindowErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw CausalWindowError(CausalWindowErrorKind::..., {.field = value});`
  explicit CausalWindowError(CausalWindowErrorKind kind, CausalWindowErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}

  /// The requested context length T.
  std::size_t context_length() const noexcept { return evidence().context_length; }
  /// The requested stride S.
  std::size_t stride() const noexcept { return evidence().stride; }
};
// endregion: causal-window-errors

/// One input/target pair, viewing the document it was cut from (no copy).
/// Valid while that document's tokens are alive and unchanged.
struct CausalWindow {
  std::size_t start = 0;            ///< position of input[0] in the document
  std::span<const TokenId> input;   ///< T tokens: z[start, start + T)
  std::span<const TokenId> target;  ///< T tokens: z[start + 1, start + T + 1)
};

/// The suffix at the first candidate start that has fewer than T + 1 tokens.
/// Its tokens make no new pair, but may already belong to earlier pairs.
struct IncompleteTail {
  std::size_t start = 0;            ///< the candidate start
  std::span<const TokenId> tokens;  ///< z[start, end): 1 to T tokens
};

// region: causal-window-policy
/// A validated context length T and stride S. Taught in chapter 5.
class CausalWindowConfig {
 public:
  /// @throws CausalWindowError ZeroContextLength, ZeroStride, then
  ///         ContextLengthOverflow (T = SIZE_MAX, so T + 1 wraps).
  static CausalWindowConfig create(std::size_t context_length, std::size_t stride);

  /// T: the length of every input and every target.
  std::size_t context_length() const noexcept { return context_length_; }
  /// S: the distance between consecutive candidate starts.
  std::size_t stride() const noexcept { return stride_; }
  /// T + 1: the source tokens one pair needs.
  std::size_t required_source_tokens() const noexcept { return context_length_ + 1; }

  /// The number of pairs in a document of `document_length` tokens:
  /// 0 when it is shorter than T + 1, else (length - (T + 1)) / S + 1.
  /// No intermediate sum can overflow.
  std::size_t window_count(std::size_t document_length) const noexcept;

  /// The pair at the k-th candidate start (start k * S).
  /// Precondition: k < window_count(tokens.size()).
  CausalWindow window(std::span<const TokenId> tokens, std::size_t k) const;

  /// Every pair of one document, in start order. `tokens` must be exactly
  /// one document: the function cannot see boundaries inside it.
  std::vector<CausalWindow> windows(std::span<const TokenId> tokens) const;

  /// The suffix at the first candidate start that cannot make a pair, or
  /// nothing when that start is at or past the end of the document (an
  /// exact fit leaves no empty suffix to report).
  std::optional<IncompleteTail> incomplete_tail(std::span<const TokenId> tokens) const;

 private:
  CausalWindowConfig(std::size_t context_length, std::size_t stride)
      : context_length_(context_length), stride_(stride) {}

  std::size_t context_length_;
  std::size_t stride_;
};
// endregion: causal-window-policy

}  // namespace llm
