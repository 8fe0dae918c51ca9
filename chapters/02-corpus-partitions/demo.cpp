// Chapter 2 demo: loads the book's corpus and frozen split, audits the
// partitions, and shows why overlapping excerpts are the wrong unit to
// split. With --trace PATH it also writes every document card, the audit of
// a faulty six-document split and its repair, and the typed error of each
// invariant broken once in a copy of the book's manifest.
#include <exception>
#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "audit.hpp"
#include "book_corpus.hpp"
#include "demo_lists.hpp"
#include "demo_trace.hpp"
#include "excerpts.hpp"
#include "llm/text/corpus.hpp"
#include "llm/text/text_units.hpp"

namespace {

using demo::Json;
using llm::Corpus;
using llm::CorpusError;
using llm::CorpusPartitions;
using llm::Partition;
using llm::SplitManifest;

const char* yes_no(bool value) {
  return value ? "yes" : "no";
}

Json audit_json(const ch02::SplitAudit& audit) {
  return {{"missing", audit.missing},           {"train_validation", audit.overlaps[0]},
          {"train_test", audit.overlaps[1]},    {"validation_test", audit.overlaps[2]},
          {"split_groups", audit.split_groups}, {"complete", audit.complete()},
          {"disjoint", audit.disjoint()},       {"provenance_intact", audit.provenance_intact()}};
}

Json error_json(const CorpusError& error) {
  return {{"kind", error.kind_name()}, {"message", error.what()}};
}

// The worked audit: six documents doc-01 ... doc-06 (each its own provenance
// group), a tempting split that lists doc-04 twice and forgets doc-06, and
// its repair. The plain set audit finds both faults; the validator stops at
// the first one it checks.
Json worked_audit_json() {
  std::string json = "[";
  for (int n = 1; n <= 6; ++n) {
    const std::string id = "doc-0" + std::to_string(n);
    json += std::string(n == 1 ? "" : ",") + R"({"id":")" + id +
            R"(","language":"en","provenance_group":"group-0)" + std::to_string(n) +
            R"(","text":"Document number )" + std::to_string(n) + R"(."})";
  }
  const Corpus corpus = Corpus::from_json(json + "]");
  const std::vector<std::pair<std::string, ch02::SplitLists>> splits = {
      {"tempting", {{{"doc-01", "doc-02"}, {"doc-03", "doc-04"}, {"doc-04", "doc-05"}}}},
      {"repaired", {{{"doc-01", "doc-02"}, {"doc-03", "doc-04"}, {"doc-05", "doc-06"}}}},
  };
  Json entries = Json::array();
  for (const auto& [name, lists] : splits) {
    const SplitManifest manifest(llm::kSplitSchemaVersion, corpus.checksum(),
                                 std::string(llm::kSplitStrategy), lists[0], lists[1], lists[2]);
    Json error = nullptr;
    try {
      manifest.partition(corpus);
    } catch (const CorpusError& rejected) {
      error = error_json(rejected);
    }
    entries.push_back({{"name", name},
                       {"train", lists[0]},
                       {"validation", lists[1]},
                       {"test", lists[2]},
                       {"audit", audit_json(ch02::audit_split(corpus, lists))},
                       {"error", error}});
  }
  return entries;
}

// Each invariant of the split broken once in a copy of the book's manifest,
// with the typed error the validator reports.
Json broken_manifests_json(const Corpus& corpus, const SplitManifest& book) {
  using Lists = ch02::SplitLists;
  const Lists valid = {book.ids(Partition::Train), book.ids(Partition::Validation),
                       book.ids(Partition::Test)};
  struct Mutation {
    std::string change;
    std::function<void(Lists&, std::string&)> apply;
  };
  const std::vector<Mutation> mutations = {
      {"record another corpus checksum",
       [](Lists&, std::string& sum) { sum = "fnv1a64:0000000000000000"; }},
      {"empty the test partition", [](Lists& l, std::string&) { l[2].clear(); }},
      {"list an id the corpus lacks", [](Lists& l, std::string&) { l[2].back() = "ru-orchard"; }},
      {"list a training document in validation too",
       [](Lists& l, std::string&) { l[1].insert(l[1].begin(), l[0][0]); }},
      {"swap the first two training ids",
       [](Lists& l, std::string&) { std::swap(l[0][0], l[0][1]); }},
      {"drop the last test document", [](Lists& l, std::string&) { l[2].pop_back(); }},
      {"move one validation document to test",
       [](Lists& l, std::string&) { l[2].insert(l[2].begin(), l[1].back()), l[1].pop_back(); }},
  };
  Json entries = Json::array();
  for (const Mutation& mutation : mutations) {
    Lists lists = valid;
    std::string checksum = book.corpus_checksum();
    mutation.apply(lists, checksum);
    const SplitManifest broken(book.schema_version(), checksum, book.strategy(), lists[0], lists[1],
                               lists[2]);
    try {
      broken.partition(corpus);
      throw std::logic_error("the mutation '" + mutation.change + "' was accepted");
    } catch (const CorpusError& error) {
      Json entry = error_json(error);
      entry["change"] = mutation.change;
      entries.push_back(entry);
    }
  }
  return entries;
}

