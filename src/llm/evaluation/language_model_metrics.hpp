// Language-model metrics from assigned probabilities: total and mean negative
// log-likelihood (NLL) and perplexity. Taught in chapter 7.
//
// A scored target is one observed next token z_t and the probability
// p_t(z_t) a model assigned to it under a fixed rule for building context.
// The metrics depend only on those N probabilities, not on the model that
// produced them, so every model of the book (the chapter 6 bigram, the
// decoder of chapter 32) is measured with the same code:
//
//   total NLL  = sum over t of -ln p_t(z_t)      (nats)
//   mean NLL   = total NLL / N                   (nats per target)
//   perplexity = exp(mean NLL)                   (dimensionless, >= 1)
//
// Logarithms are natural. The sum is taken in log space, so a long sequence
// whose probability product underflows to 0 still has a finite total. An
// assigned probability of exactly 0 is valid evidence that the model called
// the observed token impossible: its term, and the totals, are +infinity.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "llm/error.hpp"

namespace llm {

// region: metric-errors
/// What a metric rejected.
enum class MetricErrorKind {
  EmptyTargets,        ///< no target was scored, so there is no mean (N = 0)
  InvalidProbability,  ///< a probability is NaN, infinite, below 0 or above 1
};

/// The offending values of a MetricError; EmptyTargets leaves them zero.
struct MetricErrorEvidence {
  /// Zero-based index of the rejected probability among the scored targets.
  std::size_t index = 0;
  double probability = 0.0;  ///< the rejected probability itself, NaN included
};

/// The `metrics` area: each kind's stable name and message, in enum order.
struct MetricErrorTraits {
  using Kind = MetricErrorKind;                        ///< the area's kinds
  using Evidence = MetricErrorEvidence;                ///< the offending values
  static constexpr std::string_view area = "metrics";  ///< Error::area()
  /// Each kind's stable name and message, in enum order.
  static constexpr std::array<ErrorKindSpec<Kind>, 2> kinds{{
      {Kind::EmptyTargets, "empty-targets", "assigned probabilities must not be empty"},
      {Kind::InvalidProbability, "invalid-probability",
       "assigned probability at index {index} must be finite and within [0, 1], got "
       "{probability}"},
  }};
  /// A field as the message prints it.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};

/// An error of the chapter 7 metrics. It is thrown while validating, before a
/// probability is added, so an accumulator that throws keeps its total and
/// count bit for bit. Fields a kind does not use are zero.
class MetricError : public KindedError<MetricErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw MetricError(MetricErrorKind::..., {.field = value});`
  explicit MetricError(MetricErrorKind kind, MetricErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}

  /// Zero-based index of the rejected probability among the scored targets
  /// (InvalidProbability).
  std::size_t index() const noexcept { return evidence().index; }
  /// The rejected probability itself, NaN included (InvalidProbability).
  double probability() const noexcept { return evidence().probability; }
};
// endregion: metric-errors

/// The metrics of N >= 1 scored targets. Only NllAccumulator::finish makes
/// one, so the three derived values always agree with the total and count:
/// mean_nll() = total_nll() / target_count() and perplexity() = exp(mean_nll()).
class LanguageModelMetrics {
 public:
  /// The sum of -ln p over the scored targets, in nats; +inf if any p was 0.
  double total_nll() const noexcept { return total_nll_; }
  /// N, the number of scored targets (never zero). Across documents this is
  /// the number of target tokens, not of documents.
  std::size_t target_count() const noexcept { return target_count_; }
  /// total_nll() / N, in nats per target; 0 when every p was 1.
  double mean_nll() const noexcept { return mean_nll_; }
  /// exp(mean_nll()): the geometric mean of 1/p; 1 when every p was 1,
  /// V for a uniform distribution over V tokens, +inf if any p was 0.
  double perplexity() const noexcept { return perplexity_; }

 private:
  friend class NllAccumulator;
  LanguageModelMetrics(double total_nll, std::size_t target_count);

  double total_nll_;
  std::size_t target_count_;
  double mean_nll_;
  double perplexity_;
};

// region: nll-accumulator-contract
/// Adds the NLL of scored targets one at a time, in log space. One
/// accumulator can collect targets across many documents: every target has
/// the same weight, whichever document it came from. Taught in chapter 7.
class NllAccumulator {
 public:
  /// Adds one target whose assigned probability is `probability`: the total
  /// grows by -ln(probability), and becomes +inf for 0 (or -0.0).
  /// @throws MetricError InvalidProbability, with index target_count(), if
  ///         `probability` is NaN, infinite, negative or above 1; the
  ///         accumulator is then unchanged.
  void add(double probability);

  /// The targets added so far.
  std::size_t target_count() const noexcept { return target_count_; }
  /// The sum of -ln p so far, in nats (0 before the first target).
  double total_nll() const noexcept { return total_nll_; }

  /// The metrics of the targets added so far; the accumulator is unchanged.
  /// @throws MetricError EmptyTargets if no target was added.
  LanguageModelMetrics finish() const;

 private:
  double total_nll_ = 0.0;
  std::size_t target_count_ = 0;
};
// endregion: nll-accumulator-contract

// region: score-assigned-probabilities-contract
/// Total NLL, mean NLL and perplexity of the targets whose assigned
/// probabilities are `probabilities` ([N], each in [0, 1], in any order).
/// The whole span is validated before anything is added, so [0, NaN] reports
/// the NaN rather than returning the +inf the 0 would give.
/// @throws MetricError EmptyTargets if the span is empty (N = 0), then
///         InvalidProbability naming the first invalid value and its index.
LanguageModelMetrics score_assigned_probabilities(std::span<const double> probabilities);
// endregion: score-assigned-probabilities-contract

}  // namespace llm
