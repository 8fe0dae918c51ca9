// Chapter 35: the checkpoint format. The reference edition's own version-1
// file decodes with our reader and re-encodes with our writer byte for byte
// (its sizes, record table, first bytes and checksum are the ones chapter 35
// prints); a constructed checkpoint round-trips; every corrupted variant is
// refused with its own kind; parts that do not belong together are refused.
#include <gtest/gtest.h>

#include <bit>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "llm/format.hpp"
#include "llm/nn/init.hpp"
#include "llm/training/checkpoint.hpp"
#include "support/test_support.hpp"
#include "training/reference_ch35.hpp"

namespace llm {
namespace {

using testing::capture_error;

std::vector<std::uint8_t> reference_bytes() {
  return testing::reference_ch35_bytes();
}

std::string record_summary(const CheckpointRecord& record) {
  return record.name + ":" + std::string(checkpoint_record_role_name(record.role)) + "/" +
         std::string(checkpoint_element_type_name(record.element_type)) + shape_text(record.shape) +
         "@" + std::to_string(record.offset) + ".." + std::to_string(record.end());
}

std::string hex_prefix(const std::vector<std::uint8_t>& bytes) {
  std::string text;
  for (std::size_t i = 0; i < 16; ++i) {
    char pair[4];
    std::snprintf(pair, sizeof pair, "%02x", bytes[i]);
    text += (i == 0 ? "" : " ") + std::string(pair);
  }
  return text;
}

// The lines of chapter 35's expected output that describe the file itself:
// schema=, tokenizer=, layout=, hex=, state= and the counts of contrast=.
TEST(CheckpointFormat, TheReferenceFileDecodesAndReencodesByteForByte) {
  const std::vector<std::uint8_t> bytes = reference_bytes();
  ASSERT_EQ(bytes.size(), 6330u);
  const Checkpoint checkpoint = Checkpoint::decode(bytes);
  const EncodedCheckpoint encoded = checkpoint.encode();
  EXPECT_EQ(encoded.bytes, bytes);

  // schema=version:1 magic:LLMCP35 endian:little header_bytes:2869 payload_bytes:3461
  // file_bytes:6330 checksum:fnv1a64:2b8b6097eaed6a91
  EXPECT_EQ(encoded.header_bytes, 2869u);
  EXPECT_EQ(encoded.payload_bytes(), 3461u);
  EXPECT_EQ(encoded.checksum_text(), "fnv1a64:2b8b6097eaed6a91");
  // tokenizer=kind:literal-u32 layout_version:1 vocabulary:5 pieces:5 decoder_vocabulary:5
  EXPECT_EQ(checkpoint.tokenizer().kind_name(), "literal-u32");
  EXPECT_EQ(checkpoint.tokenizer().literal_pieces(),
            (std::vector<std::string>{"0", "1", "2", "3", "4"}));
  EXPECT_EQ(checkpoint.model_config().vocabulary_size, 5u);
  // layout=records:38 first:0:LiteralToken/u8[1]@2869..2870
  // first_parameter:token_embedding.weight:ModelParameter/f64[5, 4]@2874..3034 final_end:6330
  ASSERT_EQ(encoded.records.size(), 38u);
  EXPECT_EQ(record_summary(encoded.records[0]), "0:LiteralToken/u8[1]@2869..2870");
  EXPECT_EQ(record_summary(encoded.records[5]),
            "token_embedding.weight:ModelParameter/f64[5, 4]@2874..3034");
  EXPECT_EQ(encoded.records.back().end(), 6330u);
  // hex=4c 4c 4d 43 50 33 35 00 01 00 04 03 02 01 35 0b
  EXPECT_EQ(hex_prefix(encoded.bytes), "4c 4c 4d 43 50 33 35 00 01 00 04 03 02 01 35 0b");
  // state=selected_step:8 optimizer_step:8 parameter_tensors:11 parameter_scalars:144
  // sampling_rng:splitmix64-v1 sampling_rng_state:0x9e3779b97f4a7c38
  EXPECT_EQ(checkpoint.selected_step(), 8u);
  EXPECT_EQ(checkpoint.optimizer_state().step_count, 8u);
  EXPECT_EQ(checkpoint.parameters().size(), 11u);
  EXPECT_EQ(checkpoint.parameter_scalars(), 144u);
  EXPECT_EQ(checkpoint.generator_state(), 0x9e3779b97f4a7c38ULL);
  // contrast=... checkpoint_records:38 tokenizer_records:5 optimizer_moment_records:22
  EXPECT_EQ(checkpoint.optimizer_state().moments.size() * 2, 22u);
  // The model and optimizer it holds: chapter 33's fixture.
  const CheckpointModelConfig& model = checkpoint.model_config();
  EXPECT_EQ((std::vector<std::size_t>{model.model_width, model.heads, model.feed_forward_width,
                                      model.layers, model.context}),
            (std::vector<std::size_t>{4, 2, 4, 1, 2}));
  EXPECT_EQ(model.rope_base, 10000.0);
  EXPECT_EQ(model.rms_epsilon, 1e-6);
  EXPECT_EQ(checkpoint.optimizer_state().config.learning_rate(), 0.04);
  EXPECT_EQ(checkpoint.optimizer_state().groups->no_decay_names(),
            (std::vector<std::string>{"blocks.0.attention_norm.gain", "blocks.0.ffn_norm.gain",
                                      "final_norm.gain"}));
  // The beta powers are the running products 0.9^8 and 0.999^8, multiplied step by step.
  double beta1_power = 1.0, beta2_power = 1.0;
  for (int t = 0; t < 8; ++t) beta1_power *= 0.9, beta2_power *= 0.999;
  EXPECT_EQ(std::bit_cast<std::uint64_t>(checkpoint.optimizer_state().beta1_power),
            std::bit_cast<std::uint64_t>(beta1_power));
  EXPECT_EQ(std::bit_cast<std::uint64_t>(checkpoint.optimizer_state().beta2_power),
            std::bit_cast<std::uint64_t>(beta2_power));
  // The optimizer it holds continues: from_state accepts it.
  EXPECT_EQ(AdamW::from_state(checkpoint.optimizer_state()).step_count(), 8u);
}

// state=... sampling_rng_state:0x9e3779b97f4a7c38; roundtrip=...
// sampling_rng_next:0x9a8c505971939232; atomic=... loaded_sampling_rng_state:0x9e3779b97f4a7c39;
// contrast=... isolated_parameter_bytes:1152
TEST(CheckpointFormat, TheStoredGeneratorContinuesTheSeed35Stream) {
  SplitMix64 generator(35);
  generator.next_u64();  // chapter 35 stores the state after one draw
  EXPECT_EQ(generator.state(), 0x9e3779b97f4a7c38ULL);
  const Checkpoint checkpoint = Checkpoint::decode(reference_bytes());
  EXPECT_EQ(checkpoint.generator_state(), generator.state());
  SplitMix64 resumed(checkpoint.generator_state());
  EXPECT_EQ(resumed.next_u64(), 0x9a8c505971939232ULL);
  EXPECT_EQ(generator.next_u64(), 0x9a8c505971939232ULL);  // the saved stream continues the seed's
  EXPECT_EQ(checkpoint.parameter_scalars() * sizeof(double), 1152u);
}

std::vector<NamedValue> small_parameters() {
  return {{"table.weight", Tensor(Shape{3, 2}, {0.5, -0.25, 1.0, 2.0, -3.0, 0.125})},
          {"norm.gain", Tensor(Shape{2}, {1.0, 1.0})}};
}

CheckpointModelConfig small_model(std::size_t vocabulary) {
  return {vocabulary, 2, 1, 2, 1, 4, 10000.0, 1e-6};
}

AdamWState stepped_optimizer() {
  const TensorValue table = TensorValue::parameter(Tensor(Shape{3, 2}, {0, 0, 0, 0, 0, 0}));
  const TensorValue gain = TensorValue::parameter(Tensor(Shape{2}, {1.0, 1.0}));
  ParameterSet set;
  set.add("table.weight", table);
  set.add("norm.gain", gain);
  table.backward_with_seed(Tensor(Shape{3, 2}, {0.1, -0.2, 0.3, 0.0, 0.5, -0.6}),
                           Retention::Retain);
  gain.backward_with_seed(Tensor(Shape{2}, {0.7, -0.8}), Retention::Retain);
  AdamW optimizer(AdamWConfig::create(0.01, 0.9, 0.999, 1e-8, 0.1),
                  AdamWParameterGroups::create({"table.weight"}, {"norm.gain"}));
  optimizer.step(set);
  return optimizer.state();
}

Checkpoint literal_checkpoint() {
  return Checkpoint::create(CheckpointTokenizer::literal({"a", "bb", "c"}), small_model(3),
                            small_parameters(), stepped_optimizer(), 1, 0x1234);
}

TEST(CheckpointFormat, AConstructedCheckpointRoundTrips) {
  const Checkpoint checkpoint = literal_checkpoint();
  const EncodedCheckpoint encoded = checkpoint.encode();
  EXPECT_EQ(checkpoint.encode().bytes, encoded.bytes);  // deterministic
  const Checkpoint decoded = Checkpoint::decode(encoded.bytes);
  EXPECT_EQ(decoded, checkpoint);
  EXPECT_EQ(decoded.optimizer_state(), checkpoint.optimizer_state());
  EXPECT_EQ(decoded.generator_state(), 0x1234u);
  EXPECT_EQ(testing::bits_of(decoded.parameters()[0].value),
            testing::bits_of(checkpoint.parameters()[0].value));
  // Records: 3 pieces, 2 parameters (model order), then m and v by sorted name.
  std::vector<std::string> names;
  for (const CheckpointRecord& record : encoded.records) names.push_back(record.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"0", "1", "2", "table.weight", "norm.gain", "norm.gain",
                                      "norm.gain", "table.weight", "table.weight"}));
  EXPECT_EQ(checkpoint_checksum(encoded.bytes), encoded.checksum);
}

