// Checkpoints (chapter 35): one versioned, checksummed, little-endian file
// that holds everything needed to generate from a trained model or to take
// its next optimizer step exactly as the run that saved it would have: the
// tokenizer, the model's hyperparameters and parameters by name, the AdamW
// state (moments, step count, exact beta powers), the step that selection
// chose, and the sampling generator's state.
//
// The layout is the reference edition's version 1, byte for byte
// (docs/checkpoint-format.md has the table): a 38-byte fixed header (magic
// `LLMCP35\0`, version, byte-order marker, header and payload lengths, an
// FNV-1a 64 checksum of the whole file with its own field zeroed), a
// variable header (scalars, then a table describing every record: role,
// name, element type, shape, offset, length), then the records' payloads end
// to end with no padding. Every number is written byte by byte in
// little-endian order, never by casting memory, so the file is the same on
// every machine.
//
// Reading checks everything before anything is returned: a damaged,
// truncated, mismatched or unknown file is refused with a CheckpointError
// naming the reason, and a file that decodes must re-encode to the same bytes
// (one state, one file). Saving writes a temporary file in the destination's
// directory, syncs it, and renames it over the destination, so a crash
// mid-save leaves the old file or the new one under the final name, never a
// torn one.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "llm/nn/parameter_set.hpp"
#include "llm/text/bpe_tokenizer.hpp"
#include "llm/text/text_dataset.hpp"
#include "llm/training/adamw.hpp"
#include "llm/training/checkpoint_error.hpp"

namespace llm {

// region: checkpoint-constants
/// The schema version this library writes and reads.
inline constexpr std::uint16_t kCheckpointVersion = 1;
/// The first eight bytes of every checkpoint: `LLMCP35` and a zero byte.
inline constexpr std::array<std::uint8_t, 8> kCheckpointMagic = {'L', 'L', 'M', 'C',
                                                                 'P', '3', '5', 0};
/// The layout version of the tokenizer records.
inline constexpr std::uint16_t kCheckpointTokenizerLayout = 1;
/// The sampling generator's algorithm version: 1 is SplitMix64 (chapter 17).
inline constexpr std::uint16_t kCheckpointGeneratorAlgorithm = 1;
/// Bytes of the fixed header: magic 8, version 2, marker 4, header length 8,
/// payload length 8, checksum 8.
inline constexpr std::size_t kCheckpointFixedHeaderBytes = 38;
/// Where the checksum sits in the fixed header.
inline constexpr std::size_t kCheckpointChecksumOffset = 30;
// endregion: checkpoint-constants

// region: checkpoint-tokenizer
/// The tokenizer a checkpoint's token IDs refer to.
class CheckpointTokenizer {
 public:
  /// What the records hold.
  enum class Kind : std::uint8_t {
    Literal = 1,   ///< one byte string per token ID (chapters 33-38's fixtures)
    BytePair = 2,  ///< byte-level BPE merges (chapter 39, our BpeTokenizer)
  };

  /// Token i is spelled by the bytes pieces[i].
  /// @throws CheckpointError InvalidTokenizer (no piece, an empty piece, or
  ///         a piece spelled like an earlier one).
  static CheckpointTokenizer literal(std::vector<std::string> pieces);
  /// The merges of `tokenizer` in rank order, as training-ID pairs.
  static CheckpointTokenizer byte_pair(const BpeTokenizer& tokenizer);
  /// A byte-pair tokenizer from merges as a file stores them.
  /// @throws CheckpointError InvalidTokenizer (what BpeTokenizer::from_merge_pairs refuses).
  static CheckpointTokenizer byte_pair(std::vector<TokenPair> merges);

  /// Literal pieces or byte-pair merges.
  Kind kind() const noexcept { return kind_; }
  /// `literal-u32` or `byte-bpe`.
  std::string_view kind_name() const noexcept;
  /// How many token IDs the tokenizer defines.
  std::size_t vocabulary_size() const noexcept { return vocabulary_size_; }
  /// The literal pieces, token ID order (empty for BPE).
  const std::vector<std::string>& literal_pieces() const noexcept { return pieces_; }
  /// The BPE merges in rank order (empty for a literal tokenizer).
  const std::vector<TokenPair>& merges() const noexcept { return merges_; }
  /// The BPE tokenizer the merges define, or nothing for a literal one.
  std::optional<BpeTokenizer> bpe() const;
  /// The literal pieces as chapter 40's ByteVocabulary (token i is the i-th
  /// byte in increasing order), when every piece is exactly one byte and the
  /// pieces are in increasing byte order: the tokenizer chapter 40's
  /// checkpoints hold, which encodes a text byte by byte. Nothing for a
  /// byte-pair tokenizer, a piece of several bytes (chapters 33-38's
  /// fixtures) or one-byte pieces out of byte order.
  std::optional<ByteVocabulary> byte_vocabulary() const;