// The checksum the corpus would have with one space added at the end of the
// first document's text (the page's second try-it edit).
std::string checksum_with_one_more_space(std::string_view corpus_json) {
  std::string edited(corpus_json);
  const std::string key = "\"text\": \"";
  std::size_t end = edited.find(key);
  if (end == std::string::npos) throw std::logic_error("the corpus file has no \"text\": field");
  end += key.size();
  while (edited.at(end) != '"') end += edited[end] == '\\' ? 2 : 1;  // skip escaped characters
  edited.insert(end, " ");
  return Corpus::from_json(edited).checksum();
}

Json partitions_json(const CorpusPartitions& partitions) {
  Json result = Json::object();
  for (Partition partition : llm::kPartitions) {
    Json documents = Json::array();
    for (const llm::Document& document : partitions.documents(partition)) {
      documents.push_back({{"id", document.id},
                           {"language", document.language},
                           {"provenance_group", document.provenance_group},
                           {"bytes", document.text.size()},
                           {"scalars", llm::unicode_scalars(document.text).size()}});
    }
    result[std::string(llm::partition_label(partition))] = documents;
  }
  return result;
}

}  // namespace

// region: chapter-output
int main(int argc, char** argv) try {
  const auto trace_path = demo::trace_path(argc, argv);
  // region: load-and-partition
  const Corpus corpus = Corpus::from_json(book_corpus::corpus_json());
  const SplitManifest manifest = SplitManifest::from_json(book_corpus::split_manifest_json());
  const CorpusPartitions partitions = manifest.partition(corpus);  // every check, or an error
  // endregion: load-and-partition

  std::cout << "corpus checksum: " << corpus.checksum() << '\n';
  std::cout << "documents: " << corpus.documents().size() << '\n';
  for (Partition partition : llm::kPartitions) {
    std::cout << llm::partition_label(partition) << ": "
              << demo::quoted_list(partitions.document_ids(partition)) << '\n';
  }
  // An independent audit of the accepted split with plain set operations.
  const ch02::SplitAudit audit = ch02::audit_split(corpus, ch02::split_lists(partitions));
  std::cout << "complete: " << yes_no(audit.complete()) << '\n';
  std::cout << "disjoint: " << yes_no(audit.disjoint()) << '\n';
  std::cout << "provenance groups intact: " << yes_no(audit.provenance_intact()) << '\n';

  const auto excerpts = ch02::overlapping_word_windows("north star glows softly", 3);
  std::cout << "historical excerpt A: " << demo::quoted_list(excerpts[0]) << '\n';
  std::cout << "historical excerpt B: " << demo::quoted_list(excerpts[1]) << '\n';
  std::cout << "shared context: " << demo::quoted_list(ch02::shared_words(excerpts[0], excerpts[1]))
            << '\n';
  std::cout << "safe split unit: whole source document\n";
  std::cout << "chapter 3 tokenizer input: train only (" << partitions.training_documents().size()
            << " documents)\n";
  std::cout << "held out: validation=" << partitions.documents(Partition::Validation).size()
            << " test=" << partitions.documents(Partition::Test).size() << '\n';

  demo::write_trace(trace_path, {{"checksum", corpus.checksum()},
                                 {"strategy", partitions.strategy()},
                                 {"partitions", partitions_json(partitions)},
                                 {"audit", audit_json(audit)},
                                 {"worked_audit", worked_audit_json()},
                                 {"broken_manifests", broken_manifests_json(corpus, manifest)},
                                 {"checksum_with_one_more_space",
                                  checksum_with_one_more_space(book_corpus::corpus_json())}});
  return 0;
} catch (const std::exception& error) {
  std::cerr << "chapter 2 demo failed: " << error.what() << '\n';
  return 1;
}
// endregion: chapter-output
