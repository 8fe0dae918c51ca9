// Chapter 7 demo: mean NLL and perplexity of the fixed examples (two assigned
// probabilities, the perfect and uniform anchors, an impossible target, an
// empty request, unequal documents, a shared argmax, an underflowing
// product), then of one bigram model fitted on the book's training documents
// and scored, unchanged, on training and on validation; then the baseline
// later chapters must beat: the unigram reading, alpha chosen on validation,
// and the tuned model opened once on test. With --trace PATH it writes the
// same values, the whole alpha sweep and seeded samples for the figures.
#include <cmath>
#include <exception>
#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "corpus_scores.hpp"
#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"

namespace {

using llm::format_fixed;
using llm::LanguageModelMetrics;

/// `[0.500, 0.250]`: probabilities with three decimals.
std::string probabilities_text(const std::vector<double>& values) {
  std::string text = "[";
  for (std::size_t k = 0; k < values.size(); ++k) {
    text += (k == 0 ? "" : ", ") + format_fixed(values[k], 3);
  }
  return text + "]";
}

/// `mean_nll=... perplexity=...` with twelve decimals.
std::string mean_and_perplexity(double mean_nll, double perplexity) {
  return "mean_nll=" + format_fixed(mean_nll) + " perplexity=" + format_fixed(perplexity);
}

std::string mean_and_perplexity(const LanguageModelMetrics& metrics) {
  return mean_and_perplexity(metrics.mean_nll(), metrics.perplexity());
}

/// The fixed examples, computed once and shared by the output and the trace.
struct FixedExamples {
  ch07::TinyExample tiny;
  ch07::ScaleAnchors anchors;
  ch07::EdgeCases edges;
  ch07::DocumentWeighting weighting;
  ch07::SameArgmax argmax;
  ch07::Underflow underflow;
};

// region: learner-output
void print_fixed_examples(const FixedExamples& e) {
  const LanguageModelMetrics& tiny = e.tiny.metrics;
  std::cout << "tiny assigned probabilities: " << probabilities_text(e.tiny.probabilities) << '\n';
  std::cout << "tiny total surprise: " << format_fixed(tiny.total_nll()) << '\n';
  std::cout << "tiny target count: " << tiny.target_count() << '\n';
  std::cout << "tiny mean NLL: " << format_fixed(tiny.mean_nll()) << " nats/target\n";
  std::cout << "tiny perplexity: " << format_fixed(tiny.perplexity()) << '\n';
  std::cout << "perfect: " << mean_and_perplexity(e.anchors.perfect) << '\n';
  std::cout << "uniform vocabulary=" << e.anchors.uniform_vocabulary << ": "
            << mean_and_perplexity(e.anchors.uniform) << '\n';
  std::cout << "impossible " << probabilities_text(e.edges.impossible_probabilities) << ": "
            << mean_and_perplexity(e.edges.impossible) << '\n';
  std::cout << "empty input: error=" << e.edges.empty_message << '\n';
  std::cout << "weighted documents: targets=" << e.weighting.pooled.target_count() << ' '
            << mean_and_perplexity(e.weighting.pooled) << '\n';
  std::cout << "equal document means (wrong): "
            << mean_and_perplexity(e.weighting.mean_of_document_means,
                                   e.weighting.perplexity_of_document_means)
            << '\n';
  if (e.argmax.q_argmax != e.argmax.r_argmax) {
    throw std::logic_error("the two distributions of the argmax example must share their argmax");
  }
  std::cout << "same argmax=" << e.argmax.symbols[e.argmax.q_argmax]
            << " target=" << e.argmax.symbols[e.argmax.target]
            << ": q_nll=" << format_fixed(e.argmax.q_nll)
            << " r_nll=" << format_fixed(e.argmax.r_nll)
            << " lower=" << (e.argmax.q_nll < e.argmax.r_nll ? "q" : "r") << '\n';
  std::cout << e.underflow.factors
            << " halves: raw_product=" << llm::format_scientific(e.underflow.raw_product, 3)
            << " log_total_finite="
            << (std::isfinite(e.underflow.metrics.total_nll()) ? "true" : "false") << '\n';
}
// endregion: learner-output

/// `[a, b, c]`: document ids as the demo prints them.
std::string ids_text(const std::vector<llm::EncodedDocument>& documents) {
  std::string text = "[";
  for (std::size_t k = 0; k < documents.size(); ++k) text += (k == 0 ? "" : ", ") + documents[k].id;
  return text + "]";
}

/// The corpus part: provenance, the fit, both scores and the target policy.
struct CorpusEvidence {
  ch07::FrozenMetricFixture fixture;
  std::vector<llm::PartitionScore> scores;  ///< one per llm::kScoredPartitions entry
  ch07::BoundaryEvidence boundary;
  llm::PartitionScore unigram;  ///< the add-one table without context, on validation
  ch07::BaselineEvidence baseline;
};

/// `[1.0, 0.5, ...]`: the candidate alphas in their shortest form.
std::string alphas_text(const std::vector<llm::SmoothingCandidate>& sweep) {
  std::string text = "[";
  for (std::size_t k = 0; k < sweep.size(); ++k) {
    text += (k == 0 ? "" : ", ") + llm::format_shortest(sweep[k].alpha);
  }
  return text + "]";
}

// region: learner-corpus-output
void print_corpus_evidence(const CorpusEvidence& e) {
  const ch07::FrozenMetricFixture& f = e.fixture;
  std::cout << "corpus checksum: " << f.corpus_checksum << '\n';
  std::cout << "split strategy: " << f.split_strategy << '\n';
  std::cout << "tokenizer: layout=" << f.tokenizer_layout
            << " requested_merges=" << f.requested_merges << " learned_merges=" << f.learned_merges
            << " vocabulary=" << f.vocabulary_size
            << " statistics=" << (f.merges_learned_from_train_only ? "train" : "not-train-only")
            << '\n';
  std::cout << "model: alpha=" << format_fixed(f.model.alpha())
            << " fitted_documents=" << f.model.fitted_documents()
            << " fitted_transitions=" << f.model.fitted_transitions() << " source=train\n";
  std::string scored;
  for (llm::ScoredPartition partition : llm::kScoredPartitions) {
    scored += (scored.empty() ? "" : ",") + std::string(llm::scored_partition_label(partition));
  }
  std::cout << "scored partitions: " << scored
            << (e.boundary.test_selectable ? " (test selectable)" : " (test unavailable)") << '\n';
  for (const llm::PartitionScore& score : e.scores) {
    const std::string_view name = llm::scored_partition_label(score.partition);
    const LanguageModelMetrics& m = score.metrics;
    std::cout << name << " documents: "
              << ids_text(f.encoded.documents(llm::corpus_partition(score.partition))) << '\n';
    std::cout << name << ": documents=" << score.document_count << " targets=" << m.target_count()
              << " total_surprise=" << format_fixed(m.total_nll()) << ' ' << mean_and_perplexity(m)
              << '\n';
  }
  const llm::BigramBaseline& tuned = e.baseline.baseline;
  const std::string tuned_alpha = format_fixed(tuned.model.alpha());
  std::cout << "unigram alpha=" << format_fixed(f.model.alpha())
            << " validation: targets=" << e.unigram.metrics.target_count() << ' '
            << mean_and_perplexity(e.unigram.metrics) << '\n';
  std::cout << "alpha chosen on validation: " << llm::format_shortest(tuned.model.alpha())
            << " from " << alphas_text(tuned.sweep) << '\n';
  std::cout << "tuned bigram alpha=" << tuned_alpha
            << " validation: targets=" << tuned.validation.metrics.target_count() << ' '
            << mean_and_perplexity(tuned.validation.metrics) << '\n';
  std::cout << "tuned bigram alpha=" << tuned_alpha
            << " test, opened once after the choice: documents=" << e.baseline.test_documents
            << " targets=" << e.baseline.test.target_count() << ' '
            << mean_and_perplexity(e.baseline.test) << '\n';
  std::cout << "target policy: BOS=" << (e.boundary.bos_target ? "target" : "context-only")
            << " EOS=" << (e.boundary.eos_target ? "target" : "not-always-target")
            << " documents=" << (e.boundary.cross_document ? "joined" : "separate") << '\n';
  std::cout << "chapter 8 handoff: flat tensor storage and indexing\n";
}
// endregion: learner-corpus-output

// --- The trace -----------------------------------------------------------------

using demo::Json;
using demo::number_json;

Json metrics_json(const LanguageModelMetrics& metrics) {
  return {{"total_nll", number_json(metrics.total_nll())},
          {"target_count", metrics.target_count()},
          {"mean_nll", number_json(metrics.mean_nll())},
          {"perplexity", number_json(metrics.perplexity())}};
}

Json fixed_examples_json(const FixedExamples& e) {
  Json targets = Json::array();
  for (std::size_t index = 0; index < e.tiny.probabilities.size(); ++index) {
    targets.push_back({{"index", index},
                       {"probability", e.tiny.probabilities[index]},
                       {"nll", e.tiny.per_target[index].total_nll()}});
  }
  return {
      {"tiny", {{"targets", targets}, {"metrics", metrics_json(e.tiny.metrics)}}},
      {"perfect", metrics_json(e.anchors.perfect)},
      {"uniform",
       {{"vocabulary", e.anchors.uniform_vocabulary},
        {"metrics", metrics_json(e.anchors.uniform)}}},
      {"impossible",
       {{"probabilities", e.edges.impossible_probabilities},
        {"metrics", metrics_json(e.edges.impossible)}}},
      {"empty", {{"kind", e.edges.empty_kind}, {"message", e.edges.empty_message}}},
      {"weighting",
       {{"documents", e.weighting.documents},
        {"pooled", metrics_json(e.weighting.pooled)},
        {"document_means", e.weighting.document_means},
        {"mean_of_document_means", e.weighting.mean_of_document_means},
        {"perplexity_of_document_means", e.weighting.perplexity_of_document_means}}},
      {"argmax",
       {{"symbols", e.argmax.symbols},
        {"q", e.argmax.q},
        {"r", e.argmax.r},
        {"target", e.argmax.target},
        {"argmax", e.argmax.q_argmax},
        {"q_nll", e.argmax.q_nll},
        {"r_nll", e.argmax.r_nll}}},
      {"underflow",
       {{"factors", e.underflow.factors},
        {"raw_product", e.underflow.raw_product},
        {"metrics", metrics_json(e.underflow.metrics)}}},
  };
}

Json corpus_json(const CorpusEvidence& e) {
  const ch07::FrozenMetricFixture& f = e.fixture;
  Json partitions = Json::array();
  for (const llm::PartitionScore& score : e.scores) {
    Json ids = Json::array();
    for (const auto& document : f.encoded.documents(llm::corpus_partition(score.partition))) {
      ids.push_back(document.id);
    }
    partitions.push_back({{"name", llm::scored_partition_label(score.partition)},
                          {"document_ids", ids},
                          {"documents", score.document_count},
                          {"targets", score.metrics.target_count()},
                          {"total_nll", score.metrics.total_nll()},
                          {"mean_nll", score.metrics.mean_nll()},
                          {"perplexity", score.metrics.perplexity()}});
  }
  Json documents = Json::array();
  for (const ch07::DocumentScore& score : ch07::document_scores(f)) {
    documents.push_back({{"id", score.id},
                         {"partition", llm::scored_partition_label(score.partition)},
                         {"targets", score.metrics.target_count()},
                         {"mean_nll", score.metrics.mean_nll()}});
  }
  const ch07::BaselineEvidence& b = e.baseline;
  Json sweep = Json::array();
  for (const llm::SmoothingCandidate& candidate : b.baseline.sweep) {
    sweep.push_back({{"alpha", candidate.alpha},
                     {"train", metrics_json(candidate.train)},
                     {"validation", metrics_json(candidate.validation)},
                     {"unigram_validation", metrics_json(candidate.unigram_validation)}});
  }
  const auto samples_json = [](const std::vector<ch07::Sample>& samples) {
    Json list = Json::array();
    for (const ch07::Sample& sample : samples) {
      list.push_back({{"seed", sample.seed},
                      {"tokens", sample.tokens},
                      {"visible", sample.visible},
                      {"escaped_bytes", sample.escaped_bytes},
                      {"unseen_transitions", sample.unseen_transitions}});
    }
    return list;
  };
  Json baseline = {
      {"sweep", sweep},
      {"chosen", b.baseline.chosen},
      {"alpha", b.baseline.model.alpha()},
      {"validation", metrics_json(b.baseline.validation.metrics)},
      {"test", {{"documents", b.test_documents}, {"metrics", metrics_json(b.test)}}},
      {"add_one_unigram_validation", metrics_json(e.unigram.metrics)},
      {"ids_in_training", b.ids_in_training},
      {"add_one_pseudocount_share", b.add_one_pseudocount_share},
      {"sample_tokens", ch07::kSampleTokens},
      {"samples",
       {{"add_one", samples_json(b.add_one_samples)}, {"tuned", samples_json(b.tuned_samples)}}}};
  return {{"checksum", f.corpus_checksum},
          {"split_strategy", f.split_strategy},
          {"tokenizer",
           {{"layout", f.tokenizer_layout},
            {"requested_merges", f.requested_merges},
            {"learned_merges", f.learned_merges},
            {"vocabulary", f.vocabulary_size}}},
          {"model",
           {{"alpha", f.model.alpha()},
            {"fitted_documents", f.model.fitted_documents()},
            {"fitted_transitions", f.model.fitted_transitions()}}},
          {"partitions", partitions},
          {"documents", documents},
          {"boundary",
           {{"bos_target", e.boundary.bos_target},
            {"eos_target", e.boundary.eos_target},
            {"cross_document", e.boundary.cross_document},
            {"test_selectable", e.boundary.test_selectable}}},
          {"baseline", baseline}};
}

}  // namespace

