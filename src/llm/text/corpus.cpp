// Corpus loading, the FNV-1a checksum, and the frozen partitions (chapter 2).
//
// JSON syntax is nlohmann::json's job; this file checks everything the book
// means by a valid corpus and a valid split, and builds nothing until every
// check has passed.
#include "llm/text/corpus.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <utility>

#include "llm/text/text_units.hpp"

namespace llm {

namespace {

using Json = nlohmann::json;

const char* const kCorpusSource = "corpus";
const char* const kManifestSource = "split manifest";
const std::array<const char*, 4> kDocumentFields = {"id", "language", "provenance_group", "text"};

// Parses `text` as JSON. Beyond the JSON grammar, it rejects an object that
// repeats a key: the standard leaves its meaning open and nlohmann::json
// would silently keep the last value, so a corpus could hide a second text.
// Objects one level down are corpus documents; a repeated key inside one
// is reported with that document's 1-based position.
Json parse_json(std::string_view text, const char* source) {
  std::vector<std::set<std::string>> open_objects;
  std::size_t documents_seen = 0;
  std::optional<std::pair<std::size_t, std::string>> repeated;  // (document position, key)
  auto find_repeated_keys = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::object_start) {
      open_objects.emplace_back();
      if (depth == 1) ++documents_seen;
    } else if (event == Json::parse_event_t::key) {
      const auto& key = parsed.get_ref<const std::string&>();
      if (!open_objects.back().insert(key).second && !repeated) {
        repeated.emplace(depth == 2 ? documents_seen : 0, key);
      }
    } else if (event == Json::parse_event_t::object_end) {
      open_objects.pop_back();
    }
    return true;
  };
  Json parsed;
  try {
    parsed = Json::parse(text.begin(), text.end(), find_repeated_keys);
  } catch (const Json::exception& error) {
    throw CorpusError(CorpusErrorKind::InvalidJson, {.source = source, .actual = error.what()});
  }
  if (repeated) {
    throw CorpusError(CorpusErrorKind::InvalidField,
                      {.source = source,
                       .document_position = repeated->first,
                       .field = repeated->second,
                       .actual = "repeats the field " + repeated->second});
  }
  return parsed;
}

// The string value of `object[field]` at a document position (0 for the manifest).
std::string string_field(const Json& object, const char* field, const char* source,
                         std::size_t position) {
  const auto found = object.find(field);
  if (found == object.end()) {
    throw CorpusError(CorpusErrorKind::InvalidField,
                      {.source = source,
                       .document_position = position,
                       .field = field,
                       .actual = std::string("has no field ") + field});
  }
  if (!found->is_string()) {
    throw CorpusError(CorpusErrorKind::InvalidField,
                      {.source = source,
                       .document_position = position,
                       .field = field,
                       .actual = std::string("field ") + field + " is not a string"});
  }
  return found->get<std::string>();
}

// Rejects any key of `object` that is not in `allowed`.
template <std::size_t N>
void reject_unknown_fields(const Json& object, const std::array<const char*, N>& allowed,
                           const char* source, std::size_t position) {
  for (const auto& item : object.items()) {
    const std::string& key = item.key();
    if (std::none_of(allowed.begin(), allowed.end(),
                     [&](const char* name) { return key == name; })) {
      throw CorpusError(CorpusErrorKind::InvalidField, {.source = source,
                                                        .document_position = position,
                                                        .field = key,
                                                        .actual = "has an unknown field " + key});
    }
  }
}

// region: kebab-identifier
// Lowercase ASCII kebab case: non-empty segments of a-z and 0-9 joined by
// single hyphens, starting with a letter (`en-ferry-crossing`, `pair-2`).
bool is_kebab_identifier(std::string_view value) {
  if (value.empty() || value.front() < 'a' || value.front() > 'z') return false;
  bool segment_empty = true;
  for (char c : value) {
    if (c == '-') {
      if (segment_empty) return false;  // "a--b"
      segment_empty = true;
    } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      segment_empty = false;
    } else {
      return false;
    }
  }
  return !segment_empty;  // "a-" ends with an empty segment
}
// endregion: kebab-identifier

// Unicode White_Space (PropList.txt): the scalars a text may consist of and
// still count as empty.
bool is_white_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

bool has_visible_text(std::string_view text) {
  const std::vector<char32_t> scalars = unicode_scalars(text);  // the JSON parser checked UTF-8
  return std::any_of(scalars.begin(), scalars.end(), [](char32_t c) { return !is_white_space(c); });
}

std::string checksum_label(std::uint64_t hash) {
  char digits[17];
  std::snprintf(digits, sizeof digits, "%016llx", static_cast<unsigned long long>(hash));
  return std::string("fnv1a64:") + digits;
}

}  // namespace

