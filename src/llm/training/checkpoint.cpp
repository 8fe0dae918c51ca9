// The checkpoint format of chapter 35: checked parts, the little-endian
// encoder, and the reader that checks everything before returning anything.
// Saving and loading files is in checkpoint_file.cpp.
#include "llm/training/checkpoint.hpp"

#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "llm/fnv1a.hpp"
#include "llm/text/text_units.hpp"

namespace llm {

namespace {

constexpr std::uint32_t kByteOrderMarker = 0x01020304;
constexpr std::string_view kBpeRecordName = "training-pairs";

CheckpointError error(CheckpointErrorKind kind, CheckpointErrorEvidence evidence = {}) {
  return CheckpointError(kind, std::move(evidence));
}

CheckpointError layout_error(std::string detail) {
  return error(CheckpointErrorKind::InvalidLayout, {.detail = std::move(detail)});
}

// region: little-endian-writer
// Appends numbers byte by byte, least significant first: the file's byte
// order never depends on the machine's.
class ByteWriter {
 public:
  explicit ByteWriter(std::vector<std::uint8_t>& bytes) : bytes_(bytes) {}
  void u8(std::uint8_t value) { bytes_.push_back(value); }
  void u16(std::uint16_t value) { little_endian(value, 2); }
  void u32(std::uint32_t value) { little_endian(value, 4); }
  void u64(std::uint64_t value) { little_endian(value, 8); }
  void f64(double value) { u64(std::bit_cast<std::uint64_t>(value)); }  // the exact bits
  void text(std::string_view value) {  // u32 length, then the bytes
    u32(static_cast<std::uint32_t>(value.size()));
    bytes_.insert(bytes_.end(), value.begin(), value.end());
  }

 private:
  void little_endian(std::uint64_t value, int width) {
    for (int i = 0; i < width; ++i) bytes_.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
  }
  std::vector<std::uint8_t>& bytes_;
};
// endregion: little-endian-writer

std::uint32_t fits_u32(std::size_t value, std::string_view field) {
  if (value > std::numeric_limits<std::uint32_t>::max()) {
    throw error(CheckpointErrorKind::SizeOverflow, {.field = field});
  }
  return static_cast<std::uint32_t>(value);
}

std::size_t width_of(CheckpointElementType type) {
  switch (type) {
    case CheckpointElementType::U8:
      return 1;
    case CheckpointElementType::U32:
      return 4;
    case CheckpointElementType::F64:
      return 8;
  }
  return 0;
}

// Element count of `shape` times the element width, or nothing on overflow.
std::optional<std::uint64_t> payload_length(const Shape& shape, CheckpointElementType type) {
  std::uint64_t count = 1;
  for (std::size_t extent : shape) {
    if (extent != 0 && count > std::numeric_limits<std::uint64_t>::max() / extent) return {};
    count *= extent;
  }
  const std::uint64_t width = width_of(type);
  if (count > std::numeric_limits<std::uint64_t>::max() / width) return {};
  return count * width;
}

}  // namespace

// --- The tokenizer ----------------------------------------------------------

CheckpointTokenizer CheckpointTokenizer::literal(std::vector<std::string> pieces) {
  if (pieces.empty()) {
    throw error(CheckpointErrorKind::InvalidTokenizer,
                {.detail = "a literal tokenizer needs at least one piece"});
  }
  std::set<std::string_view> seen;
  for (std::size_t id = 0; id < pieces.size(); ++id) {
    if (pieces[id].empty()) {
      throw error(CheckpointErrorKind::InvalidTokenizer,
                  {.detail = "literal token " + std::to_string(id) + " has no bytes"});
    }
    if (!seen.insert(pieces[id]).second) {
      throw error(
          CheckpointErrorKind::InvalidTokenizer,
          {.detail = "literal token " + std::to_string(id) + " is spelled like an earlier token"});
    }
  }
  CheckpointTokenizer tokenizer;
  tokenizer.kind_ = Kind::Literal;
  tokenizer.vocabulary_size_ = pieces.size();
  tokenizer.pieces_ = std::move(pieces);
  return tokenizer;
}

CheckpointTokenizer CheckpointTokenizer::byte_pair(const BpeTokenizer& bpe) {
  CheckpointTokenizer tokenizer;
  tokenizer.kind_ = Kind::BytePair;
  tokenizer.vocabulary_size_ = bpe.vocabulary_size();
  for (const BpeMergeRule& rule : bpe.merge_rules())
    tokenizer.merges_.push_back(rule.training_pair);
  return tokenizer;
}

CheckpointTokenizer CheckpointTokenizer::byte_pair(std::vector<TokenPair> merges) {
  try {
    return byte_pair(BpeTokenizer::from_merge_pairs(merges));
  } catch (const Error& cause) {
    throw error(CheckpointErrorKind::InvalidTokenizer,
                {.detail = std::string(cause.kind_name()) + ": " + cause.what()});
  }
}

std::string_view CheckpointTokenizer::kind_name() const noexcept {
  return kind_ == Kind::Literal ? "literal-u32" : "byte-bpe";
}

std::optional<BpeTokenizer> CheckpointTokenizer::bpe() const {
  if (kind_ != Kind::BytePair) return std::nullopt;
  return BpeTokenizer::from_merge_pairs(merges_);
}

std::optional<ByteVocabulary> CheckpointTokenizer::byte_vocabulary() const {
  if (kind_ != Kind::Literal || pieces_.empty()) return std::nullopt;
  std::string symbols;
  for (const std::string& piece : pieces_) {
    if (piece.size() != 1) return std::nullopt;
    symbols += piece;
  }
  // from_text keeps each distinct byte once, in increasing order: the same
  // symbols back mean the pieces were already in byte order.
  ByteVocabulary vocabulary = ByteVocabulary::from_text(symbols);
  if (vocabulary.symbols() != symbols) return std::nullopt;
  return vocabulary;
}

std::string_view checkpoint_record_role_name(CheckpointRecordRole role) noexcept {
  switch (role) {
    case CheckpointRecordRole::LiteralToken:
      return "LiteralToken";
    case CheckpointRecordRole::BpePairs:
      return "BpePairs";
    case CheckpointRecordRole::ModelParameter:
      return "ModelParameter";
    case CheckpointRecordRole::OptimizerFirstMoment:
      return "OptimizerFirstMoment";
    case CheckpointRecordRole::OptimizerSecondMoment:
      return "OptimizerSecondMoment";
  }
  return "unknown";
}

std::string_view checkpoint_element_type_name(CheckpointElementType type) noexcept {
  switch (type) {
    case CheckpointElementType::U8:
      return "u8";
    case CheckpointElementType::U32:
      return "u32";
    case CheckpointElementType::F64:
      return "f64";
  }
  return "unknown";
}

std::string EncodedCheckpoint::checksum_text() const {
  return fnv1a64_text(checksum);
}

// region: checkpoint-checksum
std::uint64_t checkpoint_checksum(std::span<const std::uint8_t> bytes) noexcept {
  Fnv1a64 hash;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const bool in_checksum_field =
        i >= kCheckpointChecksumOffset && i < kCheckpointChecksumOffset + 8;
    hash.add(in_checksum_field ? 0 : bytes[i]);  // the stored checksum reads as zeros
  }
  return hash.value();
}
// endregion: checkpoint-checksum

