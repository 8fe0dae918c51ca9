// The evidence of the corpus and split errors as their messages print it, and
// the manifest checks whose evidence is derived (chapter 2).
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

namespace {

const char* const kManifestSource = "split manifest";

std::string label(Partition partition) {
  return std::string(partition_label(partition));
}

}  // namespace

std::string CorpusErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "where") {  // "corpus document 3", or the file for a fault outside a document
    return evidence.document_position > 0
               ? "corpus document " + std::to_string(evidence.document_position)
               : "the " + evidence.source;
  }
  if (field == "source") return evidence.source;
  if (field == "document_position") return std::to_string(evidence.document_position);
  if (field == "field") return evidence.field;
  if (field == "document_id") return evidence.document_id;
  if (field == "other_document_id") return evidence.other_document_id;
  if (field == "provenance_group") return evidence.provenance_group;
  if (field == "partition") return label(evidence.partition);
  if (field == "other_partition") return label(evidence.other_partition);
  if (field == "expected") return evidence.expected;
  if (field == "actual") return evidence.actual;
  error_detail::unknown_field(area, field);
}

CorpusError CorpusError::unsupported_schema_version(std::uint64_t version) {
  return CorpusError(CorpusErrorKind::UnsupportedSchemaVersion,
                     {.source = kManifestSource,
                      .field = "schema_version",
                      .expected = std::to_string(kSplitSchemaVersion),
                      .actual = std::to_string(version)});
}

CorpusError CorpusError::unsupported_strategy(std::string strategy) {
  return CorpusError(CorpusErrorKind::UnsupportedStrategy, {.source = kManifestSource,
                                                            .field = "strategy",
                                                            .expected = std::string(kSplitStrategy),
                                                            .actual = std::move(strategy)});
}

CorpusError CorpusError::checksum_mismatch(std::string manifest_checksum,
                                           std::string actual_checksum) {
  return CorpusError(CorpusErrorKind::ChecksumMismatch, {.source = kManifestSource,
                                                         .field = "corpus_checksum",
                                                         .expected = std::move(manifest_checksum),
                                                         .actual = std::move(actual_checksum)});
}

CorpusError CorpusError::empty_partition(Partition partition) {
  return CorpusError(
      CorpusErrorKind::EmptyPartition,
      {.source = kManifestSource, .field = label(partition), .partition = partition});
}

CorpusError CorpusError::unknown_document(Partition partition, std::string document_id) {
  return CorpusError(CorpusErrorKind::UnknownDocument, {.source = kManifestSource,
                                                        .field = label(partition),
                                                        .document_id = std::move(document_id),
                                                        .partition = partition});
}

CorpusError CorpusError::repeated_document(Partition first, Partition again,
                                           std::string document_id) {
  return CorpusError(CorpusErrorKind::RepeatedDocument, {.source = kManifestSource,
                                                         .field = label(again),
                                                         .document_id = std::move(document_id),
                                                         .partition = again,
                                                         .other_partition = first});
}

CorpusError CorpusError::source_order(Partition partition, std::string document_id,
                                      std::string listed_before) {
  return CorpusError(CorpusErrorKind::SourceOrder, {.source = kManifestSource,
                                                    .field = label(partition),
                                                    .document_id = std::move(document_id),
                                                    .other_document_id = std::move(listed_before),
                                                    .partition = partition});
}

}  // namespace llm
