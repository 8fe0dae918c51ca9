// The evidence of the tokenizer's errors as their messages print it (chapter 4).
#include "llm/text/bpe_tokenizer.hpp"

namespace llm {

std::string TokenizerErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "merge_count") return std::to_string(evidence.merge_count);
  if (field == "layout_version") return std::to_string(kTokenizerLayoutVersion);
  if (field == "rank") return std::to_string(evidence.rank);
  if (field == "token_id") return std::to_string(evidence.token_id);
  if (field == "pair_left") return std::to_string(evidence.pair.left);
  if (field == "pair_right") return std::to_string(evidence.pair.right);
  if (field == "position") return std::to_string(evidence.position);
  if (field == "length") return std::to_string(evidence.length);
  if (field == "bos") return std::to_string(kBosTokenId);
  if (field == "eos") return std::to_string(kEosTokenId);
  if (field == "valid_up_to") return std::to_string(evidence.valid_up_to);
  error_detail::unknown_field(area, field);
}

}  // namespace llm
