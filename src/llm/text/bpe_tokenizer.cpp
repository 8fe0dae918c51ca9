// The frozen byte-level BPE tokenizer (chapter 4): layout, construction from
// training or from stored pairs, ranked encoding, exact decoding, documents.
#include "llm/text/bpe_tokenizer.hpp"

#include <set>
#include <utility>

#include "llm/text/text_units.hpp"

namespace llm {

TokenizerLayout TokenizerLayout::create(std::size_t merge_count) {
  // The last ID is kFirstMergeTokenId + merge_count - 1 and must be <= 2^32 - 1.
  constexpr std::size_t kMaxLayoutMerges = std::size_t{0xFFFFFFFF} - kFirstMergeTokenId + 1;
  if (merge_count > kMaxLayoutMerges)
    throw TokenizerError(TokenizerErrorKind::LayoutOverflow, {.merge_count = merge_count});
  return TokenizerLayout(merge_count);
}

std::optional<TokenId> TokenizerLayout::merge_token_id(std::size_t rank) const {
  if (rank >= merge_count_) return std::nullopt;
  return static_cast<TokenId>(kFirstMergeTokenId + rank);
}

BpeTokenizer::BpeTokenizer(TokenizerLayout layout, std::vector<BpeMergeRule> rules,
                           std::vector<std::vector<std::uint8_t>> training_vocabulary)
    : layout_(layout),
      rules_(std::move(rules)),
      training_vocabulary_(std::move(training_vocabulary)) {}

namespace {

TokenPair shifted(TokenPair pair) {
  return {pair.left + kContentIdOffset, pair.right + kContentIdOffset};
}

}  // namespace

// region: freeze-training
BpeTokenizer BpeTokenizer::from_training(const BpeTraining& training) {
  const TokenizerLayout layout = TokenizerLayout::create(training.rules().size());
  std::vector<BpeMergeRule> rules;
  for (const MergeRule& rule : training.rules()) {
    rules.push_back({rule.rank, rule.pair, rule.token_id, shifted(rule.pair),
                     rule.token_id + kContentIdOffset});
  }
  return BpeTokenizer(layout, std::move(rules), training.vocabulary());
}
// endregion: freeze-training

// region: merge-pairs-checked
BpeTokenizer BpeTokenizer::from_merge_pairs(std::span<const TokenPair> training_pairs) {
  const TokenizerLayout layout = TokenizerLayout::create(training_pairs.size());
  std::vector<std::vector<std::uint8_t>> vocabulary;
  for (unsigned byte = 0; byte < kByteTokenCount; ++byte) {
    vocabulary.push_back({static_cast<std::uint8_t>(byte)});
  }
  std::vector<BpeMergeRule> rules;
  std::set<TokenPair> seen;
  for (std::size_t rank = 0; rank < training_pairs.size(); ++rank) {
    const TokenPair pair = training_pairs[rank];
    const auto token_id = static_cast<TokenId>(kByteTokenCount + rank);  // fits: layout checked
    for (TokenId operand : {pair.left, pair.right}) {
      if (operand >= token_id)
        throw TokenizerError(TokenizerErrorKind::UnknownMergeOperand,
                             {.rank = rank, .token_id = operand});
    }
    if (!seen.insert(pair).second)
      throw TokenizerError(TokenizerErrorKind::DuplicateMergePair, {.rank = rank, .pair = pair});
    std::vector<std::uint8_t> merged = vocabulary[pair.left];
    merged.insert(merged.end(), vocabulary[pair.right].begin(), vocabulary[pair.right].end());
    vocabulary.push_back(std::move(merged));
    rules.push_back({rank, pair, token_id, shifted(pair), token_id + kContentIdOffset});
  }
  return BpeTokenizer(layout, std::move(rules), std::move(vocabulary));
}
// endregion: merge-pairs-checked

std::optional<std::span<const std::uint8_t>> BpeTokenizer::token_bytes(TokenId token_id) const {
  if (token_id < kContentIdOffset) return std::nullopt;  // BOS and EOS stand for no bytes
  const std::size_t training_id = token_id - kContentIdOffset;
  if (training_id >= training_vocabulary_.size()) return std::nullopt;
  return std::span<const std::uint8_t>(training_vocabulary_[training_id]);
}

// region: ranked-content-encoding
// The one merge loop. `observe(rule, replacements, before, after)` sees each
// rank that changed the sequence; the plain encoder passes a no-op, the
// traced one copies the snapshots, and both return the same IDs.
template <class Observe>
std::vector<TokenId> BpeTokenizer::apply_ranked_merges(std::vector<TokenId> content,
                                                       Observe&& observe) const {
  for (const BpeMergeRule& rule : rules_) {  // rank 0 first: rank is priority
    PairReplacement replaced =
        replace_pair_left_to_right(content, rule.content_pair, rule.content_token_id);
    if (replaced.replacements > 0) observe(rule, replaced.replacements, content, replaced.tokens);
    content = std::move(replaced.tokens);
  }
  return content;
}

std::vector<TokenId> BpeTokenizer::encode_content(std::span<const std::uint8_t> bytes) const {
  std::vector<TokenId> content;
  content.reserve(bytes.size());
  for (std::uint8_t byte : bytes) content.push_back(layout_.byte_token_id(byte));
  return apply_ranked_merges(std::move(content), [](auto&&...) {});
}
// endregion: ranked-content-encoding

std::vector<TokenId> BpeTokenizer::encode_content(std::string_view bytes) const {
  return encode_content(
      std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
}

BpeEncodingTrace BpeTokenizer::encode_content_with_trace(
    std::span<const std::uint8_t> bytes) const {
  BpeEncodingTrace trace;
  for (std::uint8_t byte : bytes) trace.initial_tokens.push_back(layout_.byte_token_id(byte));
  trace.content_tokens = apply_ranked_merges(
      trace.initial_tokens,
      [&](const BpeMergeRule& rule, std::size_t replacements, const std::vector<TokenId>& before,
          const std::vector<TokenId>& after) {
        trace.applications.push_back({rule.rank, replacements, before, after});
      });
  return trace;
}

// region: document-wrapping
std::vector<TokenId> BpeTokenizer::encode_document(std::span<const std::uint8_t> bytes) const {
  std::vector<TokenId> content = encode_content(bytes);  // merges first: they never see a control
  std::vector<TokenId> document;
  document.reserve(content.size() + 2);
  document.push_back(kBosTokenId);
  document.insert(document.end(), content.begin(), content.end());
  document.push_back(kEosTokenId);
  return document;
}

std::vector<std::uint8_t> BpeTokenizer::decode_document(std::span<const TokenId> document) const {
  if (document.size() < 2)
    throw TokenizerError(TokenizerErrorKind::DocumentTooShort, {.length = document.size()});
  if (document.front() != kBosTokenId)
    throw TokenizerError(TokenizerErrorKind::ExpectedBos, {.token_id = document.front()});
  const std::size_t last = document.size() - 1;
  if (document[last] != kEosTokenId)
    throw TokenizerError(TokenizerErrorKind::ExpectedEos,
                         {.token_id = document[last], .position = last});
  for (std::size_t position = 1; position < last; ++position) {
    if (document[position] == kBosTokenId || document[position] == kEosTokenId) {
      throw TokenizerError(TokenizerErrorKind::InteriorControlToken,
                           {.token_id = document[position], .position = position});
    }
  }
  return concatenate_bytes(document.subspan(1, last - 1), 1);
}
// endregion: document-wrapping

std::vector<TokenId> BpeTokenizer::encode_document(std::string_view bytes) const {
  return encode_document(
      std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
}

// region: byte-exact-decoding
std::vector<std::uint8_t> BpeTokenizer::decode_content(std::span<const TokenId> content) const {
  for (std::size_t position = 0; position < content.size(); ++position) {
    if (content[position] == kBosTokenId || content[position] == kEosTokenId) {
      throw TokenizerError(TokenizerErrorKind::ControlTokenInContent,
                           {.token_id = content[position], .position = position});
    }
  }
  return concatenate_bytes(content, 0);
}

// Each token's stored bytes in order. `position_offset` is where `tokens`
// starts in the sequence the caller was given, so errors name that position.
std::vector<std::uint8_t> BpeTokenizer::concatenate_bytes(std::span<const TokenId> tokens,
                                                          std::size_t position_offset) const {
  std::vector<std::uint8_t> bytes;
  for (std::size_t index = 0; index < tokens.size(); ++index) {
    const auto piece = token_bytes(tokens[index]);
    if (!piece)
      throw TokenizerError(TokenizerErrorKind::UnknownToken,
                           {.token_id = tokens[index], .position = index + position_offset});
    bytes.insert(bytes.end(), piece->begin(), piece->end());
  }
  return bytes;
}

namespace {

// The bytes as text, or an error naming the first byte that is not UTF-8.
// No replacement character: a wrong byte is reported, never papered over.
std::string strict_utf8(const std::vector<std::uint8_t>& bytes) {
  const std::size_t valid = utf8_valid_prefix_length(bytes);
  if (valid != bytes.size())
    throw TokenizerError(TokenizerErrorKind::InvalidUtf8, {.valid_up_to = valid});
  return {bytes.begin(), bytes.end()};
}

}  // namespace

std::string BpeTokenizer::decode_content_utf8(std::span<const TokenId> content) const {
  return strict_utf8(decode_content(content));
}
// endregion: byte-exact-decoding

std::string BpeTokenizer::decode_document_utf8(std::span<const TokenId> document) const {
  return strict_utf8(decode_document(document));
}

}  // namespace llm
