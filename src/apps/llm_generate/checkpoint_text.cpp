// llm-generate's view of a checkpoint (see checkpoint_text.hpp).
#include "checkpoint_text.hpp"

#include <utility>

#include "llm/autograd/tensor_value.hpp"
#include "llm/generation/sampling_error.hpp"
#include "llm/training/checkpoint_error.hpp"

namespace llm_generate {

CheckpointTokenizerView CheckpointTokenizerView::from_checkpoint(const llm::Checkpoint& checkpoint,
                                                                 const std::string& path) {
  const llm::CheckpointTokenizer& tokenizer = checkpoint.tokenizer();
  if (tokenizer.kind() == llm::CheckpointTokenizer::Kind::BytePair) {
    return {tokenizer.kind_name(), tokenizer.bpe(), std::nullopt};
  }
  std::optional<llm::ByteVocabulary> bytes = tokenizer.byte_vocabulary();
  if (!bytes) {
    throw llm::CheckpointError(
        llm::CheckpointErrorKind::InvalidTokenizer,
        {.path = path,
         .detail = "its " + std::to_string(tokenizer.vocabulary_size()) +
                   " literal pieces are not single bytes in byte order, so a prompt cannot be "
                   "encoded byte by byte"});
  }
  return {tokenizer.kind_name(), std::nullopt, std::move(bytes)};
}

// region: encode-prompt
std::vector<TokenId> CheckpointTokenizerView::encode(std::string_view prompt) const {
  // Checked here, not left to llm::generate: the program writes the prompt
  // before it generates, and a refusal must come before the first byte.
  if (prompt.empty()) throw llm::SamplingError(llm::SamplingErrorKind::EmptyPrompt);
  if (bpe_) return bpe_->encode_content(prompt);  // any bytes encode
  return bytes_->encode(prompt);                  // DatasetError names a byte it lacks
}
// endregion: encode-prompt

std::string CheckpointTokenizerView::bytes_of(TokenId token) const {
  if (bytes_) return std::string(1, bytes_->symbols()[token]);
  const auto piece = bpe_->token_bytes(token);  // none for BOS and EOS
  return piece ? std::string(piece->begin(), piece->end()) : std::string();
}

std::optional<TokenId> CheckpointTokenizerView::stop_token() const {
  if (bpe_) return llm::kEosTokenId;
  return std::nullopt;
}

std::size_t CheckpointTokenizerView::vocabulary_size() const {
  return bpe_ ? bpe_->vocabulary_size() : bytes_->size();
}

CroppedCachedLogits::CroppedCachedLogits(const llm::DecoderModel& model)
    : model_(&model), cache_(llm::DecoderKvCache::create(model)) {}

// region: cropped-cached-logits
std::vector<double> CroppedCachedLogits::operator()(std::span<const TokenId> prefix) {
  const std::size_t context = model_->config().block.context;
  if (prefix.size() <= context) {  // inside the context: the cache, one new token a call
    if (cache_.length() == 0) return cache_.prefill(*model_, prefix).logits;
    return cache_.decode(*model_, prefix.back()).logits;
  }
  // Past it: the whole decoder on the last `context` tokens, positions 0 to
  // context - 1 again, which a cache of earlier positions cannot give.
  const llm::NoGradScope no_graph;
  const std::span<const TokenId> window = prefix.last(context);
  const llm::TensorValue logits = model_->forward(window, llm::Shape{1, context});  // [1, T, V]
  const llm::SharedTensor stored = logits.value();
  const std::span<const double> values = stored.contiguous_values();
  const std::size_t v = model_->config().vocabulary_size;
  return {values.end() - static_cast<std::ptrdiff_t>(v), values.end()};  // the last row
}
// endregion: cropped-cached-logits

}  // namespace llm_generate