TEST(CheckpointFormat, AByteLevelBpeTokenizerRoundTrips) {
  const std::vector<TokenPair> merges = {{'a', 'b'}, {256, 'c'}};
  const CheckpointTokenizer tokenizer = CheckpointTokenizer::byte_pair(merges);
  EXPECT_EQ(tokenizer.vocabulary_size(), 260u);  // 256 bytes, BOS, EOS, two merges
  EXPECT_EQ(tokenizer.kind_name(), "byte-bpe");
  const Checkpoint checkpoint =
      Checkpoint::create(tokenizer, small_model(260), small_parameters(),
                         AdamW(AdamWConfig::create(0.01, 0.9, 0.999, 1e-8, 0.0)).state(), 0, 38);
  const EncodedCheckpoint encoded = checkpoint.encode();
  EXPECT_EQ(encoded.records[0].name, "training-pairs");
  EXPECT_EQ(encoded.records[0].shape, (Shape{2, 2}));
  const Checkpoint decoded = Checkpoint::decode(encoded.bytes);
  EXPECT_EQ(decoded.tokenizer().merges(), merges);
  EXPECT_EQ(decoded.tokenizer().bpe()->vocabulary_size(), 260u);
  EXPECT_EQ(capture_error<CheckpointError>([] {
              CheckpointTokenizer::byte_pair({{'a', 'b'}, {'a', 'b'}});
            })->kind(),
            CheckpointErrorKind::InvalidTokenizer);
}

