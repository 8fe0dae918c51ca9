// What llm-generate reads from a checkpoint: the decoder (chapter 32) and the
// tokenizer its token IDs belong to, whichever of the two kinds the file holds
// (chapter 35's format):
//
//   byte-pair  chapter 39's checkpoint: BPE merges (chapter 4); a prompt is
//              encoded with encode_content, each token prints its bytes, and
//              generation stops at EOS (llm::kEosTokenId)
//   literal    chapter 40's checkpoint: one byte per token ID, in byte order
//              (ByteVocabulary); no stop token
//
// and the next token's logits, through a key/value cache (chapter 38) while
// the text fits the decoder's context and through the decoder's last
// `context` tokens after that, as nanoGPT's sample.py crops its input.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "llm/generation/decoder_kv_cache.hpp"
#include "llm/models/decoder_model.hpp"
#include "llm/text/bpe_tokenizer.hpp"
#include "llm/text/text_dataset.hpp"
#include "llm/training/checkpoint.hpp"

namespace llm_generate {

using llm::TokenId;

/// A checkpoint's tokenizer as a generator uses it: text to token IDs, each
/// token ID to its bytes, and the token that ends a text.
class CheckpointTokenizerView {
 public:
  /// The tokenizer of `checkpoint`; `path` names the file in errors.
  /// @throws llm::CheckpointError InvalidTokenizer for a literal tokenizer
  ///         whose pieces are not single bytes in byte order (only those
  ///         encode a prompt byte by byte).
  static CheckpointTokenizerView from_checkpoint(const llm::Checkpoint& checkpoint,
                                                 const std::string& path);

  /// The token IDs of `prompt`: BPE's encode_content, or one ID per byte.
  /// @throws llm::SamplingError EmptyPrompt for an empty prompt;
  ///         llm::DatasetError UnknownCharacter naming the first byte a
  ///         literal vocabulary lacks, its position and the vocabulary's size.
  std::vector<TokenId> encode(std::string_view prompt) const;
  /// The bytes `token` stands for (none for BPE's BOS and EOS).
  std::string bytes_of(TokenId token) const;
  /// EOS for a byte-pair tokenizer; nothing for a literal one.
  std::optional<TokenId> stop_token() const;
  /// Token IDs the tokenizer defines (the model's V).
  std::size_t vocabulary_size() const;
  /// `byte-bpe` or `literal-u32`, as the checkpoint names its kind.
  std::string_view kind_name() const noexcept { return kind_name_; }

 private:
  CheckpointTokenizerView(std::string_view kind_name, std::optional<llm::BpeTokenizer> bpe,
                          std::optional<llm::ByteVocabulary> bytes)
      : kind_name_(kind_name), bpe_(std::move(bpe)), bytes_(std::move(bytes)) {}

  std::string_view kind_name_;
  std::optional<llm::BpeTokenizer> bpe_;      // a byte-pair checkpoint
  std::optional<llm::ByteVocabulary> bytes_;  // a literal one-byte checkpoint
};

/// The next token's logits from a restored decoder, for llm::generate: the
/// first call prefills a key/value cache with the prompt, each later call
/// decodes the token chosen last, both bit for bit the full decoder's last
/// row (chapter 38). Once the text is longer than the context, each call runs
/// the decoder on the last `context` tokens instead. One object serves one
/// generation.
class CroppedCachedLogits {
 public:
  /// Logits of `model`, which must outlive this object.
  /// @throws llm::KvCacheError as DecoderKvCache::create.
  explicit CroppedCachedLogits(const llm::DecoderModel& model);

  /// The V logits of the token after `prefix`, which extends the previous
  /// call's prefix by one token.
  std::vector<double> operator()(std::span<const TokenId> prefix);

 private:
  const llm::DecoderModel* model_;
  llm::DecoderKvCache cache_;
};

}  // namespace llm_generate
