// The typed error of checkpoints (area `checkpoint`): a file that is not a
// checkpoint, is damaged, truncated or of another version, parts that do not
// belong together, and a file the system cannot read or replace. Taught in
// chapter 35. Every reader check runs before anything is returned, so a
// refused file loads nothing; a refused save leaves the destination as it was.
// Written in the one pattern of src/llm/error.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "llm/error.hpp"
#include "llm/tensor/shape.hpp"

namespace llm {

// region: checkpoint-error-kinds
/// Why a checkpoint was refused, in the order the reader checks.
enum class CheckpointErrorKind {
  Truncated,                      ///< the bytes end inside the fixed header or a header field
  InvalidMagic,                   ///< the first eight bytes are not `LLMCP35\0`: not a checkpoint
  UnsupportedVersion,             ///< a schema version this reader does not know
  UnsupportedEndianness,          ///< the byte-order marker is not 0x01020304 read little-endian
  FileLengthMismatch,             ///< header + payload lengths differ from the file's length
  ChecksumMismatch,               ///< the FNV-1a 64 checksum differs: a changed byte
  UnsupportedTokenizerLayout,     ///< a tokenizer layout version this reader does not know
  UnsupportedGeneratorAlgorithm,  ///< a sampling-generator algorithm version this reader does not
                                  ///< know
  UnknownTokenizerKind,           ///< a tokenizer tag other than 1 (literal) or 2 (byte BPE)
  UnknownRecordRole,              ///< a record role tag this reader does not know
  UnknownElementType,             ///< a record element-type tag this reader does not know
  InvalidName,                    ///< a name that is not valid UTF-8
  SizeOverflow,                   ///< a count, length or offset does not fit this machine
  InvalidLayout,                  ///< the record table contradicts itself or the file
  InvalidTokenizer,               ///< the tokenizer's pieces or merges are not a valid tokenizer
  InvalidParameter,               ///< a parameter name or value the tape would not accept
  InvalidOptimizerState,          ///< the optimizer's configuration, groups or moments are invalid
  VocabularyMismatch,             ///< the tokenizer's vocabulary differs from the model's
  StepMismatch,                   ///< the selected step differs from the optimizer's step count
  OptimizerNamesMismatch,  ///< the optimizer's moments name other parameters than the model's
  OptimizerShapeMismatch,  ///< a moment's shape differs from its parameter's
  NonCanonical,            ///< valid parts, but not the bytes this writer would produce
  ReadFailed,              ///< the file could not be opened or read
  WriteFailed,             ///< the temporary file could not be created, written or synced
  ReplaceFailed,           ///< the temporary file could not be renamed over the destination
  ModelMismatch,           ///< the stored parameters do not fit the model they are loaded into
};
// endregion: checkpoint-error-kinds

/// The offending values of a CheckpointError; a kind leaves the fields it
/// does not use empty or zero.
struct CheckpointErrorEvidence {
  std::string path{};          ///< the file (file kinds; empty for bytes in memory)
  std::string_view field{};    ///< what was being read, e.g. `fixed header` or `record name`
  std::uint64_t expected = 0;  ///< the supported version, the declared length, the step...
  std::uint64_t actual = 0;    ///< ...and what the file holds
  std::string name{};          ///< the record or parameter concerned
  Shape expected_shape{};      ///< OptimizerShapeMismatch: the parameter's shape
  Shape actual_shape{};        ///< OptimizerShapeMismatch: the moments' shape
  std::vector<std::string> expected_names{};  ///< OptimizerNamesMismatch: the model's, sorted
  std::vector<std::string> actual_names{};    ///< OptimizerNamesMismatch: the optimizer's
  std::string detail{};  ///< the layout fault, the nested error, or the system's reason
};

// region: checkpoint-error-table
/// The `checkpoint` area: each kind's stable name and message, in enum order.
struct CheckpointErrorTraits {
  using Kind = CheckpointErrorKind;                       ///< the area's kinds
  using Evidence = CheckpointErrorEvidence;               ///< the offending values
  static constexpr std::string_view area = "checkpoint";  ///< Error::area()
  /// Each kind's stable name and message, in enum order.
  static constexpr std::array<ErrorKindSpec<Kind>, 26> kinds{{
      {Kind::Truncated, "truncated", "{path}the checkpoint ends while reading the {field}"},
      {Kind::InvalidMagic, "invalid-magic",
       "{path}this is not a checkpoint: its first bytes are not LLMCP35"},
      {Kind::UnsupportedVersion, "unsupported-version",
       "{path}checkpoint schema version {actual} is not supported (this reader reads version "
       "{expected})"},
      {Kind::UnsupportedEndianness, "unsupported-endianness",
       "{path}the byte-order marker reads {actual_marker}, not 0x01020304"},
      {Kind::FileLengthMismatch, "file-length-mismatch",
       "{path}the header declares {expected} bytes in all, but the file holds {actual}: it is "
       "truncated or has extra bytes"},
      {Kind::ChecksumMismatch, "checksum-mismatch",
       "{path}checksum mismatch: the file stores fnv1a64:{expected_checksum}, its bytes hash "
       "to fnv1a64:{actual_checksum}"},
      {Kind::UnsupportedTokenizerLayout, "unsupported-tokenizer-layout",
       "{path}tokenizer layout version {actual} is not supported (expected {expected})"},
      {Kind::UnsupportedGeneratorAlgorithm, "unsupported-generator-algorithm",
       "{path}sampling generator algorithm version {actual} is not supported (expected "
       "{expected})"},
      {Kind::UnknownTokenizerKind, "unknown-tokenizer-kind",
       "{path}tokenizer kind tag {actual} is neither 1 (literal) nor 2 (byte BPE)"},
      {Kind::UnknownRecordRole, "unknown-record-role", "{path}record role tag {actual} is unknown"},
      {Kind::UnknownElementType, "unknown-element-type",
       "{path}record element-type tag {actual} is unknown"},
      {Kind::InvalidName, "invalid-name", "{path}the {field} is not valid UTF-8"},
      {Kind::SizeOverflow, "size-overflow", "{path}the {field} does not fit this machine's sizes"},
      {Kind::InvalidLayout, "invalid-layout", "{path}invalid record layout: {detail}"},
      {Kind::InvalidTokenizer, "invalid-tokenizer", "{path}invalid tokenizer: {detail}"},
      {Kind::InvalidParameter, "invalid-parameter", "{path}invalid parameter '{name}': {detail}"},
      {Kind::InvalidOptimizerState, "invalid-optimizer-state",
       "{path}invalid optimizer state: {detail}"},
      {Kind::VocabularyMismatch, "vocabulary-mismatch",
       "{path}the tokenizer has {actual} tokens but the model's vocabulary is {expected}"},
      {Kind::StepMismatch, "step-mismatch",
       "{path}the selected step {actual} differs from the optimizer's step count {expected}"},
      {Kind::OptimizerNamesMismatch, "optimizer-names-mismatch",
       "{path}the optimizer's moments name {actual_names}, the model's parameters are "
       "{expected_names}"},
      {Kind::OptimizerShapeMismatch, "optimizer-shape-mismatch",
       "{path}the moments of '{name}' have shape {actual_shape}, the parameter has "
       "{expected_shape}"},
      {Kind::NonCanonical, "non-canonical", "{path}non-canonical checkpoint: {detail}"},
      {Kind::ReadFailed, "read-failed", "{path}cannot read the checkpoint: {detail}"},
      {Kind::WriteFailed, "write-failed", "{path}cannot write the checkpoint: {detail}"},
      {Kind::ReplaceFailed, "replace-failed", "{path}cannot replace the checkpoint: {detail}"},
      {Kind::ModelMismatch, "model-mismatch",
       "{path}the checkpoint's parameters do not fit this model: {detail}"},
  }};
  /// One evidence field as the message prints it; `{path}` prints `FILE: `
  /// when a file is named and nothing for bytes in memory.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};
// endregion: checkpoint-error-table

/// An error of chapter 35's checkpoints (area `checkpoint`).
class CheckpointError : public KindedError<CheckpointErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw CheckpointError(CheckpointErrorKind::..., {.field = value});`
  explicit CheckpointError(CheckpointErrorKind kind, CheckpointErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}

  /// The same error about the file at `path` (the reader names the file).
  CheckpointError at_path(std::string path) const {
    Evidence evidence = this->evidence();
    evidence.path = std::move(path);
    return CheckpointError(kind(), std::move(evidence));
  }
};

}  // namespace llm