// Chapter 40's checkpoints spell one byte per token, in byte order: a reader
// takes them back as the ByteVocabulary that encodes a prompt byte by byte.
TEST(CheckpointTokenizer, OneBytePiecesInByteOrderReadBackAsAByteVocabulary) {
  const std::optional<ByteVocabulary> bytes =
      CheckpointTokenizer::literal({"\n", " ", "A", "a"}).byte_vocabulary();
  ASSERT_TRUE(bytes.has_value());
  EXPECT_EQ(bytes->symbols(), "\n Aa");
  EXPECT_EQ(bytes->encode("a A\n"), (std::vector<TokenId>{3, 1, 2, 0}));
  // The reference edition's chapter-35 file spells its five tokens "0" to "4".
  const std::optional<ByteVocabulary> digits =
      Checkpoint::decode(reference_bytes()).tokenizer().byte_vocabulary();
  ASSERT_TRUE(digits.has_value());
  EXPECT_EQ(digits->symbols(), "01234");
  // Nothing for one-byte pieces out of byte order, a piece of two bytes, merges.
  EXPECT_FALSE(CheckpointTokenizer::literal({"b", "a"}).byte_vocabulary().has_value());
  EXPECT_FALSE(CheckpointTokenizer::literal({"a", "bb", "c"}).byte_vocabulary().has_value());
  const std::vector<TokenPair> merges = {{'a', 'b'}, {256, 'c'}};
  EXPECT_FALSE(CheckpointTokenizer::byte_pair(merges).byte_vocabulary().has_value());
}

// --- Corrupted files --------------------------------------------------------

