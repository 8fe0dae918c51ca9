// The bigram model of chapter 6: validate a whole training request, count
// each transition inside each document once, then read rows as maximum-
// likelihood or add-alpha distributions. See bigram.hpp for the contracts.
#include "llm/models/bigram.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "llm/format.hpp"

namespace llm {

// --- Errors -------------------------------------------------------------------

std::string BigramErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "vocabulary_size") return std::to_string(evidence.vocabulary_size);
  if (field == "alpha") return format_shortest(evidence.alpha);
  if (field == "token_in_place") {  // a query names the token's role, a document its place
    const std::string token = "token ID " + std::to_string(evidence.token);
    if (!evidence.role.empty()) return evidence.role + " " + token;
    return token + " at position " + std::to_string(evidence.position) + " of document " +
           std::to_string(evidence.document);
  }
  error_detail::unknown_field(area, field);
}

// --- Fitting ------------------------------------------------------------------

// region: bigram-fit
BigramModel BigramModel::fit(std::size_t vocabulary_size, double alpha,
                             std::span<const std::span<const TokenId>> training_documents) {
  // region: bigram-fit-validation
  if (vocabulary_size == 0) throw BigramError(BigramErrorKind::EmptyVocabulary);
  const double smoothing_mass = alpha * static_cast<double>(vocabulary_size);
  if (!std::isfinite(alpha) || alpha <= 0.0 || !std::isfinite(smoothing_mass)) {
    throw BigramError(BigramErrorKind::InvalidAlpha,
                      {.vocabulary_size = vocabulary_size, .alpha = alpha});
  }
  if (vocabulary_size > std::numeric_limits<std::size_t>::max() / vocabulary_size) {
    throw BigramError(BigramErrorKind::TableTooLarge, {.vocabulary_size = vocabulary_size});
  }
  for (std::size_t document = 0; document < training_documents.size(); ++document) {
    const std::span<const TokenId> tokens = training_documents[document];
    for (std::size_t position = 0; position < tokens.size(); ++position) {
      if (tokens[position] >= vocabulary_size) {
        throw BigramError(BigramErrorKind::TokenOutOfRange, {.vocabulary_size = vocabulary_size,
                                                             .token = tokens[position],
                                                             .document = document,
                                                             .position = position});
      }
    }
  }
  std::vector<std::uint64_t> counts;
  try {
    counts.assign(vocabulary_size * vocabulary_size, 0);
  } catch (const std::bad_alloc&) {
    throw BigramError(BigramErrorKind::TableTooLarge, {.vocabulary_size = vocabulary_size});
  } catch (const std::length_error&) {  // more cells than a vector can hold
    throw BigramError(BigramErrorKind::TableTooLarge, {.vocabulary_size = vocabulary_size});
  }
  std::vector<std::uint64_t> row_totals(vocabulary_size, 0);
  std::vector<std::uint64_t> column_totals(vocabulary_size, 0);
  // endregion: bigram-fit-validation
  std::uint64_t transitions = 0;
  for (const std::span<const TokenId> tokens : training_documents) {
    // Pairs are formed inside one document only: position t and t + 1 of the
    // same sequence. Nothing links this document's last token to the next
    // document's first.
    for (std::size_t t = 0; t + 1 < tokens.size(); ++t) {
      const std::size_t from = tokens[t];
      const std::size_t to = tokens[t + 1];
      counts[from * vocabulary_size + to] += 1;
      row_totals[from] += 1;
      column_totals[to] += 1;
      transitions += 1;
    }
  }
  return BigramModel(vocabulary_size, alpha, std::move(counts), std::move(row_totals),
                     std::move(column_totals), training_documents.size(), transitions);
}
// endregion: bigram-fit

BigramModel BigramModel::fit(std::size_t vocabulary_size, double alpha,
                             std::span<const std::vector<TokenId>> training_documents) {
  const std::vector<std::span<const TokenId>> views(training_documents.begin(),
                                                    training_documents.end());
  return fit(vocabulary_size, alpha, views);
}

BigramModel::BigramModel(std::size_t vocabulary_size, double alpha,
                         std::vector<std::uint64_t> counts, std::vector<std::uint64_t> row_totals,
                         std::vector<std::uint64_t> column_totals, std::size_t fitted_documents,
                         std::uint64_t fitted_transitions)
    : vocabulary_size_(vocabulary_size),
      alpha_(alpha),
      counts_(std::move(counts)),
      row_totals_(std::move(row_totals)),
      column_totals_(std::move(column_totals)),
      fitted_documents_(fitted_documents),
      fitted_transitions_(fitted_transitions) {}

// --- Reading the table ----------------------------------------------------------

std::size_t BigramModel::checked_index(TokenId token, std::string_view role) const {
  if (token >= vocabulary_size_) {
    throw BigramError(
        BigramErrorKind::TokenOutOfRange,
        {.vocabulary_size = vocabulary_size_, .token = token, .role = std::string(role)});
  }
  return token;
}