// --- Checked parts ------------------------------------------------------------

// region: checkpoint-create
Checkpoint Checkpoint::create(CheckpointTokenizer tokenizer, CheckpointModelConfig model,
                              std::vector<NamedValue> parameters, AdamWState optimizer,
                              std::uint64_t selected_step, std::uint64_t generator_state) {
  std::map<std::string, Shape> shapes;  // sorted, as the optimizer's moments are
  for (const NamedValue& parameter : parameters) {
    try {
      validate_parameter_name(parameter.name);
    } catch (const Error& cause) {
      throw error(CheckpointErrorKind::InvalidParameter,
                  {.name = parameter.name, .detail = cause.what()});
    }
    if (!shapes.emplace(parameter.name, parameter.value.shape()).second) {
      throw error(CheckpointErrorKind::InvalidParameter,
                  {.name = parameter.name, .detail = "the name appears twice"});
    }
    const Tensor values = parameter.value.materialize();
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (!std::isfinite(values.values()[i])) {
        throw error(
            CheckpointErrorKind::InvalidParameter,
            {.name = parameter.name, .detail = "element " + std::to_string(i) + " is not finite"});
      }
    }
  }
  try {
    AdamW::from_state(optimizer);  // the same checks a resumed optimizer makes
  } catch (const AdamWStateError& cause) {
    throw error(CheckpointErrorKind::InvalidOptimizerState,
                {.detail = std::string(cause.kind_name()) + ": " + cause.what()});
  }
  if (tokenizer.vocabulary_size() != model.vocabulary_size) {
    throw error(CheckpointErrorKind::VocabularyMismatch,
                {.expected = model.vocabulary_size, .actual = tokenizer.vocabulary_size()});
  }
  if (selected_step != optimizer.step_count) {
    throw error(CheckpointErrorKind::StepMismatch,
                {.expected = optimizer.step_count, .actual = selected_step});
  }
  if (selected_step > 0) {
    std::vector<std::string> model_names, moment_names;
    for (const auto& [name, shape] : shapes) model_names.push_back(name);
    for (const auto& [name, moments] : optimizer.moments) moment_names.push_back(name);
    if (moment_names != model_names) {
      throw error(CheckpointErrorKind::OptimizerNamesMismatch,
                  {.expected_names = model_names, .actual_names = moment_names});
    }
    for (const auto& [name, shape] : shapes) {
      const Shape& moment_shape = optimizer.moments.find(name)->second.shape;
      if (moment_shape != shape) {
        throw error(CheckpointErrorKind::OptimizerShapeMismatch,
                    {.name = name, .expected_shape = shape, .actual_shape = moment_shape});
      }
    }
  }
  return Checkpoint(std::move(tokenizer), model, std::move(parameters), std::move(optimizer),
                    selected_step, generator_state);
}
// endregion: checkpoint-create

