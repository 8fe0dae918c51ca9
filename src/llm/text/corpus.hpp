// The corpus as whole source documents, and its frozen split into training,
// validation and test partitions. Taught in chapter 2.
//
// Documents are validated and assigned to partitions before any tokenizer or
// model statistic exists, so nothing learned later can carry text across a
// partition boundary. The unit of assignment is a whole document, and a
// document and its translation share a provenance group that must land in
// one partition: a translation of a training text in the test set would
// leak its content.
//
// Two JSON files describe a corpus (chapters/common/corpus/ holds the book's):
//   - the corpus, an array of {"id", "language", "provenance_group", "text"};
//   - the split manifest, {"schema_version", "corpus_checksum", "strategy",
//     "train", "validation", "test"}, which names the corpus it was made for
//     by the FNV-1a 64 checksum of the corpus file's exact bytes.
// Corpus::from_json and SplitManifest::from_json check each file's own
// format; SplitManifest::partition checks the pair and is the only way to
// obtain CorpusPartitions, the object later chapters learn from.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "llm/error.hpp"

namespace llm {

/// The split manifest schema this library reads.
inline constexpr std::uint64_t kSplitSchemaVersion = 1;

/// The one split strategy this library accepts: whole documents, translated
/// pairs kept together, assignments fixed in the manifest (not drawn at random).
inline constexpr std::string_view kSplitStrategy = "fixed-paired-document-holdout-v1";

/// One of the three mutually exclusive roles a document can have.
enum class Partition {
  Train,       ///< the only documents tokenizer and model statistics are learned from
  Validation,  ///< held out; used to compare and choose, never to fit
  Test,        ///< held out; reported once, after every choice is made
};

/// The three partitions in manifest order: train, validation, test.
inline constexpr std::array<Partition, 3> kPartitions = {Partition::Train, Partition::Validation,
                                                         Partition::Test};

/// `train`, `validation` or `test`.
std::string_view partition_label(Partition partition);

// region: corpus-error-kinds
/// What corpus loading or partitioning rejected, in the order it is checked.
enum class CorpusErrorKind {
  InvalidJson,               ///< a file is not JSON at all (syntax, bad UTF-8, trailing text)
  InvalidField,              ///< a value is missing, unknown, repeated or of the wrong JSON type
  EmptyCorpus,               ///< the corpus array holds no document
  InvalidIdentifier,         ///< an id, language or provenance group is not lowercase kebab case
  EmptyText,                 ///< a document's text is empty or only white space
  DuplicateId,               ///< two documents share an id
  DuplicateText,             ///< two documents share their exact text
  UnsupportedSchemaVersion,  ///< the manifest's schema_version is not kSplitSchemaVersion
  UnsupportedStrategy,       ///< the manifest's strategy is not kSplitStrategy
  ChecksumMismatch,          ///< the manifest was made for other corpus bytes
  EmptyPartition,            ///< a partition lists no document
  UnknownDocument,           ///< the manifest names an id the corpus does not have
  RepeatedDocument,          ///< the manifest names one id twice (partitions not disjoint)
  SourceOrder,               ///< a partition does not list its ids in corpus order
  MissingDocument,           ///< a corpus document is in no partition (partitions not complete)
  SplitProvenanceGroup,      ///< a provenance group's documents are in different partitions
};
// endregion: corpus-error-kinds

// region: corpus-error-type
/// The offending values of a CorpusError; a kind leaves the fields it does
/// not use empty or zero.
struct CorpusErrorEvidence {
  std::string source{};  ///< `corpus` or `split manifest`: the file at fault
  /// 1-based position of the document in the corpus array (InvalidField,
  /// InvalidIdentifier, EmptyText, DuplicateId, DuplicateText); 0 otherwise.
  std::size_t document_position = 0;
  std::string field{};                           ///< the JSON field involved
  std::string document_id{};                     ///< the document named by the error
  std::string other_document_id{};               ///< the other document involved
  std::string provenance_group{};                ///< the provenance group that was split
  Partition partition = Partition::Train;        ///< the partition involved
  Partition other_partition = Partition::Train;  ///< the other partition involved
  std::string expected{};  ///< what was required: the accepted version or strategy, a checksum
  std::string actual{};    ///< what was found, or the JSON parser's own message (InvalidJson)
};

/// The `corpus` area: each kind's stable name and message, in enum order.
struct CorpusErrorTraits {
  using Kind = CorpusErrorKind;                       ///< the area's kinds
  using Evidence = CorpusErrorEvidence;               ///< the offending values
  static constexpr std::string_view area = "corpus";  ///< Error::area()
  /// Each kind's stable name and message, in enum order. `{where}` is
  /// `corpus document N` for a document, else `the corpus` or `the split manifest`.
  static constexpr std::array<ErrorKindSpec<Kind>, 16> kinds{{
      {Kind::InvalidJson, "invalid-json", "the {source} is not valid JSON: {actual}"},
      {Kind::InvalidField, "invalid-field", "{where} {actual}"},
      {Kind::EmptyCorpus, "empty-corpus", "the corpus contains no documents"},
      {Kind::InvalidIdentifier, "invalid-identifier",
       "corpus document {document_position} {field} '{actual}' is not lowercase ASCII kebab case "
       "(letters and digits in non-empty hyphen-separated segments, starting with a letter)"},
      {Kind::EmptyText, "empty-text",
       "corpus document {document_position} ({document_id}) has no text: it is empty or only "
       "white space"},
      {Kind::DuplicateId, "duplicate-id",
       "corpus document {document_position} repeats the document id {document_id}"},
      {Kind::DuplicateText, "duplicate-text",
       "corpus document {document_position} ({document_id}) has exactly the text of "
       "{other_document_id}; identical texts in two partitions would leak content"},
      {Kind::UnsupportedSchemaVersion, "unsupported-schema-version",
       "unsupported split schema version {actual} (this library reads version {expected})"},
      {Kind::UnsupportedStrategy, "unsupported-strategy",
       "unsupported split strategy {actual} (expected {expected})"},
      {Kind::ChecksumMismatch, "checksum-mismatch",
       "corpus checksum mismatch: manifest={expected}, actual={actual}"},
      {Kind::EmptyPartition, "empty-partition", "the {partition} partition is empty"},
      {Kind::UnknownDocument, "unknown-document",
       "the {partition} partition lists unknown document {document_id}"},
      {Kind::RepeatedDocument, "repeated-document",
       "document {document_id} is listed twice: in {other_partition} and again in {partition}"},
      {Kind::SourceOrder, "source-order",
       "the {partition} partition lists {document_id} after {other_document_id}, but the corpus "
       "has it before"},
      {Kind::MissingDocument, "missing-document",
       "the manifest does not cover corpus document {document_id}"},
      {Kind::SplitProvenanceGroup, "split-provenance-group",
       "provenance group {provenance_group} is split: {document_id} is in {partition} but "
       "{other_document_id} is in {other_partition}"},
  }};
  /// A field as the message prints it, or `where`.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};

/// An error of corpus loading or partitioning. It names the file
/// (`corpus` or `split manifest`), and the document by its id or, when the id
/// itself is at fault, by its 1-based position in the corpus array. Thrown
/// before any object is built, so a failed call has no effect.
/// Fields a kind does not use are empty or zero.
class CorpusError : public KindedError<CorpusErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw CorpusError(CorpusErrorKind::..., {.field = value});`
  explicit CorpusError(CorpusErrorKind kind, CorpusErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}

  /// `corpus` or `split manifest`: the file at fault.
  const std::string& source() const noexcept { return evidence().source; }
  /// 1-based position of the document in the corpus array (InvalidField,
  /// InvalidIdentifier, EmptyText, DuplicateId, DuplicateText); 0 otherwise.
  std::size_t document_position() const noexcept { return evidence().document_position; }
  /// The JSON field involved: `id`, `language`, `provenance_group`, `text`,
  /// `schema_version`, `train`, ... (InvalidField, InvalidIdentifier).
  const std::string& field() const noexcept { return evidence().field; }
  /// The document named by the error (DuplicateId, DuplicateText,
  /// UnknownDocument, RepeatedDocument, SourceOrder, MissingDocument,
  /// SplitProvenanceGroup).
  const std::string& document_id() const noexcept { return evidence().document_id; }
  /// The other document involved: the earlier one with the same text
  /// (DuplicateText), the one listed before it (SourceOrder), or the group
  /// member in another partition (SplitProvenanceGroup).
  const std::string& other_document_id() const noexcept { return evidence().other_document_id; }
  /// The provenance group that was split (SplitProvenanceGroup).
  const std::string& provenance_group() const noexcept { return evidence().provenance_group; }
  /// The partition involved (EmptyPartition, UnknownDocument, RepeatedDocument,
  /// SourceOrder; the partition of document_id() for SplitProvenanceGroup).
  Partition partition() const noexcept { return evidence().partition; }
  /// The partition of other_document_id() (SplitProvenanceGroup); the
  /// partition of the first listing (RepeatedDocument).
  Partition other_partition() const noexcept { return evidence().other_partition; }
  /// What was required: the accepted version or strategy, the manifest's checksum.
  const std::string& expected() const noexcept { return evidence().expected; }
  /// What was found: the offending value, version, strategy or actual checksum,
  /// or the JSON parser's own message (InvalidJson).
  const std::string& actual() const noexcept { return evidence().actual; }

  // The manifest checks, whose evidence is derived: each names the split
  // manifest, the JSON field at fault (a partition's label or a header field)
  // and, for the header fields, the value this library accepts.
  /// UnsupportedSchemaVersion: the manifest's `version` is not kSplitSchemaVersion.
  static CorpusError unsupported_schema_version(std::uint64_t version);
  /// UnsupportedStrategy: the manifest's `strategy` is not kSplitStrategy.
  static CorpusError unsupported_strategy(std::string strategy);
  /// ChecksumMismatch: the manifest names other corpus bytes.
  static CorpusError checksum_mismatch(std::string manifest_checksum, std::string actual_checksum);
  /// EmptyPartition: `partition` lists no document.
  static CorpusError empty_partition(Partition partition);
  /// UnknownDocument: `partition` lists an id the corpus does not have.
  static CorpusError unknown_document(Partition partition, std::string document_id);
  /// RepeatedDocument: listed in `first`, then `again`.
  static CorpusError repeated_document(Partition first, Partition again, std::string document_id);
  /// SourceOrder: `partition` lists `document_id` after `listed_before`.
  static CorpusError source_order(Partition partition, std::string document_id,
                                  std::string listed_before);
};
// endregion: corpus-error-type

/// One whole source document. Its id is stable across editions of the
/// corpus; its text is kept byte for byte, without any normalization.
struct Document {
  std::string id;                ///< unique, lowercase kebab case: `en-ferry-crossing`
  std::string language;          ///< a language tag in the same syntax: `en`, `ru`
  std::string provenance_group;  ///< shared by a document and its translations
  std::string text;              ///< UTF-8, not empty and not only white space

  /// Field-by-field equality.
  bool operator==(const Document&) const = default;
};

/// The 64-bit FNV-1a hash of `bytes`: start from 0xcbf29ce484222325, then for
/// each byte XOR it in and multiply by 0x100000001b3 modulo 2^64. A cheap,
/// deterministic drift detector, not a cryptographic checksum: different
/// bytes can share a value. `fnv1a64("hello")` is 0xa430d84680aabd0b.
std::uint64_t fnv1a64(std::span<const std::uint8_t> bytes);

// region: corpus-contract
/// A validated corpus: documents in the order of the file, and the checksum
/// of the file's exact bytes. Taught in chapter 2.
class Corpus {
 public:
  /// Parses and validates a corpus file's text. Checks, in this order: the
  /// text is JSON (InvalidJson); it is an array of objects with exactly the
  /// four string fields (InvalidField); the array is not empty (EmptyCorpus);
  /// then per document, in file order: id, language and provenance group are
  /// lowercase kebab case (InvalidIdentifier), the text has a character that
  /// is not white space (EmptyText), the id (DuplicateId) and the exact text
  /// (DuplicateText) appear in no earlier document.
  /// @throws CorpusError with the first failing kind.
  static Corpus from_json(std::string_view json_text);

  /// The documents in file order, which is the canonical source order.
  const std::vector<Document>& documents() const noexcept { return documents_; }

  /// The document with this id, or nullptr.
  const Document* document(std::string_view id) const;

  /// `fnv1a64:` and the 16 lowercase hexadecimal digits of fnv1a64 over the
  /// corpus file's bytes, exactly as given to from_json.
  const std::string& checksum() const noexcept { return checksum_; }

 private:
  Corpus(std::vector<Document> documents, std::string checksum);

  std::vector<Document> documents_;
  std::string checksum_;
};
// endregion: corpus-contract

class CorpusPartitions;

/// A parsed split manifest: the ids of each partition, in the manifest's
/// order, not yet checked against any corpus. Taught in chapter 2.
class SplitManifest {
 public:
  /// Parses a manifest file's text: an object with exactly the fields
  /// schema_version (an unsigned integer), corpus_checksum and strategy
  /// (strings), train, validation and test (arrays of strings).
  /// @throws CorpusError InvalidJson or InvalidField.
  static SplitManifest from_json(std::string_view json_text);

  /// Builds a manifest from its values, for tests and tools that write one.
  SplitManifest(std::uint64_t schema_version, std::string corpus_checksum, std::string strategy,
                std::vector<std::string> train, std::vector<std::string> validation,
                std::vector<std::string> test);

  /// The schema version the manifest declares.
  std::uint64_t schema_version() const noexcept { return schema_version_; }
  /// The checksum of the corpus the manifest was made for (`fnv1a64:...`).
  const std::string& corpus_checksum() const noexcept { return corpus_checksum_; }
  /// The split strategy the manifest declares.
  const std::string& strategy() const noexcept { return strategy_; }
  /// The ids listed for one partition, in manifest order.
  const std::vector<std::string>& ids(Partition partition) const;

  // region: split-manifest-partition-contract
  /// Checks this manifest against `corpus` and returns its partitions.
  /// Checks, in this order, and reports the first failure:
  ///   1. schema_version is kSplitSchemaVersion (UnsupportedSchemaVersion);
  ///   2. strategy is kSplitStrategy (UnsupportedStrategy);
  ///   3. corpus_checksum equals corpus.checksum() (ChecksumMismatch);
  ///   4. no partition is empty (EmptyPartition);
  ///   5. every listed id, train then validation then test, exists
  ///      (UnknownDocument) and is listed once (RepeatedDocument): disjoint;
  ///   6. each partition lists its ids in corpus order (SourceOrder);
  ///   7. every corpus document is listed (MissingDocument): complete;
  ///   8. each provenance group lies in one partition (SplitProvenanceGroup).
  /// @throws CorpusError with the first failing kind; nothing is built before
  ///         every check has passed.
  CorpusPartitions partition(const Corpus& corpus) const;
  // endregion: split-manifest-partition-contract

 private:
  std::uint64_t schema_version_;
  std::string corpus_checksum_;
  std::string strategy_;
  std::array<std::vector<std::string>, 3> ids_;  // indexed by Partition
};

/// The validated partitions of one corpus, each a list of whole documents in
/// corpus order. Only SplitManifest::partition makes one, so holding a
/// CorpusPartitions means every check of chapter 2 has passed. The documents
/// are copies: the partitions stay valid after the Corpus is gone.
/// Taught in chapter 2; chapter 3 learns from training_documents() only.
class CorpusPartitions {
 public:
  /// The documents of one partition, in corpus order.
  const std::vector<Document>& documents(Partition partition) const;

  /// The ids of one partition's documents, in corpus order.
  std::vector<std::string> document_ids(Partition partition) const;

  /// The training documents: the only text statistics may be learned from.
  const std::vector<Document>& training_documents() const { return documents(Partition::Train); }

  /// The checksum of the corpus these partitions came from (`fnv1a64:...`).
  const std::string& corpus_checksum() const noexcept { return corpus_checksum_; }

  /// The split strategy of the manifest, kSplitStrategy.
  const std::string& strategy() const noexcept { return strategy_; }

 private:
  friend class SplitManifest;
  CorpusPartitions(std::array<std::vector<Document>, 3> documents, std::string corpus_checksum,
                   std::string strategy);

  std::array<std::vector<Document>, 3> documents_;  // indexed by Partition
  std::string corpus_checksum_;
  std::string strategy_;
};

}  // namespace llm