// region: fnv1a64
std::uint64_t fnv1a64(std::span<const std::uint8_t> bytes) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;  // the 64-bit offset basis
  for (std::uint8_t byte : bytes) {
    hash ^= byte;
    hash *= 0x100000001b3ULL;  // the 64-bit FNV prime; unsigned overflow wraps modulo 2^64
  }
  return hash;
}
// endregion: fnv1a64

Corpus::Corpus(std::vector<Document> documents, std::string checksum)
    : documents_(std::move(documents)), checksum_(std::move(checksum)) {}

// region: corpus-loader
Corpus Corpus::from_json(std::string_view json_text) {
  const Json parsed = parse_json(json_text, kCorpusSource);
  if (!parsed.is_array()) {
    throw CorpusError(CorpusErrorKind::InvalidField,
                      {.source = kCorpusSource, .actual = "is not a JSON array of documents"});
  }
  std::vector<Document> documents;
  for (std::size_t index = 0; index < parsed.size(); ++index) {
    const std::size_t position = index + 1;
    const Json& item = parsed[index];
    if (!item.is_object()) {
      throw CorpusError(CorpusErrorKind::InvalidField, {.source = kCorpusSource,
                                                        .document_position = position,
                                                        .actual = "is not a JSON object"});
    }
    reject_unknown_fields(item, kDocumentFields, kCorpusSource, position);
    documents.push_back({string_field(item, "id", kCorpusSource, position),
                         string_field(item, "language", kCorpusSource, position),
                         string_field(item, "provenance_group", kCorpusSource, position),
                         string_field(item, "text", kCorpusSource, position)});
  }
  if (documents.empty()) throw CorpusError(CorpusErrorKind::EmptyCorpus, {.source = kCorpusSource});

  for (std::size_t index = 0; index < documents.size(); ++index) {
    const Document& document = documents[index];
    const std::size_t position = index + 1;
    for (const auto& [field, value] :
         {std::pair{"id", &document.id}, std::pair{"language", &document.language},
          std::pair{"provenance_group", &document.provenance_group}}) {
      if (!is_kebab_identifier(*value))
        throw CorpusError(CorpusErrorKind::InvalidIdentifier, {.source = kCorpusSource,
                                                               .document_position = position,
                                                               .field = field,
                                                               .actual = *value});
    }
    if (!has_visible_text(document.text))
      throw CorpusError(CorpusErrorKind::EmptyText, {.source = kCorpusSource,
                                                     .document_position = position,
                                                     .field = "text",
                                                     .document_id = document.id});
    for (std::size_t earlier = 0; earlier < index; ++earlier) {
      if (documents[earlier].id == document.id)
        throw CorpusError(CorpusErrorKind::DuplicateId, {.source = kCorpusSource,
                                                         .document_position = position,
                                                         .field = "id",
                                                         .document_id = document.id});
      if (documents[earlier].text == document.text) {
        throw CorpusError(CorpusErrorKind::DuplicateText,
                          {.source = kCorpusSource,
                           .document_position = position,
                           .field = "text",
                           .document_id = document.id,
                           .other_document_id = documents[earlier].id});
      }
    }
  }
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(json_text.data());
  return Corpus(std::move(documents), checksum_label(fnv1a64({bytes, json_text.size()})));
}
// endregion: corpus-loader

const Document* Corpus::document(std::string_view id) const {
  const auto found = std::find_if(documents_.begin(), documents_.end(),
                                  [&](const Document& document) { return document.id == id; });
  return found == documents_.end() ? nullptr : &*found;
}

SplitManifest::SplitManifest(std::uint64_t schema_version, std::string corpus_checksum,
                             std::string strategy, std::vector<std::string> train,
                             std::vector<std::string> validation, std::vector<std::string> test)
    : schema_version_(schema_version),
      corpus_checksum_(std::move(corpus_checksum)),
      strategy_(std::move(strategy)),
      ids_{std::move(train), std::move(validation), std::move(test)} {}

SplitManifest SplitManifest::from_json(std::string_view json_text) {
  const Json parsed = parse_json(json_text, kManifestSource);
  if (!parsed.is_object()) {
    throw CorpusError(CorpusErrorKind::InvalidField,
                      {.source = kManifestSource, .actual = "is not a JSON object"});
  }
  static constexpr std::array<const char*, 6> kFields = {
      "schema_version", "corpus_checksum", "strategy", "train", "validation", "test"};
  reject_unknown_fields(parsed, kFields, kManifestSource, 0);
  const auto version = parsed.find("schema_version");
  if (version == parsed.end()) {
    throw CorpusError(CorpusErrorKind::InvalidField, {.source = kManifestSource,
                                                      .field = "schema_version",
                                                      .actual = "has no field schema_version"});
  }
  if (!version->is_number_unsigned()) {
    throw CorpusError(CorpusErrorKind::InvalidField,
                      {.source = kManifestSource,
                       .field = "schema_version",
                       .actual = "field schema_version is not an unsigned integer"});
  }
  std::string checksum = string_field(parsed, "corpus_checksum", kManifestSource, 0);
  std::string strategy = string_field(parsed, "strategy", kManifestSource, 0);
  std::array<std::vector<std::string>, 3> ids;
  for (Partition partition : kPartitions) {
    const std::string field(partition_label(partition));
    const auto list = parsed.find(field);
    if (list == parsed.end()) {
      throw CorpusError(
          CorpusErrorKind::InvalidField,
          {.source = kManifestSource, .field = field, .actual = "has no field " + field});
    }
    if (!list->is_array() ||
        !std::all_of(list->begin(), list->end(), [](const Json& id) { return id.is_string(); })) {
      throw CorpusError(CorpusErrorKind::InvalidField,
                        {.source = kManifestSource,
                         .field = field,
                         .actual = "field " + field + " is not an array of strings"});
    }
    for (const Json& id : *list)
      ids[static_cast<std::size_t>(partition)].push_back(id.get<std::string>());
  }
  return SplitManifest(version->get<std::uint64_t>(), std::move(checksum), std::move(strategy),
                       std::move(ids[0]), std::move(ids[1]), std::move(ids[2]));
}

