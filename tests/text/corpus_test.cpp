// Chapter 2: corpus loading, the FNV-1a checksum, the frozen partitions, and
// every invariant of the corpus and the split violated once, each with its
// typed error naming the document.
#include "llm/text/corpus.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "book_corpus.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

using testing::capture_error;

// Three translated pairs, one per partition.
const std::string kSixDocuments = R"([
  {"id":"en-one","language":"en","provenance_group":"pair-one","text":"One."},
  {"id":"ru-one","language":"ru","provenance_group":"pair-one","text":"Один."},
  {"id":"en-two","language":"en","provenance_group":"pair-two","text":"Two."},
  {"id":"ru-two","language":"ru","provenance_group":"pair-two","text":"Два."},
  {"id":"en-three","language":"en","provenance_group":"pair-three","text":"Three."},
  {"id":"ru-three","language":"ru","provenance_group":"pair-three","text":"Три."}
])";

const std::string kOneDocument =
    R"([{"id":"en-one","language":"en","provenance_group":"pair-one","text":"One."}])";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

SplitManifest valid_manifest(const Corpus& corpus) {
  return SplitManifest(1, corpus.checksum(), std::string(kSplitStrategy), {"en-one", "ru-one"},
                       {"en-two", "ru-two"}, {"en-three", "ru-three"});
}

CorpusError corpus_error(const std::string& json) {
  return *capture_error<CorpusError>([&] { Corpus::from_json(json); });
}

CorpusError partition_error(const SplitManifest& manifest, const Corpus& corpus) {
  return *capture_error<CorpusError>([&] { manifest.partition(corpus); });
}

TEST(Corpus, LoadsDocumentsInFileOrderWithTheChecksumOfTheBytes) {
  const Corpus corpus = Corpus::from_json(kSixDocuments);
  ASSERT_EQ(corpus.documents().size(), 6u);
  EXPECT_EQ(corpus.documents()[1], (Document{"ru-one", "ru", "pair-one", "Один."}));
  EXPECT_EQ(corpus.document("en-two")->text, "Two.");
  EXPECT_EQ(corpus.document("ghost"), nullptr);
  EXPECT_EQ(corpus.checksum().substr(0, 8), "fnv1a64:");
  // Same JSON value, different bytes: a different checksum.
  EXPECT_NE(Corpus::from_json(kSixDocuments + "\n").checksum(), corpus.checksum());
}