// Offsets of fields in the reference file (docs/checkpoint-format.md).
constexpr std::size_t kVersion = 8, kMarker = 10, kTokenizerLayout = 38, kAlgorithm = 40,
                      kSelectedStep = 42, kTokenizerKind = 58, kModelVocabulary = 67, kBeta1 = 139,
                      kGroupsFlag = 171;

void put_le(std::vector<std::uint8_t>& bytes, std::size_t offset, std::uint64_t value, int width) {
  for (int i = 0; i < width; ++i) bytes[offset + i] = static_cast<std::uint8_t>(value >> (8 * i));
}

// Rewrites the checksum so that the corruption behind it is what is checked.
std::vector<std::uint8_t> resealed(std::vector<std::uint8_t> bytes) {
  put_le(bytes, kCheckpointChecksumOffset, checkpoint_checksum(bytes), 8);
  return bytes;
}

struct Corruption {
  std::string what;
  std::vector<std::uint8_t> bytes;
  CheckpointErrorKind kind;
};

std::vector<Corruption> corruptions() {
  const std::vector<std::uint8_t> good = reference_bytes();
  const EncodedCheckpoint encoded = Checkpoint::decode(good).encode();
  const auto record = [&](std::string_view name, CheckpointRecordRole role) {
    for (const CheckpointRecord& r : encoded.records) {
      if (r.name == name && r.role == role) return r;
    }
    throw std::logic_error("no such record");
  };
  std::vector<Corruption> cases;
  const auto add = [&](std::string what, CheckpointErrorKind kind, auto&& change) {
    std::vector<std::uint8_t> bytes = good;
    change(bytes);
    cases.push_back({std::move(what), std::move(bytes), kind});
  };
  add("a flipped payload byte", CheckpointErrorKind::ChecksumMismatch,
      [](auto& b) { b.back() ^= 1; });
  add("a flipped header byte", CheckpointErrorKind::ChecksumMismatch,
      [](auto& b) { b[kModelVocabulary] ^= 0x10; });
  add("the last byte cut off", CheckpointErrorKind::FileLengthMismatch,
      [](auto& b) { b.pop_back(); });
  add("a byte appended", CheckpointErrorKind::FileLengthMismatch, [](auto& b) { b.push_back(0); });
  add("cut inside the fixed header", CheckpointErrorKind::Truncated, [](auto& b) { b.resize(20); });
  add("the wrong magic", CheckpointErrorKind::InvalidMagic, [](auto& b) { b[3] = 'X'; });
  add("the next version", CheckpointErrorKind::UnsupportedVersion,
      [](auto& b) { put_le(b, kVersion, 2, 2); });
  add("a big-endian marker", CheckpointErrorKind::UnsupportedEndianness,
      [](auto& b) { put_le(b, kMarker, 0x04030201, 4); });
  add("an unknown tokenizer layout", CheckpointErrorKind::UnsupportedTokenizerLayout,
      [](auto& b) { b = resealed((put_le(b, kTokenizerLayout, 2, 2), b)); });
  add("an unknown generator algorithm", CheckpointErrorKind::UnsupportedGeneratorAlgorithm,
      [](auto& b) { b = resealed((put_le(b, kAlgorithm, 7, 2), b)); });
  add("an unknown tokenizer kind", CheckpointErrorKind::UnknownTokenizerKind,
      [](auto& b) { b = resealed((b[kTokenizerKind] = 3, b)); });
  add("a model vocabulary of 6", CheckpointErrorKind::VocabularyMismatch,
      [](auto& b) { b = resealed((put_le(b, kModelVocabulary, 6, 8), b)); });
  add("a selected step of 9", CheckpointErrorKind::StepMismatch,
      [](auto& b) { b = resealed((put_le(b, kSelectedStep, 9, 8), b)); });
  add("beta1 = 1.5", CheckpointErrorKind::InvalidOptimizerState,
      [](auto& b) { b = resealed((put_le(b, kBeta1, std::bit_cast<std::uint64_t>(1.5), 8), b)); });
  add("a groups flag of 2", CheckpointErrorKind::NonCanonical,
      [](auto& b) { b = resealed((b[kGroupsFlag] = 2, b)); });
  const CheckpointRecord table =
      record("token_embedding.weight", CheckpointRecordRole::ModelParameter);
  add("a NaN parameter", CheckpointErrorKind::InvalidParameter, [&](auto& b) {
    const auto nan = std::bit_cast<std::uint64_t>(std::numeric_limits<double>::quiet_NaN());
    b = resealed((put_le(b, table.offset + 8, nan, 8), b));
  });
  const CheckpointRecord second =
      record("final_norm.gain", CheckpointRecordRole::OptimizerSecondMoment);
  add("a negative second moment", CheckpointErrorKind::InvalidOptimizerState, [&](auto& b) {
    b = resealed((put_le(b, second.offset, std::bit_cast<std::uint64_t>(-1.0), 8), b));
  });
  add("two literal tokens spelled alike", CheckpointErrorKind::InvalidTokenizer,
      [&](auto& b) { b = resealed((b[encoded.records[1].offset] = '0', b)); });
  return cases;
}

