// The autoregressive loop (chapters 36 and 38): ask a model for the logits of
// the next position, choose a token with a SamplingPolicy, append it, and
// repeat until a stop token, a token budget or the context runs out.
//
// The loop does not know how the logits are made: chapter 36 recomputes the
// whole prefix for every token, chapter 38 keeps a key/value cache and feeds
// only the newest token. Both give the same callback the whole prefix; a
// cached model reads only the tokens it has not seen.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "llm/generation/sampling.hpp"

namespace llm {

// region: generation-config
/// What one generation call may do.
struct GenerationConfig {
  SamplingPolicy policy = SamplingPolicy::greedy();  ///< how each token is chosen
  std::optional<TokenId> eos_token{};                ///< stop right after choosing this token
  std::size_t max_new_tokens = 0;  ///< stop after this many tokens (0: none, no model call)
};

/// Why a generation call stopped.
enum class GenerationStop {
  Eos,           ///< the end-of-sequence token was chosen (and is the last token generated)
  TokenLimit,    ///< max_new_tokens were generated
  ContextLimit,  ///< the prefix outgrew the model's context: no position is left to predict from
};

/// `eos`, `token-limit` or `context-limit`.
std::string_view generation_stop_name(GenerationStop stop) noexcept;
// endregion: generation-config

// region: generation-result
/// One chosen token: the prefix length it was predicted from and the draw.
struct GenerationStep {
  std::size_t prefix_length = 0;    ///< tokens the model read before this choice
  TokenId token_id = 0;             ///< the token chosen
  std::optional<double> unit_draw;  ///< none for greedy
  double interval_start = 0.0;      ///< the chosen token's interval [start, end)
  double interval_end = 1.0;        ///< the end of that interval

  /// Field-by-field equality.
  bool operator==(const GenerationStep&) const = default;
};

/// Everything one generation call produced.
struct GenerationResult {
  std::vector<TokenId> prompt;                       ///< the tokens given
  std::vector<TokenId> generated;                    ///< the tokens chosen, in order
  std::vector<GenerationStep> steps;                 ///< one per generated token
  GenerationStop stop = GenerationStop::TokenLimit;  ///< why the call stopped
  std::size_t model_calls = 0;                       ///< how often the logits callback ran

  /// Field-by-field equality.
  bool operator==(const GenerationResult&) const = default;
};
// endregion: generation-result

/// The logits (V values) of the position after `prefix`, which holds the
/// prompt and every token generated so far.
using NextTokenLogits = std::function<std::vector<double>(std::span<const TokenId> prefix)>;

// region: generate-declaration
/// Generates from `prompt` for a model of `vocabulary_size` tokens and a
/// context of `context` positions. Checks, in this order: a non-empty
/// prompt, no longer than the context, every prompt token and the stop token
/// below V, then the policy (as sampling_distribution does). Then, while no
/// stop applies: logits = next_logits(prefix), one token chosen, appended,
/// and passed to `on_token` (if given). Stops after the stop token, after
/// max_new_tokens, or when the prefix is longer than the context, checked in
/// that order after each token.
///
/// The loop draws from a copy of `generator` and writes it back only when it
/// returns, so any throw (a check, or the callback) leaves it unchanged.
/// @throws SamplingError EmptyPrompt, PromptTooLong, PromptTokenOutOfRange,
///         StopTokenOutOfRange, InvalidTemperature, InvalidTopK,
///         LogitCountMismatch, NonFiniteLogit; and whatever next_logits throws.
GenerationResult generate(std::size_t vocabulary_size, std::size_t context,
                          std::span<const TokenId> prompt, const GenerationConfig& config,
                          SplitMix64& generator, const NextTokenLogits& next_logits,
                          const std::function<void(TokenId)>& on_token = {});
// endregion: generate-declaration

}  // namespace llm