  /// Field-by-field equality.
  bool operator==(const CheckpointTokenizer&) const = default;

 private:
  CheckpointTokenizer() = default;
  Kind kind_ = Kind::Literal;
  std::size_t vocabulary_size_ = 0;
  std::vector<std::string> pieces_;
  std::vector<TokenPair> merges_;
};
// endregion: checkpoint-tokenizer

// region: checkpoint-model-config
/// The decoder hyperparameters a checkpoint records (chapter 32's decoder:
/// tied head, pre-norm blocks); every parameter's shape follows from them.
struct CheckpointModelConfig {
  std::size_t vocabulary_size = 0;     ///< V
  std::size_t model_width = 0;         ///< D
  std::size_t heads = 0;               ///< H
  std::size_t feed_forward_width = 0;  ///< the SwiGLU hidden width
  std::size_t layers = 0;              ///< N
  std::size_t context = 0;             ///< positions the model reads
  double rope_base = 0.0;              ///< the RoPE frequency base
  double rms_epsilon = 0.0;            ///< RMSNorm's epsilon

  /// Field-by-field equality.
  bool operator==(const CheckpointModelConfig&) const = default;
};
// endregion: checkpoint-model-config

// region: checkpoint-records
/// What a record holds.
enum class CheckpointRecordRole : std::uint8_t {
  LiteralToken = 1,           ///< one literal tokenizer piece (u8), named by its token ID
  BpePairs = 2,               ///< the BPE merges [n, 2] (u32), named `training-pairs`
  ModelParameter = 3,         ///< a parameter's values (f64), named by the parameter
  OptimizerFirstMoment = 4,   ///< AdamW's m of a parameter (f64)
  OptimizerSecondMoment = 5,  ///< AdamW's v of a parameter (f64)
};
/// How a record's elements are stored.
enum class CheckpointElementType : std::uint8_t { U8 = 1, U32 = 2, F64 = 3 };

/// `LiteralToken`, `BpePairs`, `ModelParameter`, `OptimizerFirstMoment`, `OptimizerSecondMoment`.
std::string_view checkpoint_record_role_name(CheckpointRecordRole role) noexcept;
/// `u8`, `u32` or `f64`.
std::string_view checkpoint_element_type_name(CheckpointElementType type) noexcept;

/// One row of the record table: where a record's payload lies.
struct CheckpointRecord {
  CheckpointRecordRole role = CheckpointRecordRole::ModelParameter;  ///< what the payload is
  std::string name;  ///< a parameter's name, a token ID, or `training-pairs`
  CheckpointElementType element_type = CheckpointElementType::F64;  ///< u8, u32 or f64
  Shape shape;                                                      ///< the payload's shape
  std::uint64_t offset = 0;                                         ///< from the start of the file
  std::uint64_t byte_length = 0;  ///< element count times element width

  /// offset + byte_length.
  std::uint64_t end() const noexcept { return offset + byte_length; }
  /// Field-by-field equality.
  bool operator==(const CheckpointRecord&) const = default;
};

/// A checkpoint's bytes and the table they were laid out from.
struct EncodedCheckpoint {
  std::vector<std::uint8_t> bytes;        ///< the whole file
  std::uint64_t header_bytes = 0;         ///< fixed header + variable header
  std::uint64_t checksum = 0;             ///< FNV-1a 64, as stored at offset 30
  std::vector<CheckpointRecord> records;  ///< in file order

