// Choosing the next token from one row of logits (chapter 36): greedy
// decoding, and sampling after temperature scaling and top-k truncation,
// drawn from a seeded SplitMix64 (chapter 17) so that a run replays exactly.
//
// For logits z_1..z_V, temperature tau > 0 and the k highest-ranked tokens R:
//     p_i = exp((z_i - z_max) / tau) / sum_{j in R} exp((z_j - z_max) / tau)   for i in R,
//     p_i = 0                                                                 otherwise.
// Ranks are descending logit with ties broken by the lower token ID, so the
// retained set at a tied top-k boundary is always the same. Subtracting the
// largest logit keeps every exponent <= 0 (no overflow; the top token weighs
// exactly 1); a tiny temperature may underflow the others to exactly 0, so a
// retained token can have probability 0 (positive support is reported
// separately). One uniform draw u in [0, 1) then picks the token whose
// interval of the cumulative distribution, in token-ID order, contains u.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "llm/generation/sampling_error.hpp"
#include "llm/nn/init.hpp"
#include "llm/text/bpe_trainer.hpp"

namespace llm {

// region: sampling-policy
/// How the next token is chosen: the highest logit (greedy, no draw), or a
/// draw after temperature scaling and top-k truncation.
class SamplingPolicy {
 public:
  /// The highest logit, ties to the lower token ID; consumes no randomness.
  static SamplingPolicy greedy() noexcept { return SamplingPolicy(true, 1.0, 1); }
  /// A draw over the `top_k` highest-ranked tokens at `temperature`. Both
  /// are checked against the row when the policy is used (top_k against V).
  static SamplingPolicy temperature_top_k(double temperature, std::size_t top_k) noexcept {
    return SamplingPolicy(false, temperature, top_k);
  }

  /// Whether this is greedy decoding.
  bool is_greedy() const noexcept { return greedy_; }
  /// tau (1 for greedy).
  double temperature() const noexcept { return temperature_; }
  /// k (1 for greedy).
  std::size_t top_k() const noexcept { return top_k_; }

  /// Field-by-field equality.
  bool operator==(const SamplingPolicy&) const = default;

 private:
  SamplingPolicy(bool greedy, double temperature, std::size_t top_k) noexcept
      : greedy_(greedy), temperature_(temperature), top_k_(top_k) {}
  bool greedy_;
  double temperature_;
  std::size_t top_k_;
};
// endregion: sampling-policy

// region: sampling-distribution
/// One vocabulary entry after ranking and normalizing.
struct SamplingCandidate {
  TokenId token_id = 0;      ///< the entry's token
  double logit = 0.0;        ///< its logit
  std::size_t rank = 0;      ///< 1-based: descending logit, ties to the lower ID
  bool retained = false;     ///< rank <= k (greedy: rank 1)
  double probability = 0.0;  ///< 0 unless retained; may underflow to 0 even then
};

/// The whole distribution one policy gives one logit row.
struct SamplingDistribution {
  SamplingPolicy policy = SamplingPolicy::greedy();  ///< greedy, or temperature and top-k
  std::vector<SamplingCandidate> candidates;         ///< one per token, in token-ID order
  std::vector<TokenId> retained_token_ids;           ///< the top k, in rank order

  /// The tokens whose probability is > 0, in token-ID order.
  std::vector<TokenId> positive_support_token_ids() const;
  /// The probabilities summed with Kahan compensation, in token-ID order.
  double probability_sum() const noexcept;
};
// endregion: sampling-distribution

// region: sampled-token
/// The chosen token and the half-open interval [start, end) of the
/// cumulative distribution (token-ID order) that the draw fell in.
struct SampledToken {
  TokenId token_id = 0;             ///< the token chosen
  std::optional<double> unit_draw;  ///< u in [0, 1); none for greedy
  double interval_start = 0.0;      ///< the start of its interval
  double interval_end = 1.0;        ///< the end of its interval
};

/// A choice together with the distribution it was drawn from.
struct SamplingDecision {
  SampledToken sampled;               ///< the token chosen
  SamplingDistribution distribution;  ///< what it was drawn from
};
// endregion: sampled-token

// region: sampling-functions
/// The distribution `policy` gives `logits` (one row of V classes); draws nothing.
/// Checks, in this order: a non-empty row, V - 1 fits a 32-bit token ID,
/// every logit finite (the first bad one in token order), then the policy:
/// temperature finite and > 0, 1 <= top_k <= V.
/// @throws SamplingError EmptyLogits, VocabularyTooLarge, NonFiniteLogit,
///         InvalidTemperature, InvalidTopK (InvalidProbabilitySum guards a bug).
SamplingDistribution sampling_distribution(std::span<const double> logits, SamplingPolicy policy);

/// The next token: greedy takes rank 1 and leaves `generator` alone;
/// temperature/top-k takes one draw generator.next_unit(). Everything is
/// checked before the draw, so a throw leaves the generator's state unchanged.
/// @throws SamplingError as sampling_distribution.
SampledToken sample_next_token(std::span<const double> logits, SamplingPolicy policy,
                               SplitMix64& generator);

/// sample_next_token, also returning the distribution it drew from.
SamplingDecision sample_next_token_with_trace(std::span<const double> logits, SamplingPolicy policy,
                                              SplitMix64& generator);
// endregion: sampling-functions

/// Sum with Kahan's compensation (Kahan, 1965): the rounding error of each
/// addition is carried into the next, so a long sum of probabilities stays
/// within a few ulps of the exact sum whatever the order of magnitudes.
double compensated_sum(std::span<const double> values) noexcept;

}  // namespace llm
