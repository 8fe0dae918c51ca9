// Messages and evidence of the corpus and split errors (chapter 2).
#include <utility>

#include "llm/text/corpus.hpp"

namespace llm {

std::string_view partition_label(Partition partition) {
  switch (partition) {
    case Partition::Train:
      return "train";
    case Partition::Validation:
      return "validation";
    case Partition::Test:
      return "test";
  }
  return "unknown";
}

std::string_view corpus_error_kind_name(CorpusErrorKind kind) {
  switch (kind) {
    case CorpusErrorKind::InvalidJson:
      return "invalid-json";
    case CorpusErrorKind::InvalidField:
      return "invalid-field";
    case CorpusErrorKind::EmptyCorpus:
      return "empty-corpus";
    case CorpusErrorKind::InvalidIdentifier:
      return "invalid-identifier";
    case CorpusErrorKind::EmptyText:
      return "empty-text";
    case CorpusErrorKind::DuplicateId:
      return "duplicate-id";
    case CorpusErrorKind::DuplicateText:
      return "duplicate-text";
    case CorpusErrorKind::UnsupportedSchemaVersion:
      return "unsupported-schema-version";
    case CorpusErrorKind::UnsupportedStrategy:
      return "unsupported-strategy";
    case CorpusErrorKind::ChecksumMismatch:
      return "checksum-mismatch";
    case CorpusErrorKind::EmptyPartition:
      return "empty-partition";
    case CorpusErrorKind::UnknownDocument:
      return "unknown-document";
    case CorpusErrorKind::RepeatedDocument:
      return "repeated-document";
    case CorpusErrorKind::SourceOrder:
      return "source-order";
    case CorpusErrorKind::MissingDocument:
      return "missing-document";
    case CorpusErrorKind::SplitProvenanceGroup:
      return "split-provenance-group";
  }
  return "unknown";
}

namespace {

const char* const kCorpusSource = "corpus";
const char* const kManifestSource = "split manifest";

std::string label(Partition partition) {
  return std::string(partition_label(partition));
}

// "corpus document 3", the way every per-document message starts.
std::string document_at(std::size_t position) {
  return "corpus document " + std::to_string(position);
}

}  // namespace

CorpusError::CorpusError(CorpusErrorKind kind, std::string source, const std::string& message)
    : Error("corpus", corpus_error_kind_name(kind), message),
      kind_(kind),
      source_(std::move(source)) {}

CorpusError CorpusError::invalid_json(std::string source, std::string parser_message) {
  CorpusError error(CorpusErrorKind::InvalidJson, source,
                    "the " + source + " is not valid JSON: " + parser_message);
  error.actual_ = std::move(parser_message);
  return error;
}

CorpusError CorpusError::invalid_field(std::string source, std::size_t document_position,
                                       std::string field, std::string problem) {
  const std::string where =
      document_position > 0 ? document_at(document_position) : "the " + source;
  CorpusError error(CorpusErrorKind::InvalidField, source, where + " " + problem);
  error.document_position_ = document_position;
  error.field_ = std::move(field);
  error.actual_ = std::move(problem);
  return error;
}

CorpusError CorpusError::empty_corpus() {
  return CorpusError(CorpusErrorKind::EmptyCorpus, kCorpusSource,
                     "the corpus contains no documents");
}

CorpusError CorpusError::invalid_identifier(std::size_t document_position, std::string field,
                                            std::string value) {
  CorpusError error(CorpusErrorKind::InvalidIdentifier, kCorpusSource,
                    document_at(document_position) + " " + field + " '" + value +
                        "' is not lowercase ASCII kebab case (letters and digits in non-empty "
                        "hyphen-separated segments, starting with a letter)");
  error.document_position_ = document_position;
  error.field_ = std::move(field);
  error.actual_ = std::move(value);
  return error;
}

CorpusError CorpusError::empty_text(std::size_t document_position, std::string document_id) {
  CorpusError error(CorpusErrorKind::EmptyText, kCorpusSource,
                    document_at(document_position) + " (" + document_id +
                        ") has no text: it is empty or only white space");
  error.document_position_ = document_position;
  error.field_ = "text";
  error.document_id_ = std::move(document_id);
  return error;
}

CorpusError CorpusError::duplicate_id(std::size_t document_position, std::string document_id) {
  CorpusError error(CorpusErrorKind::DuplicateId, kCorpusSource,
                    document_at(document_position) + " repeats the document id " + document_id);
  error.document_position_ = document_position;
  error.field_ = "id";
  error.document_id_ = std::move(document_id);
  return error;
}

CorpusError CorpusError::duplicate_text(std::size_t document_position, std::string document_id,
                                        std::string earlier_document_id) {
  CorpusError error(CorpusErrorKind::DuplicateText, kCorpusSource,
                    document_at(document_position) + " (" + document_id +
                        ") has exactly the text of " + earlier_document_id +
                        "; identical texts in two partitions would leak content");
  error.document_position_ = document_position;
  error.field_ = "text";
  error.document_id_ = std::move(document_id);
  error.other_document_id_ = std::move(earlier_document_id);
  return error;
}

CorpusError CorpusError::unsupported_schema_version(std::uint64_t version) {
  CorpusError error(CorpusErrorKind::UnsupportedSchemaVersion, kManifestSource,
                    "unsupported split schema version " + std::to_string(version) +
                        " (this library reads version " + std::to_string(kSplitSchemaVersion) +
                        ")");
  error.field_ = "schema_version";
  error.expected_ = std::to_string(kSplitSchemaVersion);
  error.actual_ = std::to_string(version);
  return error;
}

CorpusError CorpusError::unsupported_strategy(std::string strategy) {
  CorpusError error(
      CorpusErrorKind::UnsupportedStrategy, kManifestSource,
      "unsupported split strategy " + strategy + " (expected " + std::string(kSplitStrategy) + ")");
  error.field_ = "strategy";
  error.expected_ = std::string(kSplitStrategy);
  error.actual_ = std::move(strategy);
  return error;
}

CorpusError CorpusError::checksum_mismatch(std::string manifest_checksum,
                                           std::string actual_checksum) {
  CorpusError error(
      CorpusErrorKind::ChecksumMismatch, kManifestSource,
      "corpus checksum mismatch: manifest=" + manifest_checksum + ", actual=" + actual_checksum);
  error.field_ = "corpus_checksum";
  error.expected_ = std::move(manifest_checksum);
  error.actual_ = std::move(actual_checksum);
  return error;
}

CorpusError CorpusError::empty_partition(Partition partition) {
  CorpusError error(CorpusErrorKind::EmptyPartition, kManifestSource,
                    "the " + label(partition) + " partition is empty");
  error.field_ = label(partition);
  error.partition_ = partition;
  return error;
}

CorpusError CorpusError::unknown_document(Partition partition, std::string document_id) {
  CorpusError error(CorpusErrorKind::UnknownDocument, kManifestSource,
                    "the " + label(partition) + " partition lists unknown document " + document_id);
  error.field_ = label(partition);
  error.document_id_ = std::move(document_id);
  error.partition_ = partition;
  return error;
}

CorpusError CorpusError::repeated_document(Partition first, Partition again,
                                           std::string document_id) {
  CorpusError error(CorpusErrorKind::RepeatedDocument, kManifestSource,
                    "document " + document_id + " is listed twice: in " + label(first) +
                        " and again in " + label(again));
  error.field_ = label(again);
  error.document_id_ = std::move(document_id);
  error.partition_ = again;
  error.other_partition_ = first;
  return error;
}

CorpusError CorpusError::source_order(Partition partition, std::string document_id,
                                      std::string listed_before) {
  CorpusError error(CorpusErrorKind::SourceOrder, kManifestSource,
                    "the " + label(partition) + " partition lists " + document_id + " after " +
                        listed_before + ", but the corpus has it before");
  error.field_ = label(partition);
  error.document_id_ = std::move(document_id);
  error.other_document_id_ = std::move(listed_before);
  error.partition_ = partition;
  return error;
}

CorpusError CorpusError::missing_document(std::string document_id) {
  CorpusError error(CorpusErrorKind::MissingDocument, kManifestSource,
                    "the manifest does not cover corpus document " + document_id);
  error.document_id_ = std::move(document_id);
  return error;
}

CorpusError CorpusError::split_provenance_group(std::string group, std::string document_id,
                                                Partition partition, std::string other_document_id,
                                                Partition other_partition) {
  CorpusError error(CorpusErrorKind::SplitProvenanceGroup, kManifestSource,
                    "provenance group " + group + " is split: " + document_id + " is in " +
                        label(partition) + " but " + other_document_id + " is in " +
                        label(other_partition));
  error.provenance_group_ = std::move(group);
  error.document_id_ = std::move(document_id);
  error.other_document_id_ = std::move(other_document_id);
  error.partition_ = partition;
  error.other_partition_ = other_partition;
  return error;
}

}  // namespace llm