std::size_t Checkpoint::parameter_scalars() const noexcept {
  std::size_t count = 0;
  for (const NamedValue& parameter : parameters_) count += parameter.value.size();
  return count;
}

// region: checkpoint-restore-parameters
void Checkpoint::restore_parameters(const ParameterSet& parameters) const {
  try {
    parameters.load(parameters_);
  } catch (const ParameterError& cause) {
    throw error(
        CheckpointErrorKind::ModelMismatch,
        {.name = cause.name(), .detail = std::string(cause.kind_name()) + ": " + cause.what()});
  }
}
// endregion: checkpoint-restore-parameters

// --- Encoding -----------------------------------------------------------------

namespace {

// One record and where its payload comes from.
struct PlannedRecord {
  CheckpointRecord record;
  std::span<const std::uint8_t> bytes{};         // LiteralToken
  std::span<const TokenPair> pairs{};            // BpePairs
  SharedTensor values{};                         // ModelParameter (contiguous)
  const std::vector<double>* moments = nullptr;  // optimizer moments
};

PlannedRecord planned(CheckpointRecordRole role, std::string name, CheckpointElementType type,
                      Shape shape) {
  PlannedRecord plan;
  plan.record.role = role;
  plan.record.name = std::move(name);
  plan.record.element_type = type;
  plan.record.byte_length = *payload_length(shape, type);  // shapes of held data cannot overflow
  plan.record.shape = std::move(shape);
  return plan;
}

// region: checkpoint-record-plan
// Tokenizer records, then every parameter in the model's order, then each
// parameter's first and second moment in name order.
std::vector<PlannedRecord> plan_records(const Checkpoint& checkpoint) {
  std::vector<PlannedRecord> plans;
  const CheckpointTokenizer& tokenizer = checkpoint.tokenizer();
  if (tokenizer.kind() == CheckpointTokenizer::Kind::Literal) {
    for (std::size_t id = 0; id < tokenizer.literal_pieces().size(); ++id) {
      const std::string& piece = tokenizer.literal_pieces()[id];
      PlannedRecord plan = planned(CheckpointRecordRole::LiteralToken, std::to_string(id),
                                   CheckpointElementType::U8, Shape{piece.size()});
      plan.bytes = {reinterpret_cast<const std::uint8_t*>(piece.data()), piece.size()};
      plans.push_back(std::move(plan));
    }
  } else {
    PlannedRecord plan = planned(CheckpointRecordRole::BpePairs, std::string(kBpeRecordName),
                                 CheckpointElementType::U32, Shape{tokenizer.merges().size(), 2});
    plan.pairs = tokenizer.merges();
    plans.push_back(std::move(plan));
  }
  for (const NamedValue& parameter : checkpoint.parameters()) {
    PlannedRecord plan = planned(CheckpointRecordRole::ModelParameter, parameter.name,
                                 CheckpointElementType::F64, parameter.value.shape());
    plan.values = parameter.value.contiguous();
    plans.push_back(std::move(plan));
  }
  for (const auto& [name, moments] : checkpoint.optimizer_state().moments) {
    PlannedRecord first = planned(CheckpointRecordRole::OptimizerFirstMoment, name,
                                  CheckpointElementType::F64, moments.shape);
    first.moments = &moments.first;
    plans.push_back(std::move(first));
    PlannedRecord second = planned(CheckpointRecordRole::OptimizerSecondMoment, name,
                                   CheckpointElementType::F64, moments.shape);
    second.moments = &moments.second;
    plans.push_back(std::move(second));
  }
  return plans;
}
// endregion: checkpoint-record-plan

void write_names(ByteWriter& out, const std::vector<std::string>& names, std::string_view field) {
  out.u32(fits_u32(names.size(), field));
  for (const std::string& name : names) {
    fits_u32(name.size(), field);
    out.text(name);
  }
}

// region: checkpoint-header-writer
void write_fixed_header(ByteWriter& out, std::uint64_t header_bytes, std::uint64_t payload_bytes) {
  for (std::uint8_t byte : kCheckpointMagic) out.u8(byte);
  out.u16(kCheckpointVersion);
  out.u32(kByteOrderMarker);
  out.u64(header_bytes);
  out.u64(payload_bytes);
  out.u64(0);  // the checksum, filled in once every other byte is known
}

void write_variable_header(ByteWriter& out, const Checkpoint& checkpoint,
                           const std::vector<PlannedRecord>& plans) {
  out.u16(kCheckpointTokenizerLayout);
  out.u16(kCheckpointGeneratorAlgorithm);
  out.u64(checkpoint.selected_step());
  out.u64(checkpoint.generator_state());
  out.u8(static_cast<std::uint8_t>(checkpoint.tokenizer().kind()));
  out.u64(checkpoint.tokenizer().vocabulary_size());
  const CheckpointModelConfig& model = checkpoint.model_config();
  for (std::size_t value : {model.vocabulary_size, model.model_width, model.heads,
                            model.feed_forward_width, model.layers, model.context}) {
    out.u64(value);
  }
  out.f64(model.rope_base);
  out.f64(model.rms_epsilon);
  const AdamWState& optimizer = checkpoint.optimizer_state();
  for (double value :
       {optimizer.config.learning_rate(), optimizer.config.beta1(), optimizer.config.beta2(),
        optimizer.config.epsilon(), optimizer.config.weight_decay()}) {
    out.f64(value);
  }
  out.u8(optimizer.groups ? 1 : 0);
  if (optimizer.groups) {
    write_names(out, optimizer.groups->decay_names(), "decay group");
    write_names(out, optimizer.groups->no_decay_names(), "no-decay group");
  }
  out.u64(optimizer.step_count);
  out.f64(optimizer.beta1_power);
  out.f64(optimizer.beta2_power);
  out.u32(fits_u32(checkpoint.parameters().size(), "parameter count"));
  out.u32(fits_u32(optimizer.moments.size(), "moment count"));
  out.u32(fits_u32(plans.size(), "record count"));
  for (const PlannedRecord& plan : plans) {
    const CheckpointRecord& record = plan.record;
    out.u8(static_cast<std::uint8_t>(record.role));
    out.text(record.name);
    out.u8(static_cast<std::uint8_t>(record.element_type));
    out.u32(fits_u32(record.shape.size(), "record rank"));
    for (std::size_t extent : record.shape) out.u64(extent);
    out.u64(record.offset);
    out.u64(record.byte_length);
  }
}
// endregion: checkpoint-header-writer

void write_payload(ByteWriter& out, const PlannedRecord& plan) {
  for (std::uint8_t byte : plan.bytes) out.u8(byte);
  for (const TokenPair& pair : plan.pairs) {
    out.u32(pair.left);
    out.u32(pair.right);
  }
  if (plan.record.role == CheckpointRecordRole::ModelParameter) {
    for (double value : plan.values.contiguous_values()) out.f64(value);
  }
  if (plan.moments != nullptr) {
    for (double value : *plan.moments) out.f64(value);
  }
}

}  // namespace

