// Chapter 6 demo: fits the bigram model of the worked example, prints the
// count, maximum-likelihood and add-one rows of a seen context (A) and of a
// context never followed by anything (C), and the transition that joining the
// documents would invent. With --trace PATH it also writes the whole count
// table, both rows, the joined-sequence contrast and the rejected requests.
#include <cstdint>
#include <exception>
#include <functional>
#include <iostream>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"
#include "llm/models/bigram.hpp"

namespace {

using llm::BigramModel;
using llm::TokenId;

/// `[0, 2, 2, 3, 1]`: token IDs or counts as the demo prints them.
template <class Integer>
std::string integers_text(std::span<const Integer> values) {
  std::string text = "[";
  for (std::size_t k = 0; k < values.size(); ++k) {
    text += (k == 0 ? "" : ", ") + std::to_string(values[k]);
  }
  return text + "]";
}

/// `[0.125, 0.125, ...]`: probabilities with three decimals.
std::string probabilities_text(const std::vector<double>& values) {
  std::string text = "[";
  for (std::size_t k = 0; k < values.size(); ++k) {
    text += (k == 0 ? "" : ", ") + llm::format_fixed(values[k], 3);
  }
  return text + "]";
}

/// `EOS(1)`: a token by its symbol and ID.
std::string token_text(TokenId token) {
  return ch06::kSymbols[token] + "(" + std::to_string(token) + ")";
}

// region: learner-output
void print_row(const BigramModel& model, TokenId context) {
  const std::string& name = ch06::kSymbols[context];
  std::cout << name << " counts: " << integers_text(model.counts_row(context))
            << " total=" << model.row_total(context) << '\n';
  const std::optional<std::vector<double>> mle = model.maximum_likelihood_distribution(context);
  std::cout << name << " MLE: " << (mle ? probabilities_text(*mle) : "undefined") << '\n';
  std::cout << name << " add-alpha: " << probabilities_text(model.smoothed_distribution(context))
            << " denominator=" << llm::format_fixed(model.smoothing_denominator(context), 0)
            << '\n';
}

void print_evidence(const std::vector<std::vector<TokenId>>& documents, const BigramModel& model,
                    const std::vector<ch06::Transition>& invented) {
  std::cout << "tokens:";
  for (TokenId id = 0; id < ch06::kSymbols.size(); ++id) {
    std::cout << ' ' << ch06::kSymbols[id] << '=' << id;
  }
  std::cout << '\n';
  std::cout << "alpha: " << llm::format_fixed(model.alpha(), 1) << '\n';
  for (std::size_t d = 0; d < documents.size(); ++d) {
    std::cout << "training document d" << d + 1 << ": "
              << integers_text(std::span<const TokenId>(documents[d])) << '\n';
  }
  std::cout << "counted transitions: " << model.fitted_transitions() << '\n';
  print_row(model, ch06::kA);
  std::cout << "unseen successor A->C: MLE="
            << llm::format_fixed(*model.maximum_likelihood_probability(ch06::kA, ch06::kC), 3)
            << " add-alpha=" << llm::format_fixed(model.smoothed_probability(ch06::kA, ch06::kC), 3)
            << '\n';
  print_row(model, ch06::kC);
  std::cout << "flattening would invent:";
  for (const ch06::Transition& transition : invented) {
    std::cout << (&transition == &invented.front() ? " " : ", ") << token_text(transition.from)
              << "->" << token_text(transition.to);
  }
  std::cout << '\n';
}
// endregion: learner-output

// --- The trace -----------------------------------------------------------------

using demo::Json;

/// Each token's role: a boundary token, a content token seen in training,
/// or a token of the vocabulary that no training document contains.
std::string role_of(TokenId token, const std::vector<std::vector<TokenId>>& documents) {
  if (token == ch06::kBos || token == ch06::kEos) return "boundary";
  for (const std::vector<TokenId>& document : documents) {
    for (TokenId seen : document) {
      if (seen == token) return "content";
    }
  }
  return "unseen";
}

Json row_json(const BigramModel& model, TokenId context) {
  const std::span<const std::uint64_t> counts = model.counts_row(context);
  Json numerators = Json::array();
  for (std::uint64_t count : counts)
    numerators.push_back(static_cast<double>(count) + model.alpha());
  const std::vector<double> smoothed = model.smoothed_distribution(context);
  double smoothed_sum = 0.0;
  for (double probability : smoothed) smoothed_sum += probability;
  const std::optional<std::vector<double>> mle = model.maximum_likelihood_distribution(context);
  return {{"context", context},
          {"symbol", ch06::kSymbols[context]},
          {"counts", std::vector<std::uint64_t>(counts.begin(), counts.end())},
          {"total", model.row_total(context)},
          {"pseudocount", model.alpha()},
          {"numerators", numerators},
          {"denominator", model.smoothing_denominator(context)},
          {"mle", mle ? Json(*mle) : Json(nullptr)},
          {"smoothed", smoothed},
          {"smoothed_sum", smoothed_sum},
          {"most_likely", model.most_likely_next_tokens(context)}};
}

/// A request the model must refuse, with the kind and message it gave.
Json rejected(const std::string& request, const std::function<void()>& call) {
  try {
    call();
  } catch (const llm::BigramError& error) {
    return {{"request", request}, {"kind", error.kind_name()}, {"message", error.what()}};
  }
  throw std::logic_error("the request '" + request + "' was accepted but must be refused");
}

Json trace_json(const std::vector<std::vector<TokenId>>& documents, const BigramModel& model,
                const std::vector<ch06::Transition>& invented) {
  const std::size_t vocabulary = model.vocabulary_size();
  Json tokens = Json::array();
  for (TokenId id = 0; id < vocabulary; ++id) {
    tokens.push_back(
        {{"id", id}, {"symbol", ch06::kSymbols[id]}, {"role", role_of(id, documents)}});
  }
  Json documents_json = Json::array();
  for (std::size_t d = 0; d < documents.size(); ++d) {
    Json transitions = Json::array();
    for (std::size_t t = 0; t + 1 < documents[d].size(); ++t) {
      transitions.push_back({documents[d][t], documents[d][t + 1]});
    }
    documents_json.push_back({{"name", "d" + std::to_string(d + 1)},
                              {"tokens", documents[d]},
                              {"transitions", transitions}});
  }
  Json counts = Json::array();
  Json row_totals = Json::array();
  Json swapped_a = Json::array();  // column A: what row A would be with i and j swapped
  for (TokenId from = 0; from < vocabulary; ++from) {
    const std::span<const std::uint64_t> row = model.counts_row(from);
    counts.push_back(std::vector<std::uint64_t>(row.begin(), row.end()));
    row_totals.push_back(model.row_total(from));
    swapped_a.push_back(model.count(from, ch06::kA));
  }
  Json invented_json = Json::array();
  for (const ch06::Transition& transition : invented) {
    invented_json.push_back({{"from", transition.from},
                             {"to", transition.to},
                             {"separate", transition.separate_count},
                             {"joined", transition.joined_count}});
  }
  const std::vector<TokenId> one_sequence = ch06::joined(documents);
  const std::vector<std::vector<TokenId>> outside_vocabulary = {{ch06::kA, 5}};
  Json errors = Json::array();
  errors.push_back(rejected("fit with V = 0", [&] { BigramModel::fit(0, 1.0, documents); }));
  errors.push_back(
      rejected("fit with alpha = 0", [&] { BigramModel::fit(vocabulary, 0.0, documents); }));
  errors.push_back(rejected("fit a document holding ID 5",
                            [&] { BigramModel::fit(vocabulary, 1.0, outside_vocabulary); }));
  errors.push_back(rejected("smoothed probability after ID 5",
                            [&] { (void)model.smoothed_probability(5, ch06::kA); }));
  return {
      {"vocabulary", tokens},
      {"alpha", model.alpha()},
      {"documents", documents_json},
      {"fitted_documents", model.fitted_documents()},
      {"fitted_transitions", model.fitted_transitions()},
      {"counts", counts},
      {"row_totals", row_totals},
      {"rows", {row_json(model, ch06::kA), row_json(model, ch06::kB), row_json(model, ch06::kC)}},
      {"swapped_row_a", swapped_a},
      {"joined",
       {{"tokens", one_sequence}, {"pairs", one_sequence.size() - 1}, {"invented", invented_json}}},
      {"errors", errors}};
}

}  // namespace

// region: demo-main
int main(int argc, char** argv) {
  try {
    const auto trace = demo::trace_path(argc, argv);
    const std::vector<std::vector<TokenId>> documents = ch06::training_documents();
    const BigramModel model = ch06::fitted_model();
    const std::vector<ch06::Transition> invented = ch06::transitions_invented_by_joining(documents);

    print_evidence(documents, model, invented);
    demo::write_trace(trace, trace_json(documents, model, invented));
    return 0;
  } catch (const std::exception& error) {
    std::cerr << "chapter 6 demo failed: " << error.what() << '\n';
    return 1;
  }
}
// endregion: demo-main