  /// bytes.size() - header_bytes.
  std::uint64_t payload_bytes() const noexcept { return bytes.size() - header_bytes; }
  /// `fnv1a64:` and sixteen hexadecimal digits.
  std::string checksum_text() const;
};
// endregion: checkpoint-records

// region: checkpoint-class
/// Everything one checkpoint holds, checked to belong together.
class Checkpoint {
 public:
  /// Checks that the parts agree, in this order: every parameter name valid
  /// and unique and every value finite; the optimizer state valid
  /// (AdamW::from_state's checks); the tokenizer's vocabulary equal to the
  /// model's; the selected step equal to the optimizer's step count; after
  /// a step, the moments' names equal to the parameters' names and each
  /// moment's shape equal to its parameter's.
  /// @throws CheckpointError InvalidParameter, InvalidOptimizerState,
  ///         VocabularyMismatch, StepMismatch, OptimizerNamesMismatch,
  ///         OptimizerShapeMismatch.
  static Checkpoint create(CheckpointTokenizer tokenizer, CheckpointModelConfig model,
                           std::vector<NamedValue> parameters, AdamWState optimizer,
                           std::uint64_t selected_step, std::uint64_t generator_state);

  /// The tokenizer the model was trained with.
  const CheckpointTokenizer& tokenizer() const noexcept { return tokenizer_; }
  /// The hyperparameters that size the model.
  const CheckpointModelConfig& model_config() const noexcept { return model_; }
  /// The parameters by name, in the model's order.
  const std::vector<NamedValue>& parameters() const noexcept { return parameters_; }
  /// The optimizer's state: AdamW::from_state(optimizer_state()) continues it.
  const AdamWState& optimizer_state() const noexcept { return optimizer_; }
  /// The update count selection chose (chapter 33).
  std::uint64_t selected_step() const noexcept { return selected_step_; }
  /// The sampling generator's state: SplitMix64(generator_state()) continues it.
  std::uint64_t generator_state() const noexcept { return generator_state_; }
  /// The number of parameter scalars.
  std::size_t parameter_scalars() const noexcept;

  /// Loads the stored parameters into `parameters` by name, all or nothing
  /// (ParameterSet::load): a model of another layout is refused and keeps
  /// every value it had.
  /// @throws CheckpointError ModelMismatch naming the parameter and why
  ///         (missing, unexpected, another shape).
  void restore_parameters(const ParameterSet& parameters) const;

  /// The file's bytes and its record table. Deterministic: the same state
  /// always gives the same bytes.
  /// @throws CheckpointError SizeOverflow (a count that does not fit the format).
  EncodedCheckpoint encode() const;

  /// Reads a checkpoint from its bytes, checking everything first (the
  /// order is the kinds' order, docs/checkpoint-format.md).
  /// @throws CheckpointError naming the first fault; nothing is returned.
  static Checkpoint decode(std::span<const std::uint8_t> bytes);

  /// decode() of the file at `path`; every error names the path.
  /// @throws CheckpointError ReadFailed (missing or unreadable), or as decode().
  static Checkpoint load(const std::string& path);

  /// Writes encode() to `path` atomically: a new temporary file next to it
  /// (`.NAME.tmp-PID-N`), written, synced, renamed over `path`, and the
  /// directory synced. On any failure the temporary file is removed and
  /// `path` is as it was. Returns what was written.
  /// @throws CheckpointError WriteFailed, ReplaceFailed (naming the file and
  ///         the system's reason), or as encode().
  EncodedCheckpoint save(const std::string& path) const;

  /// Equal when their files are equal (encoding is canonical, so this
  /// compares every value bit for bit).
  friend bool operator==(const Checkpoint& a, const Checkpoint& b) {
    return a.encode().bytes == b.encode().bytes;
  }

 private:
  Checkpoint(CheckpointTokenizer tokenizer, CheckpointModelConfig model,
             std::vector<NamedValue> parameters, AdamWState optimizer, std::uint64_t selected_step,
             std::uint64_t generator_state)
      : tokenizer_(std::move(tokenizer)),
        model_(model),
        parameters_(std::move(parameters)),
        optimizer_(std::move(optimizer)),
        selected_step_(selected_step),
        generator_state_(generator_state) {}

  CheckpointTokenizer tokenizer_;
  CheckpointModelConfig model_;
  std::vector<NamedValue> parameters_;
  AdamWState optimizer_;
  std::uint64_t selected_step_ = 0;
  std::uint64_t generator_state_ = 0;
};
// endregion: checkpoint-class

/// FNV-1a 64 (Fowler, Noll and Vo) over `bytes`, with the eight checksum
/// bytes at offset 30 read as zeros: the checksum a checkpoint stores.
std::uint64_t checkpoint_checksum(std::span<const std::uint8_t> bytes) noexcept;

}  // namespace llm