std::uint64_t BigramModel::count(TokenId from, TokenId to) const {
  const std::size_t row = checked_index(from, "current");
  const std::size_t column = checked_index(to, "next");
  return counts_[row * vocabulary_size_ + column];
}

std::span<const std::uint64_t> BigramModel::counts_row(TokenId from) const {
  const std::size_t row = checked_index(from, "current");
  return std::span<const std::uint64_t>(counts_).subspan(row * vocabulary_size_, vocabulary_size_);
}

std::uint64_t BigramModel::row_total(TokenId from) const {
  return row_totals_[checked_index(from, "current")];
}

// region: bigram-maximum-likelihood
std::optional<std::vector<double>> BigramModel::maximum_likelihood_distribution(
    TokenId from) const {
  const std::span<const std::uint64_t> row = counts_row(from);
  const std::uint64_t total = row_totals_[from];
  if (total == 0) return std::nullopt;  // no evidence leaves `from`: no row to normalize
  std::vector<double> distribution;
  distribution.reserve(row.size());
  for (std::uint64_t count : row) {
    distribution.push_back(static_cast<double>(count) / static_cast<double>(total));
  }
  return distribution;
}

std::optional<double> BigramModel::maximum_likelihood_probability(TokenId from, TokenId to) const {
  const std::uint64_t cell = count(from, to);
  const std::uint64_t total = row_totals_[from];
  if (total == 0) return std::nullopt;
  return static_cast<double>(cell) / static_cast<double>(total);  // 0 here is a defined zero
}
// endregion: bigram-maximum-likelihood

// region: bigram-add-alpha
double BigramModel::smoothing_denominator(TokenId from) const {
  // alpha is added to each of the V cells, so the row total grows by alpha * V.
  return static_cast<double>(row_total(from)) + alpha_ * static_cast<double>(vocabulary_size_);
}

double BigramModel::smoothed_probability(TokenId from, TokenId to) const {
  const double numerator = static_cast<double>(count(from, to)) + alpha_;
  return numerator / smoothing_denominator(from);
}

std::vector<double> BigramModel::smoothed_distribution(TokenId from) const {
  const std::span<const std::uint64_t> row = counts_row(from);
  const double denominator = smoothing_denominator(from);
  std::vector<double> distribution;
  distribution.reserve(row.size());
  for (std::uint64_t count : row) {
    distribution.push_back((static_cast<double>(count) + alpha_) / denominator);
  }
  return distribution;
}
// endregion: bigram-add-alpha

std::vector<TokenId> BigramModel::most_likely_next_tokens(TokenId from) const {
  const std::span<const std::uint64_t> row = counts_row(from);
  const std::uint64_t largest = *std::max_element(row.begin(), row.end());  // V >= 1
  std::vector<TokenId> tokens;
  for (std::size_t next = 0; next < row.size(); ++next) {
    if (row[next] == largest) tokens.push_back(static_cast<TokenId>(next));
  }
  return tokens;
}

// --- Without context -------------------------------------------------------------

std::uint64_t BigramModel::unigram_count(TokenId next) const {
  return column_totals_[checked_index(next, "next")];
}

// region: unigram-reading
double BigramModel::unigram_probability(TokenId next) const {
  // Every counted transition has exactly one target, so the column sums add
  // up to the number of transitions: the unigram's N is T.
  const double numerator = static_cast<double>(unigram_count(next)) + alpha_;
  return numerator / (static_cast<double>(fitted_transitions_) +
                      alpha_ * static_cast<double>(vocabulary_size_));
}
// endregion: unigram-reading

// --- Sampling ---------------------------------------------------------------------

// region: bigram-sampling
TokenId BigramModel::sample_next_token(TokenId from, double unit) const {
  const std::span<const std::uint64_t> row = counts_row(from);
  if (!(unit >= 0.0 && unit < 1.0))
    throw BigramError(BigramErrorKind::InvalidDraw,
                      {.vocabulary_size = vocabulary_size_, .alpha = unit});
  // Walk the row's add-alpha masses in ID order until they pass the point the
  // draw picks on [0, N + alpha * V): each token owns an interval as long as
  // its mass, so it is chosen with exactly its smoothed probability.
  const double point = unit * smoothing_denominator(from);
  double cumulative = 0.0;
  for (std::size_t next = 0; next < row.size(); ++next) {
    cumulative += static_cast<double>(row[next]) + alpha_;
    if (point < cumulative) return static_cast<TokenId>(next);
  }
  return static_cast<TokenId>(row.size() - 1);  // the sum fell short of N + alpha * V by rounding
}
// endregion: bigram-sampling

// region: bigram-writing
std::vector<TokenId> sample_bigram_sequence(const BigramModel& model, TokenId start, TokenId stop,
                                            std::size_t max_tokens, SplitMix64& generator) {
  (void)model.count(start, stop);  // checks both IDs before the first draw
  std::vector<TokenId> drawn;
  TokenId previous = start;
  while (drawn.size() < max_tokens) {
    previous = model.sample_next_token(previous, generator.next_unit());
    drawn.push_back(previous);
    if (previous == stop) break;
  }
  return drawn;
}
// endregion: bigram-writing

}  // namespace llm