TEST(Corpus, Fnv1a64MatchesPublishedValues) {
  const auto hash = [](std::string_view text) {
    return fnv1a64({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
  };
  EXPECT_EQ(hash(""), 0xcbf29ce484222325ULL);  // the offset basis
  EXPECT_EQ(hash("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(hash("hello"), 0xa430d84680aabd0bULL);
}

TEST(Corpus, RejectsTextThatIsNotJson) {
  for (const std::string& json :
       {std::string("["), kOneDocument + " trailing", std::string("[{\"id\": \"\xFF\"}]")}) {
    const CorpusError error = corpus_error(json);
    EXPECT_EQ(error.kind(), CorpusErrorKind::InvalidJson) << json;
    EXPECT_EQ(error.source(), "corpus");
  }
}

TEST(Corpus, RejectsMissingUnknownRepeatedAndMistypedFieldsNamingTheDocument) {
  const std::string second =
      R"({"id":"ru-one","language":"ru","provenance_group":"pair-one","text":"Один."})";
  const std::string two =
      "[" + kOneDocument.substr(1, kOneDocument.size() - 2) + "," + second + "]";
  const struct {
    std::string json;
    std::size_t position;
    std::string field;
  } cases[] = {
      {replaced(two, R"(,"text":"Один.")", ""), 2, "text"},
      {replaced(two, R"("text":"Один.")", R"("extra":true,"text":"Один.")"), 2, "extra"},
      {replaced(two, R"("id":"ru-one")", R"("id":"ru-one","id":"ru-two")"), 2, "id"},
      {replaced(two, R"("language":"ru")", R"("language":1)"), 2, "language"},
      {"{}", 0, ""},
      {"[1]", 1, ""},
  };
  for (const auto& c : cases) {
    const CorpusError error = corpus_error(c.json);
    EXPECT_EQ(error.kind(), CorpusErrorKind::InvalidField) << c.json;
    EXPECT_EQ(error.document_position(), c.position) << c.json;
    EXPECT_EQ(error.field(), c.field) << c.json;
  }
}

TEST(Corpus, RejectsAnEmptyCorpus) {
  EXPECT_EQ(corpus_error("[]").kind(), CorpusErrorKind::EmptyCorpus);
}

TEST(Corpus, RejectsEachIdentifierThatIsNotKebabCase) {
  const struct {
    std::string from, to, field, value;
  } cases[] = {
      {"\"en-one\"", "\"EN-one\"", "id", "EN-one"},
      {"\"en-one\"", "\"1-one\"", "id", "1-one"},
      {"\"en-one\"", "\"en--one\"", "id", "en--one"},
      {"\"en-one\"", "\"en-\"", "id", "en-"},
      {"\"language\":\"en\"", "\"language\":\"en_GB\"", "language", "en_GB"},
      {"\"pair-one\"", "\"pair one\"", "provenance_group", "pair one"},
  };
  for (const auto& c : cases) {
    const CorpusError error = corpus_error(replaced(kOneDocument, c.from, c.to));
    EXPECT_EQ(error.kind(), CorpusErrorKind::InvalidIdentifier) << c.to;
    EXPECT_EQ(error.document_position(), 1u);
    EXPECT_EQ(error.field(), c.field);
    EXPECT_EQ(error.actual(), c.value);
  }
}

TEST(Corpus, RejectsEmptyOrWhiteSpaceText) {
  // "\u3000" is the ideographic space: Unicode white space, not ASCII.
  for (const std::string text : {"", "  \\n\\t", "\\u3000"}) {
    const CorpusError error = corpus_error(replaced(kOneDocument, "One.", text));
    EXPECT_EQ(error.kind(), CorpusErrorKind::EmptyText) << text;
    EXPECT_EQ(error.document_id(), "en-one");
  }
}

TEST(Corpus, RejectsARepeatedIdAndARepeatedText) {
  const CorpusError id =
      corpus_error(replaced(kSixDocuments, "\"id\":\"en-two\"", "\"id\":\"en-one\""));
  EXPECT_EQ(id.kind(), CorpusErrorKind::DuplicateId);
  EXPECT_EQ(id.document_position(), 3u);
  EXPECT_EQ(id.document_id(), "en-one");

  const CorpusError text = corpus_error(replaced(kSixDocuments, "Two.", "One."));
  EXPECT_EQ(text.kind(), CorpusErrorKind::DuplicateText);
  EXPECT_EQ(text.document_id(), "en-two");
  EXPECT_EQ(text.other_document_id(), "en-one");
}

TEST(Corpus, AcceptsJsonEscapes) {
  const Corpus corpus = Corpus::from_json(replaced(kOneDocument, "\"en-one\"", "\"en\\u002done\""));
  EXPECT_EQ(corpus.documents()[0].id, "en-one");
}

TEST(SplitManifest, PartitionsWholeDocumentsInCorpusOrder) {
  const Corpus corpus = Corpus::from_json(kSixDocuments);
  const CorpusPartitions partitions = valid_manifest(corpus).partition(corpus);
  EXPECT_EQ(partitions.document_ids(Partition::Train),
            (std::vector<std::string>{"en-one", "ru-one"}));
  EXPECT_EQ(partitions.document_ids(Partition::Validation),
            (std::vector<std::string>{"en-two", "ru-two"}));
  EXPECT_EQ(partitions.document_ids(Partition::Test),
            (std::vector<std::string>{"en-three", "ru-three"}));
  EXPECT_EQ(partitions.training_documents()[1].text, "Один.");
  EXPECT_EQ(partitions.corpus_checksum(), corpus.checksum());
  EXPECT_EQ(partitions.strategy(), kSplitStrategy);
}

TEST(SplitManifest, ParsesTheDocumentedJsonAndRejectsOtherShapes) {
  const Corpus corpus = Corpus::from_json(kSixDocuments);
  const std::string json =
      R"({"schema_version":1,"corpus_checksum":")" + corpus.checksum() +
      R"(","strategy":"fixed-paired-document-holdout-v1","train":["en-one","ru-one"],)"
      R"("validation":["en-two","ru-two"],"test":["en-three","ru-three"]})";
  EXPECT_EQ(SplitManifest::from_json(json).partition(corpus).document_ids(Partition::Test).size(),
            2u);
  const struct {
    std::string json;
    CorpusErrorKind kind;
    std::string field;
  } cases[] = {
      {replaced(json, R"(,"test":["en-three","ru-three"])", ""), CorpusErrorKind::InvalidField,
       "test"},
      {replaced(json, "{", R"({"extra":true,)"), CorpusErrorKind::InvalidField, "extra"},
      {replaced(json, "{", R"({"schema_version":1,)"), CorpusErrorKind::InvalidField,
       "schema_version"},
      {replaced(json, R"("schema_version":1)", R"("schema_version":"1")"),
       CorpusErrorKind::InvalidField, "schema_version"},
      {replaced(json, R"("schema_version":1)", R"("schema_version":-1)"),
       CorpusErrorKind::InvalidField, "schema_version"},
      {replaced(json, R"(["en-two","ru-two"])", R"(["en-two",2])"), CorpusErrorKind::InvalidField,
       "validation"},
      {replaced(json, R"("schema_version":1)", R"("schema_version":01)"),
       CorpusErrorKind::InvalidJson, ""},
      {json + " trailing", CorpusErrorKind::InvalidJson, ""},
  };
  for (const auto& c : cases) {
    const auto error = capture_error<CorpusError>([&] { SplitManifest::from_json(c.json); });
    EXPECT_EQ(error->kind(), c.kind) << c.json;
    EXPECT_EQ(error->field(), c.field) << c.json;
    EXPECT_EQ(error->source(), "split manifest");
  }
}

TEST(SplitManifest, RejectsAnotherSchemaStrategyOrCorpus) {
  const Corpus corpus = Corpus::from_json(kSixDocuments);
  const SplitManifest valid = valid_manifest(corpus);
  const auto with = [&](std::uint64_t version, std::string checksum, std::string strategy) {
    return SplitManifest(version, std::move(checksum), std::move(strategy),
                         valid.ids(Partition::Train), valid.ids(Partition::Validation),
                         valid.ids(Partition::Test));
  };
  const CorpusError version = partition_error(with(2, corpus.checksum(), valid.strategy()), corpus);
  EXPECT_EQ(version.kind(), CorpusErrorKind::UnsupportedSchemaVersion);
  EXPECT_EQ(version.actual(), "2");
  const CorpusError strategy =
      partition_error(with(1, corpus.checksum(), "random-excerpts"), corpus);
  EXPECT_EQ(strategy.kind(), CorpusErrorKind::UnsupportedStrategy);
  EXPECT_EQ(strategy.actual(), "random-excerpts");
  const CorpusError checksum =
      partition_error(with(1, "fnv1a64:0000000000000000", valid.strategy()), corpus);
  EXPECT_EQ(checksum.kind(), CorpusErrorKind::ChecksumMismatch);
  EXPECT_EQ(checksum.expected(), "fnv1a64:0000000000000000");
  EXPECT_EQ(checksum.actual(), corpus.checksum());
}

TEST(SplitManifest, RejectsEveryPartitionInvariantNamingTheDocument) {
  const Corpus corpus = Corpus::from_json(kSixDocuments);
  const std::string sum = corpus.checksum();
  const std::string strategy(kSplitStrategy);
  using Ids = std::vector<std::string>;
  const struct {
    SplitManifest manifest;
    CorpusErrorKind kind;
    std::string document_id;
  } cases[] = {
      {{1, sum, strategy, {"en-one", "ru-one"}, {"en-two", "ru-two"}, Ids{}},
       CorpusErrorKind::EmptyPartition,
       ""},
      {{1, sum, strategy, {"en-one", "ru-one"}, {"en-two", "ru-two"}, {"en-three", "ghost"}},
       CorpusErrorKind::UnknownDocument,
       "ghost"},
      {{1,
        sum,
        strategy,
        {"en-one", "ru-one"},
        {"en-two", "ru-two"},
        {"en-one", "en-three", "ru-three"}},
       CorpusErrorKind::RepeatedDocument,
       "en-one"},
      {{1, sum, strategy, {"ru-one", "en-one"}, {"en-two", "ru-two"}, {"en-three", "ru-three"}},
       CorpusErrorKind::SourceOrder,
       "en-one"},
      {{1, sum, strategy, {"en-one", "ru-one"}, {"en-two", "ru-two"}, {"en-three"}},
       CorpusErrorKind::MissingDocument,
       "ru-three"},
      {{1, sum, strategy, {"en-one", "ru-one"}, {"en-two", "ru-three"}, {"ru-two", "en-three"}},
       CorpusErrorKind::SplitProvenanceGroup,
       "en-two"},
  };
  for (const auto& c : cases) {
    const CorpusError error = partition_error(c.manifest, corpus);
    EXPECT_EQ(error.kind(), c.kind) << error.what();
    EXPECT_EQ(error.document_id(), c.document_id) << error.what();
  }
  const CorpusError split = partition_error(cases[5].manifest, corpus);
  EXPECT_EQ(split.provenance_group(), "pair-two");
  EXPECT_EQ(split.other_document_id(), "ru-two");
  EXPECT_EQ(split.partition(), Partition::Validation);
  EXPECT_EQ(split.other_partition(), Partition::Test);
  EXPECT_STREQ(split.what(),
               "provenance group pair-two is split: en-two is in validation but ru-two is in test");
}

TEST(BookCorpus, IsTwelveDocumentsInSixPairsSplitEightTwoTwo) {
  const Corpus corpus = book_corpus::corpus();
  const CorpusPartitions partitions = book_corpus::partitions();
  ASSERT_EQ(corpus.documents().size(), 12u);
  std::set<std::string> groups;
  std::size_t english = 0, russian = 0;
  for (const Document& document : corpus.documents()) {
    groups.insert(document.provenance_group);
    english += document.language == "en";
    russian += document.language == "ru";
  }
  EXPECT_EQ(groups.size(), 6u);
  EXPECT_EQ(english, 6u);
  EXPECT_EQ(russian, 6u);
  EXPECT_EQ(partitions.documents(Partition::Train).size(), 8u);
  EXPECT_EQ(partitions.documents(Partition::Validation).size(), 2u);
  EXPECT_EQ(partitions.documents(Partition::Test).size(), 2u);
  EXPECT_EQ(partitions.corpus_checksum(), corpus.checksum());
}

}  // namespace
}  // namespace llm
