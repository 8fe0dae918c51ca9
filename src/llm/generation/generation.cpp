// The autoregressive generation loop of chapters 36 and 38.
#include "llm/generation/generation.hpp"

#include <vector>

namespace llm {

std::string_view generation_stop_name(GenerationStop stop) noexcept {
  switch (stop) {
    case GenerationStop::Eos:
      return "eos";
    case GenerationStop::TokenLimit:
      return "token-limit";
    case GenerationStop::ContextLimit:
      return "context-limit";
  }
  return "unknown";
}

namespace {

void check_request(std::size_t vocabulary_size, std::size_t context,
                   std::span<const TokenId> prompt, const GenerationConfig& config) {
  if (prompt.empty()) throw SamplingError(SamplingErrorKind::EmptyPrompt, {});
  if (prompt.size() > context) {
    throw SamplingError(SamplingErrorKind::PromptTooLong,
                        {.length = prompt.size(), .context = context});
  }
  for (std::size_t position = 0; position < prompt.size(); ++position) {
    if (prompt[position] >= vocabulary_size) {
      throw SamplingError(
          SamplingErrorKind::PromptTokenOutOfRange,
          {.classes = vocabulary_size, .index = position, .token = prompt[position]});
    }
  }
  if (config.eos_token && *config.eos_token >= vocabulary_size) {
    throw SamplingError(SamplingErrorKind::StopTokenOutOfRange,
                        {.classes = vocabulary_size, .token = *config.eos_token});
  }
  // The policy against V, on a row of zeros: the same checks and order as a draw.
  sampling_distribution(std::vector<double>(vocabulary_size, 0.0), config.policy);
}

}  // namespace

// region: generate-loop
GenerationResult generate(std::size_t vocabulary_size, std::size_t context,
                          std::span<const TokenId> prompt, const GenerationConfig& config,
                          SplitMix64& generator, const NextTokenLogits& next_logits,
                          const std::function<void(TokenId)>& on_token) {
  check_request(vocabulary_size, context, prompt, config);
  GenerationResult result;
  result.prompt.assign(prompt.begin(), prompt.end());
  if (config.max_new_tokens == 0) return result;  // TokenLimit, the model never asked

  SplitMix64 draws = generator;  // written back only on success
  std::vector<TokenId> prefix(prompt.begin(), prompt.end());
  while (true) {
    const std::vector<double> logits = next_logits(prefix);
    ++result.model_calls;
    if (logits.size() != vocabulary_size) {
      throw SamplingError(SamplingErrorKind::LogitCountMismatch,
                          {.classes = vocabulary_size, .length = logits.size()});
    }
    const SampledToken chosen = sample_next_token(logits, config.policy, draws);
    result.steps.push_back(GenerationStep{prefix.size(), chosen.token_id, chosen.unit_draw,
                                          chosen.interval_start, chosen.interval_end});
    prefix.push_back(chosen.token_id);
    result.generated.push_back(chosen.token_id);
    if (on_token) on_token(chosen.token_id);

    if (config.eos_token == chosen.token_id) {
      result.stop = GenerationStop::Eos;
      break;
    }
    if (result.generated.size() == config.max_new_tokens) {
      result.stop = GenerationStop::TokenLimit;
      break;
    }
    if (prefix.size() > context) {  // the newest token has no position left to predict from
      result.stop = GenerationStop::ContextLimit;
      break;
    }
  }
  generator = draws;
  return result;
}
// endregion: generate-loop

}  // namespace llm