TEST(CheckpointFormat, EveryCorruptedVariantIsRefusedWithItsOwnKind) {
  const std::vector<Corruption> cases = corruptions();
  ASSERT_GE(cases.size(), 10u);
  std::set<CheckpointErrorKind> kinds;
  for (const Corruption& c : cases) {
    const auto error = capture_error<CheckpointError>([&] { Checkpoint::decode(c.bytes); });
    EXPECT_EQ(error->kind(), c.kind) << c.what << ": " << error->what();
    kinds.insert(error->kind());
  }
  EXPECT_GE(kinds.size(), 14u);  // distinct reasons, not one generic refusal
}

TEST(CheckpointFormat, RefusalsNameTheReason) {
  std::vector<std::uint8_t> bytes = reference_bytes();
  bytes.back() ^= 1;
  const auto checksum = capture_error<CheckpointError>([&] { Checkpoint::decode(bytes); });
  EXPECT_EQ(checksum->area(), "checkpoint");
  EXPECT_EQ(checksum->kind_name(), "checksum-mismatch");
  EXPECT_EQ(std::string(checksum->what())
                .rfind("checksum mismatch: the file stores "
                       "fnv1a64:2b8b6097eaed6a91, its bytes hash to fnv1a64:",
                       0),
            0u);
  bytes = reference_bytes();
  put_le(bytes, kVersion, 2, 2);
  EXPECT_STREQ(capture_error<CheckpointError>([&] { Checkpoint::decode(bytes); })->what(),
               "checkpoint schema version 2 is not supported (this reader reads version 1)");
}

// --- Parts that do not belong together ----------------------------------------

TEST(CheckpointParts, MismatchedPartsAreRefusedWithTheirKind) {
  const auto refused = [](auto&& make) { return capture_error<CheckpointError>(make)->kind(); };
  EXPECT_EQ(refused([] {
              Checkpoint::create(CheckpointTokenizer::literal({"x"}), small_model(3),
                                 small_parameters(), stepped_optimizer(), 1, 0);
            }),
            CheckpointErrorKind::VocabularyMismatch);
  EXPECT_EQ(refused([] {
              Checkpoint::create(CheckpointTokenizer::literal({"a", "b", "c"}), small_model(3),
                                 small_parameters(), stepped_optimizer(), 2, 0);
            }),
            CheckpointErrorKind::StepMismatch);
  EXPECT_EQ(refused([] {
              std::vector<NamedValue> parameters = small_parameters();
              parameters[1].name = "other.gain";
              Checkpoint::create(CheckpointTokenizer::literal({"a", "b", "c"}), small_model(3),
                                 parameters, stepped_optimizer(), 1, 0);
            }),
            CheckpointErrorKind::OptimizerNamesMismatch);
  EXPECT_EQ(refused([] {
              std::vector<NamedValue> parameters = small_parameters();
              parameters[1].value = Tensor(Shape{1, 2}, {1.0, 1.0});
              Checkpoint::create(CheckpointTokenizer::literal({"a", "b", "c"}), small_model(3),
                                 parameters, stepped_optimizer(), 1, 0);
            }),
            CheckpointErrorKind::OptimizerShapeMismatch);
  EXPECT_EQ(refused([] {
              std::vector<NamedValue> parameters = small_parameters();
              parameters[0].name = "Table.weight";
              Checkpoint::create(CheckpointTokenizer::literal({"a", "b", "c"}), small_model(3),
                                 parameters, stepped_optimizer(), 1, 0);
            }),
            CheckpointErrorKind::InvalidParameter);
  EXPECT_EQ(refused([] {
              CheckpointTokenizer::literal({"a", "a"});
            }),
            CheckpointErrorKind::InvalidTokenizer);
  EXPECT_EQ(refused([] { CheckpointTokenizer::literal({}); }),
            CheckpointErrorKind::InvalidTokenizer);
}

}  // namespace
}  // namespace llm