// region: demo-main
int main(int argc, char** argv) {
  try {
    const auto trace = demo::trace_path(argc, argv);
    const FixedExamples examples{ch07::tiny_example(), ch07::scale_anchors(),
                                 ch07::edge_cases(),   ch07::document_weighting(),
                                 ch07::same_argmax(),  ch07::underflow()};
    ch07::FrozenMetricFixture fixture = ch07::frozen_metric_fixture();
    std::vector<llm::PartitionScore> scores;
    for (llm::ScoredPartition partition : llm::kScoredPartitions) {
      scores.push_back(llm::score_bigram_partition(fixture.model, fixture.encoded, partition));
    }
    const ch07::BoundaryEvidence boundary = ch07::boundary_evidence(fixture.encoded);
    const llm::PartitionScore unigram = llm::score_unigram_partition(
        fixture.model, fixture.encoded, llm::ScoredPartition::Validation);
    ch07::BaselineEvidence baseline = ch07::baseline_evidence(fixture);
    const CorpusEvidence corpus{std::move(fixture), std::move(scores), boundary, unigram,
                                std::move(baseline)};

    print_fixed_examples(examples);
    print_corpus_evidence(corpus);
    demo::write_trace(trace,
                      {{"fixed", fixed_examples_json(examples)}, {"corpus", corpus_json(corpus)}});
    return 0;
  } catch (const std::exception& error) {
    std::cerr << "chapter 7 demo failed: " << error.what() << '\n';
    return 1;
  }
}
// endregion: demo-main
