// Messages and evidence of the tokenizer's typed errors (chapter 4).
#include "llm/text/bpe_tokenizer.hpp"

namespace llm {

std::string_view tokenizer_error_kind_name(TokenizerErrorKind kind) {
  switch (kind) {
    case TokenizerErrorKind::LayoutOverflow:
      return "layout-overflow";
    case TokenizerErrorKind::UnknownMergeOperand:
      return "unknown-merge-operand";
    case TokenizerErrorKind::DuplicateMergePair:
      return "duplicate-merge-pair";
    case TokenizerErrorKind::ControlTokenInContent:
      return "control-token-in-content";
    case TokenizerErrorKind::UnknownToken:
      return "unknown-token";
    case TokenizerErrorKind::DocumentTooShort:
      return "document-too-short";
    case TokenizerErrorKind::ExpectedBos:
      return "expected-bos";
    case TokenizerErrorKind::ExpectedEos:
      return "expected-eos";
    case TokenizerErrorKind::InteriorControlToken:
      return "interior-control-token";
    case TokenizerErrorKind::InvalidUtf8:
      return "invalid-utf8";
  }
  return "unknown";
}

TokenizerError::TokenizerError(TokenizerErrorKind kind, const std::string& message)
    : Error("tokenizer", tokenizer_error_kind_name(kind), message), kind_(kind) {}

TokenizerError TokenizerError::layout_overflow(std::size_t merge_count) {
  TokenizerError error(
      TokenizerErrorKind::LayoutOverflow,
      std::to_string(merge_count) + " merge ranks do not fit tokenizer layout version " +
          std::to_string(kTokenizerLayoutVersion) + ": the last token ID would exceed 32 bits");
  error.merge_count_ = merge_count;
  return error;
}

TokenizerError TokenizerError::unknown_merge_operand(std::size_t rank, TokenId token_id) {
  TokenizerError error(TokenizerErrorKind::UnknownMergeOperand,
                       "merge rank " + std::to_string(rank) + " uses training token " +
                           std::to_string(token_id) + ", which no earlier rank defines");
  error.rank_ = rank;
  error.token_id_ = token_id;
  return error;
}

TokenizerError TokenizerError::duplicate_merge_pair(std::size_t rank, TokenPair pair) {
  TokenizerError error(TokenizerErrorKind::DuplicateMergePair,
                       "merge rank " + std::to_string(rank) + " repeats training pair (" +
                           std::to_string(pair.left) + "," + std::to_string(pair.right) + ")");
  error.rank_ = rank;
  error.pair_ = pair;
  return error;
}

TokenizerError TokenizerError::control_token_in_content(std::size_t position, TokenId token_id) {
  TokenizerError error(TokenizerErrorKind::ControlTokenInContent,
                       "control token " + std::to_string(token_id) +
                           " is not allowed in content at position " + std::to_string(position));
  error.position_ = position;
  error.token_id_ = token_id;
  return error;
}

TokenizerError TokenizerError::unknown_token(std::size_t position, TokenId token_id) {
  TokenizerError error(TokenizerErrorKind::UnknownToken,
                       "token " + std::to_string(token_id) + " at position " +
                           std::to_string(position) + " is outside this tokenizer's vocabulary");
  error.position_ = position;
  error.token_id_ = token_id;
  return error;
}

TokenizerError TokenizerError::document_too_short(std::size_t length) {
  TokenizerError error(
      TokenizerErrorKind::DocumentTooShort,
      "a document of " + std::to_string(length) + " token IDs cannot hold both BOS and EOS");
  error.length_ = length;
  return error;
}

TokenizerError TokenizerError::expected_bos(TokenId found) {
  TokenizerError error(TokenizerErrorKind::ExpectedBos,
                       "expected BOS token " + std::to_string(kBosTokenId) + ", found " +
                           std::to_string(found) + " at position 0");
  error.token_id_ = found;
  return error;
}

TokenizerError TokenizerError::expected_eos(std::size_t position, TokenId found) {
  TokenizerError error(TokenizerErrorKind::ExpectedEos,
                       "expected EOS token " + std::to_string(kEosTokenId) + ", found " +
                           std::to_string(found) + " at the final position " +
                           std::to_string(position));
  error.position_ = position;
  error.token_id_ = found;
  return error;
}

TokenizerError TokenizerError::interior_control_token(std::size_t position, TokenId token_id) {
  TokenizerError error(TokenizerErrorKind::InteriorControlToken,
                       "document control token " + std::to_string(token_id) +
                           " is not allowed at position " + std::to_string(position));
  error.position_ = position;
  error.token_id_ = token_id;
  return error;
}

TokenizerError TokenizerError::invalid_utf8(std::size_t valid_up_to) {
  TokenizerError error(TokenizerErrorKind::InvalidUtf8,
                       "decoded bytes are not valid UTF-8 at byte " + std::to_string(valid_up_to));
  error.valid_up_to_ = valid_up_to;
  return error;
}

}  // namespace llm