// region: checkpoint-encode
EncodedCheckpoint Checkpoint::encode() const {
  std::vector<PlannedRecord> plans = plan_records(*this);
  // The header's length does not depend on the offsets it holds (each is a
  // u64), so one pass with zero offsets measures it.
  std::vector<std::uint8_t> measured;
  ByteWriter measure(measured);
  write_fixed_header(measure, 0, 0);
  write_variable_header(measure, *this, plans);
  const std::uint64_t header_bytes = measured.size();
  std::uint64_t next = header_bytes;
  for (PlannedRecord& plan : plans) {  // payloads end to end, no padding
    plan.record.offset = next;
    next += plan.record.byte_length;
  }

  EncodedCheckpoint encoded;
  encoded.header_bytes = header_bytes;
  encoded.bytes.reserve(next);
  ByteWriter out(encoded.bytes);
  write_fixed_header(out, header_bytes, next - header_bytes);
  write_variable_header(out, *this, plans);
  for (const PlannedRecord& plan : plans) write_payload(out, plan);
  encoded.checksum = checkpoint_checksum(encoded.bytes);
  for (int i = 0; i < 8; ++i) {
    encoded.bytes[kCheckpointChecksumOffset + i] =
        static_cast<std::uint8_t>(encoded.checksum >> (8 * i));
  }
  for (PlannedRecord& plan : plans) encoded.records.push_back(std::move(plan.record));
  return encoded;
}
// endregion: checkpoint-encode