const std::vector<std::string>& SplitManifest::ids(Partition partition) const {
  return ids_[static_cast<std::size_t>(partition)];
}

// region: partition-invariants
CorpusPartitions SplitManifest::partition(const Corpus& corpus) const {
  if (schema_version_ != kSplitSchemaVersion) {
    throw CorpusError::unsupported_schema_version(schema_version_);
  }
  if (strategy_ != kSplitStrategy) throw CorpusError::unsupported_strategy(strategy_);
  if (corpus_checksum_ != corpus.checksum()) {
    throw CorpusError::checksum_mismatch(corpus_checksum_, corpus.checksum());
  }
  for (Partition partition : kPartitions) {
    if (ids(partition).empty()) throw CorpusError::empty_partition(partition);
  }

  std::map<std::string, std::size_t> corpus_position;  // id -> index in the corpus
  for (std::size_t i = 0; i < corpus.documents().size(); ++i) {
    corpus_position.emplace(corpus.documents()[i].id, i);
  }
  // Disjoint: each listed id exists and is listed once in the whole manifest.
  std::map<std::string, Partition> assignment;
  for (Partition partition : kPartitions) {
    for (const std::string& id : ids(partition)) {
      if (!corpus_position.contains(id)) throw CorpusError::unknown_document(partition, id);
      const auto [listed, first_time] = assignment.emplace(id, partition);
      if (!first_time) throw CorpusError::repeated_document(listed->second, partition, id);
    }
  }
  // Ordered: each partition reads in corpus order, so iteration is reproducible.
  for (Partition partition : kPartitions) {
    const std::vector<std::string>& listed = ids(partition);
    for (std::size_t i = 1; i < listed.size(); ++i) {
      if (corpus_position.at(listed[i]) < corpus_position.at(listed[i - 1])) {
        throw CorpusError::source_order(partition, listed[i], listed[i - 1]);
      }
    }
  }
  // Complete: every document has a partition.
  for (const Document& document : corpus.documents()) {
    if (!assignment.contains(document.id))
      throw CorpusError(CorpusErrorKind::MissingDocument,
                        {.source = kManifestSource, .document_id = document.id});
  }
  // Provenance: a group's documents (a text and its translations) share one partition.
  std::map<std::string, const Document*> first_in_group;
  for (const Document& document : corpus.documents()) {
    const auto [first, inserted] = first_in_group.emplace(document.provenance_group, &document);
    const Partition here = assignment.at(document.id);
    const Partition there = assignment.at(first->second->id);
    if (!inserted && here != there) {
      throw CorpusError(CorpusErrorKind::SplitProvenanceGroup,
                        {.source = kManifestSource,
                         .document_id = first->second->id,
                         .other_document_id = document.id,
                         .provenance_group = document.provenance_group,
                         .partition = there,
                         .other_partition = here});
    }
  }

  std::array<std::vector<Document>, 3> documents;
  for (const Document& document : corpus.documents()) {
    documents[static_cast<std::size_t>(assignment.at(document.id))].push_back(document);
  }
  return CorpusPartitions(std::move(documents), corpus.checksum(), strategy_);
}
// endregion: partition-invariants

CorpusPartitions::CorpusPartitions(std::array<std::vector<Document>, 3> documents,
                                   std::string corpus_checksum, std::string strategy)
    : documents_(std::move(documents)),
      corpus_checksum_(std::move(corpus_checksum)),
      strategy_(std::move(strategy)) {}

const std::vector<Document>& CorpusPartitions::documents(Partition partition) const {
  return documents_[static_cast<std::size_t>(partition)];
}

std::vector<std::string> CorpusPartitions::document_ids(Partition partition) const {
  std::vector<std::string> ids;
  for (const Document& document : documents(partition)) ids.push_back(document.id);
  return ids;
}

}  // namespace llm