// --- Decoding -----------------------------------------------------------------

namespace {

// region: little-endian-reader
// Reads numbers least significant byte first, failing with Truncated (naming
// the field) instead of reading past the end.
class ByteReader {
 public:
  explicit ByteReader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
  bool at_end() const noexcept { return cursor_ == bytes_.size(); }
  std::size_t remaining() const noexcept { return bytes_.size() - cursor_; }

  std::span<const std::uint8_t> take(std::size_t width, std::string_view field) {
    if (width > remaining()) throw error(CheckpointErrorKind::Truncated, {.field = field});
    const std::span<const std::uint8_t> taken = bytes_.subspan(cursor_, width);
    cursor_ += width;
    return taken;
  }
  std::uint64_t number(int width, std::string_view field) {
    const std::span<const std::uint8_t> taken = take(static_cast<std::size_t>(width), field);
    std::uint64_t value = 0;
    for (int i = 0; i < width; ++i) value |= std::uint64_t{taken[i]} << (8 * i);
    return value;
  }
  std::uint8_t u8(std::string_view field) { return static_cast<std::uint8_t>(number(1, field)); }
  std::uint16_t u16(std::string_view field) { return static_cast<std::uint16_t>(number(2, field)); }
  std::uint32_t u32(std::string_view field) { return static_cast<std::uint32_t>(number(4, field)); }
  std::uint64_t u64(std::string_view field) { return number(8, field); }
  double f64(std::string_view field) { return std::bit_cast<double>(u64(field)); }
  std::size_t size(std::string_view field) {  // a u64 that must fit size_t
    const std::uint64_t value = u64(field);
    if (value > std::numeric_limits<std::size_t>::max()) {
      throw error(CheckpointErrorKind::SizeOverflow, {.field = field});
    }
    return static_cast<std::size_t>(value);
  }
  std::string text(std::string_view field) {  // u32 length, then UTF-8 bytes
    const std::span<const std::uint8_t> taken = take(u32(field), field);
    if (utf8_valid_prefix_length(taken) != taken.size()) {
      throw error(CheckpointErrorKind::InvalidName, {.field = field});
    }
    return std::string(taken.begin(), taken.end());
  }
  std::vector<std::string> names(std::string_view field) {
    const std::uint32_t count = u32(field);
    std::vector<std::string> names;
    for (std::uint32_t i = 0; i < count; ++i) names.push_back(text(field));
    return names;
  }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t cursor_ = 0;
};
// endregion: little-endian-reader

struct DecodedHeader {
  std::uint64_t selected_step = 0;
  std::uint64_t generator_state = 0;
  std::uint8_t tokenizer_kind = 0;
  std::size_t tokenizer_vocabulary = 0;
  CheckpointModelConfig model;
  std::optional<AdamWConfig> optimizer_config;
  std::optional<AdamWParameterGroups> groups;
  std::uint64_t optimizer_step = 0;
  double beta1_power = 0.0;
  double beta2_power = 0.0;
  std::size_t parameter_count = 0;
  std::size_t moment_count = 0;
  std::vector<CheckpointRecord> records;
};

template <class Build>
auto optimizer_part(Build&& build) {
  try {
    return build();
  } catch (const Error& cause) {  // AdamWError: a configuration or groups the optimizer refuses
    throw error(CheckpointErrorKind::InvalidOptimizerState,
                {.detail = std::string(cause.kind_name()) + ": " + cause.what()});
  }
}

// region: checkpoint-variable-header-reader
DecodedHeader read_variable_header(std::span<const std::uint8_t> bytes) {
  ByteReader in(bytes);
  DecodedHeader header;
  const std::uint16_t tokenizer_layout = in.u16("tokenizer layout version");
  if (tokenizer_layout != kCheckpointTokenizerLayout) {
    throw error(CheckpointErrorKind::UnsupportedTokenizerLayout,
                {.expected = kCheckpointTokenizerLayout, .actual = tokenizer_layout});
  }
  const std::uint16_t algorithm = in.u16("generator algorithm version");
  if (algorithm != kCheckpointGeneratorAlgorithm) {
    throw error(CheckpointErrorKind::UnsupportedGeneratorAlgorithm,
                {.expected = kCheckpointGeneratorAlgorithm, .actual = algorithm});
  }
  header.selected_step = in.u64("selected step");
  header.generator_state = in.u64("generator state");
  header.tokenizer_kind = in.u8("tokenizer kind");
  if (header.tokenizer_kind != 1 && header.tokenizer_kind != 2) {
    throw error(CheckpointErrorKind::UnknownTokenizerKind, {.actual = header.tokenizer_kind});
  }
  header.tokenizer_vocabulary = in.size("tokenizer vocabulary");
  CheckpointModelConfig& model = header.model;
  model.vocabulary_size = in.size("model vocabulary");
  model.model_width = in.size("model width");
  model.heads = in.size("model heads");
  model.feed_forward_width = in.size("feed-forward width");
  model.layers = in.size("model layers");
  model.context = in.size("model context");
  model.rope_base = in.f64("RoPE base");
  model.rms_epsilon = in.f64("RMSNorm epsilon");
  const double learning_rate = in.f64("optimizer learning rate");
  const double beta1 = in.f64("optimizer beta1");
  const double beta2 = in.f64("optimizer beta2");
  const double epsilon = in.f64("optimizer epsilon");
  const double weight_decay = in.f64("optimizer weight decay");
  header.optimizer_config = optimizer_part(
      [&] { return AdamWConfig::create(learning_rate, beta1, beta2, epsilon, weight_decay); });
  const std::uint8_t groups_flag = in.u8("optimizer groups flag");
  if (groups_flag > 1) {
    throw error(CheckpointErrorKind::NonCanonical,
                {.detail = "the groups flag is " + std::to_string(groups_flag) + ", not 0 or 1"});
  }
  if (groups_flag == 1) {
    const std::vector<std::string> decay = in.names("decay group");
    const std::vector<std::string> no_decay = in.names("no-decay group");
    header.groups = optimizer_part([&] { return AdamWParameterGroups::create(decay, no_decay); });
  }
  header.optimizer_step = in.u64("optimizer step");
  header.beta1_power = in.f64("beta1 power");
  header.beta2_power = in.f64("beta2 power");
  header.parameter_count = in.u32("parameter count");
  header.moment_count = in.u32("moment count");
  const std::uint32_t record_count = in.u32("record count");
  for (std::uint32_t i = 0; i < record_count; ++i) {
    CheckpointRecord record;
    const std::uint8_t role = in.u8("record role");
    if (role < 1 || role > 5) throw error(CheckpointErrorKind::UnknownRecordRole, {.actual = role});
    record.role = static_cast<CheckpointRecordRole>(role);
    record.name = in.text("record name");
    if (record.name.empty()) throw layout_error("record " + std::to_string(i) + " has no name");
    const std::uint8_t type = in.u8("record element type");
    if (type < 1 || type > 3)
      throw error(CheckpointErrorKind::UnknownElementType, {.actual = type});
    record.element_type = static_cast<CheckpointElementType>(type);
    const std::uint32_t rank = in.u32("record rank");
    for (std::uint32_t axis = 0; axis < rank; ++axis) record.shape.push_back(in.size("extent"));
    record.offset = in.u64("record offset");
    record.byte_length = in.u64("record length");
    header.records.push_back(std::move(record));
  }
  if (!in.at_end()) {
    throw error(
        CheckpointErrorKind::NonCanonical,
        {.detail = std::to_string(in.remaining()) + " header bytes follow the record table"});
  }
  return header;
}
// endregion: checkpoint-variable-header-reader

// region: checkpoint-record-table-checks
// Every record once, its length what its shape and type need, the payloads
// end to end from the header's end to the file's end.
void check_record_table(const DecodedHeader& header, std::uint64_t header_bytes,
                        std::uint64_t file_bytes) {
  std::set<std::pair<CheckpointRecordRole, std::string>> seen;
  std::uint64_t next = header_bytes;
  for (const CheckpointRecord& record : header.records) {
    if (!seen.emplace(record.role, record.name).second) {
      throw layout_error(std::string(checkpoint_record_role_name(record.role)) + " record '" +
                         record.name + "' appears twice");
    }
    const std::optional<std::uint64_t> length = payload_length(record.shape, record.element_type);
    if (!length) throw error(CheckpointErrorKind::SizeOverflow, {.field = "record shape"});
    if (record.byte_length != *length) {
      throw layout_error("record '" + record.name + "' declares " +
                         std::to_string(record.byte_length) + " bytes, its shape " +
                         shape_text(record.shape) + " of " +
                         std::string(checkpoint_element_type_name(record.element_type)) +
                         " needs " + std::to_string(*length));
    }
    if (record.offset != next) {
      throw layout_error("record '" + record.name + "' starts at byte " +
                         std::to_string(record.offset) + ", not right after the previous one at " +
                         std::to_string(next));
    }
    if (record.byte_length > file_bytes - next) {
      throw layout_error("record '" + record.name + "' ends past the end of the file");
    }
    next += record.byte_length;
  }
  if (next != file_bytes) {
    throw layout_error("the records end at byte " + std::to_string(next) + ", the file at " +
                       std::to_string(file_bytes));
  }
}
// endregion: checkpoint-record-table-checks

std::span<const std::uint8_t> payload(const CheckpointRecord& record,
                                      std::span<const std::uint8_t> file) {
  return file.subspan(static_cast<std::size_t>(record.offset),
                      static_cast<std::size_t>(record.byte_length));
}

std::vector<double> read_f64s(const CheckpointRecord& record, std::span<const std::uint8_t> file) {
  ByteReader in(payload(record, file));
  std::vector<double> values;
  values.reserve(static_cast<std::size_t>(record.byte_length / 8));
  while (!in.at_end()) values.push_back(in.f64("record payload"));
  return values;
}

void require_record(const CheckpointRecord& record, CheckpointRecordRole role,
                    CheckpointElementType type, std::string_view what) {
  if (record.role != role || record.element_type != type) {
    throw layout_error("record '" + record.name + "' is " +
                       std::string(checkpoint_record_role_name(record.role)) + "/" +
                       std::string(checkpoint_element_type_name(record.element_type)) + " where " +
                       std::string(what) + " belongs");
  }
}

CheckpointTokenizer read_literal_tokenizer(std::span<const CheckpointRecord> records,
                                           std::span<const std::uint8_t> file) {
  std::vector<std::string> pieces;
  for (std::size_t id = 0; id < records.size(); ++id) {
    const CheckpointRecord& record = records[id];
    require_record(record, CheckpointRecordRole::LiteralToken, CheckpointElementType::U8,
                   "literal token " + std::to_string(id));
    if (record.name != std::to_string(id) || record.shape.size() != 1) {
      throw layout_error("literal token " + std::to_string(id) + " is named '" + record.name +
                         "' with shape " + shape_text(record.shape));
    }
    const std::span<const std::uint8_t> bytes = payload(record, file);
    pieces.emplace_back(bytes.begin(), bytes.end());
  }
  return CheckpointTokenizer::literal(std::move(pieces));
}

CheckpointTokenizer read_byte_pair_tokenizer(const CheckpointRecord& record,
                                             std::span<const std::uint8_t> file) {
  require_record(record, CheckpointRecordRole::BpePairs, CheckpointElementType::U32,
                 "the BPE merges");
  if (record.name != kBpeRecordName || record.shape.size() != 2 || record.shape[1] != 2) {
    throw layout_error("the BPE merges are named '" + record.name + "' with shape " +
                       shape_text(record.shape) + ", not 'training-pairs' [n, 2]");
  }
  ByteReader in(payload(record, file));
  std::vector<TokenPair> merges;
  while (!in.at_end()) {
    const TokenId left = in.u32("BPE merge");
    const TokenId right = in.u32("BPE merge");
    merges.push_back(TokenPair{left, right});
  }
  return CheckpointTokenizer::byte_pair(std::move(merges));
}

CheckpointTokenizer read_tokenizer(const DecodedHeader& header,
                                   std::span<const CheckpointRecord> records,
                                   std::span<const std::uint8_t> file) {
  CheckpointTokenizer tokenizer = header.tokenizer_kind == 1
                                      ? read_literal_tokenizer(records, file)
                                      : read_byte_pair_tokenizer(records[0], file);
  if (tokenizer.vocabulary_size() != header.tokenizer_vocabulary) {
    throw error(CheckpointErrorKind::VocabularyMismatch,
                {.expected = header.tokenizer_vocabulary, .actual = tokenizer.vocabulary_size()});
  }
  return tokenizer;
}

std::vector<NamedValue> read_parameters(std::span<const CheckpointRecord> records,
                                        std::span<const std::uint8_t> file) {
  if (records.empty()) throw layout_error("the checkpoint holds no model parameter");
  std::vector<NamedValue> parameters;
  for (const CheckpointRecord& record : records) {
    require_record(record, CheckpointRecordRole::ModelParameter, CheckpointElementType::F64,
                   "a model parameter");
    parameters.push_back(NamedValue{record.name, Tensor(record.shape, read_f64s(record, file))});
  }
  return parameters;
}

AdamWState read_optimizer(const DecodedHeader& header, std::span<const CheckpointRecord> records,
                          std::span<const std::uint8_t> file) {
  AdamWState state{*header.optimizer_config, header.groups,      header.optimizer_step,
                   header.beta1_power,       header.beta2_power, {}};
  for (std::size_t i = 0; i + 1 < records.size(); i += 2) {
    const CheckpointRecord& first = records[i];
    const CheckpointRecord& second = records[i + 1];
    require_record(first, CheckpointRecordRole::OptimizerFirstMoment, CheckpointElementType::F64,
                   "a first moment");
    require_record(second, CheckpointRecordRole::OptimizerSecondMoment, CheckpointElementType::F64,
                   "the second moment of '" + first.name + "'");
    if (second.name != first.name || second.shape != first.shape) {
      throw layout_error("the second moment '" + second.name + "' " + shape_text(second.shape) +
                         " does not pair with the first moment '" + first.name + "' " +
                         shape_text(first.shape));
    }
    state.moments[first.name] =
        AdamWMoments{first.shape, read_f64s(first, file), read_f64s(second, file)};
  }
  return state;
}

}  // namespace

// region: checkpoint-decode
Checkpoint Checkpoint::decode(std::span<const std::uint8_t> bytes) {
  // The fixed header: what the file is, how long it says it is, its checksum.
  if (bytes.size() < kCheckpointFixedHeaderBytes) {
    throw error(CheckpointErrorKind::Truncated, {.field = "fixed header"});
  }
  if (!std::equal(kCheckpointMagic.begin(), kCheckpointMagic.end(), bytes.begin())) {
    throw error(CheckpointErrorKind::InvalidMagic);
  }
  ByteReader fixed(bytes.subspan(8, kCheckpointFixedHeaderBytes - 8));
  const std::uint16_t version = fixed.u16("version");
  if (version != kCheckpointVersion) {
    throw error(CheckpointErrorKind::UnsupportedVersion,
                {.expected = kCheckpointVersion, .actual = version});
  }
  const std::uint32_t marker = fixed.u32("byte-order marker");
  if (marker != kByteOrderMarker) {
    throw error(CheckpointErrorKind::UnsupportedEndianness,
                {.expected = kByteOrderMarker, .actual = marker});
  }
  const std::uint64_t header_bytes = fixed.u64("header length");
  const std::uint64_t payload_bytes = fixed.u64("payload length");
  const std::uint64_t stored_checksum = fixed.u64("checksum");
  const bool length_overflows =
      payload_bytes > std::numeric_limits<std::uint64_t>::max() - header_bytes;
  if (header_bytes < kCheckpointFixedHeaderBytes || length_overflows ||
      header_bytes + payload_bytes != bytes.size()) {
    throw error(CheckpointErrorKind::FileLengthMismatch,
                {.expected = length_overflows ? std::numeric_limits<std::uint64_t>::max()
                                              : header_bytes + payload_bytes,
                 .actual = bytes.size()});
  }
  const std::uint64_t checksum = checkpoint_checksum(bytes);
  if (checksum != stored_checksum) {
    throw error(CheckpointErrorKind::ChecksumMismatch,
                {.expected = stored_checksum, .actual = checksum});
  }

  // The variable header and the record table.
  const DecodedHeader header = read_variable_header(
      bytes.subspan(kCheckpointFixedHeaderBytes,
                    static_cast<std::size_t>(header_bytes) - kCheckpointFixedHeaderBytes));
  check_record_table(header, header_bytes, bytes.size());
  const std::size_t tokenizer_records =
      header.tokenizer_kind == 1 ? header.tokenizer_vocabulary : 1;
  const std::span<const CheckpointRecord> records = header.records;
  if (tokenizer_records > records.size() ||
      header.parameter_count > records.size() - tokenizer_records ||
      header.moment_count > (records.size() - tokenizer_records - header.parameter_count) / 2 ||
      records.size() != tokenizer_records + header.parameter_count + 2 * header.moment_count) {
    throw layout_error("the table holds " + std::to_string(records.size()) + " records, not the " +
                       std::to_string(tokenizer_records) + " tokenizer, " +
                       std::to_string(header.parameter_count) + " parameter and " +
                       std::to_string(2 * header.moment_count) + " moment records it declares");
  }

  // The parts, then the checks that they belong together, then canonical bytes.
  CheckpointTokenizer tokenizer =
      read_tokenizer(header, records.subspan(0, tokenizer_records), bytes);
  std::vector<NamedValue> parameters =
      read_parameters(records.subspan(tokenizer_records, header.parameter_count), bytes);
  AdamWState optimizer =
      read_optimizer(header, records.subspan(tokenizer_records + header.parameter_count), bytes);
  Checkpoint checkpoint =
      create(std::move(tokenizer), header.model, std::move(parameters), std::move(optimizer),
             header.selected_step, header.generator_state);
  if (checkpoint.encode().bytes != std::vector<std::uint8_t>(bytes.begin(), bytes.end())) {
    throw error(CheckpointErrorKind::NonCanonical,
                {.detail = "the decoded state does not encode to the same bytes"});
  }
  return checkpoint;
}
// endregion: checkpoint-decode

}  // namespace llm
