// Chapter 35 demo: chapter 33's selected decoder, its AdamW state and the
// sampling generator's state in one version-1 checkpoint; its header, record
// table and first bytes; the file read back and compared bit for bit
// (bytes, logits, one more update made by the caller); what it stores and
// what it leaves out; five refusals; an atomic replacement; and what a bare
// parameter dump would keep. With --trace PATH it also writes the record
// table and the byte map for the figures.
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"
#include "llm/training/decoder_checkpoint.hpp"

namespace {

using demo::Json;
using llm::CheckpointRecord;
using llm::CheckpointRecordRole;

const char* bool_text(bool value) {
  return value ? "true" : "false";
}

std::string hex_state(std::uint64_t state) {
  char digits[19];
  std::snprintf(digits, sizeof digits, "0x%016llx", static_cast<unsigned long long>(state));
  return digits;
}

std::string shape_text(const llm::Shape& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

/// `name:Role/type[shape]@start..end`.
std::string record_text(const CheckpointRecord& record) {
  return record.name + ":" + std::string(llm::checkpoint_record_role_name(record.role)) + "/" +
         std::string(llm::checkpoint_element_type_name(record.element_type)) +
         shape_text(record.shape) + "@" + std::to_string(record.offset) + ".." +
         std::to_string(record.end());
}

std::string hex_prefix(const std::vector<std::uint8_t>& bytes, std::size_t count) {
  std::string text;
  for (std::size_t i = 0; i < count && i < bytes.size(); ++i) {
    char digits[3];
    std::snprintf(digits, sizeof digits, "%02x", static_cast<unsigned>(bytes[i]));
    text += (i ? " " : "") + std::string(digits);
  }
  return text;
}

std::uint64_t little_endian(const std::vector<std::uint8_t>& bytes, std::size_t offset,
                            std::size_t width) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < width; ++i) value |= std::uint64_t{bytes[offset + i]} << (8 * i);
  return value;
}

std::size_t count_roles(const std::vector<CheckpointRecord>& records,
                        std::initializer_list<CheckpointRecordRole> roles) {
  std::size_t count = 0;
  for (const CheckpointRecord& record : records) {
    for (CheckpointRecordRole role : roles) count += record.role == role;
  }
  return count;
}

/// The bytes between consecutive payloads (0 when they lie end to end).
std::uint64_t alignment_padding(const llm::EncodedCheckpoint& encoded) {
  std::uint64_t padding = 0;
  std::uint64_t end = encoded.header_bytes;
  for (const CheckpointRecord& record : encoded.records) {
    padding += record.offset - end;
    end = record.end();
  }
  return padding;
}

// region: checkpoint-scope
/// What the file holds and what a caller must still bring to continue.
const std::vector<std::pair<std::string_view, std::string_view>> kScope = {
    {"tokenizer", "stored"},
    {"model", "stored"},
    {"optimizer", "stored"},
    {"selected_step", "stored"},
    {"optimizer_step", "stored"},
    {"optimizer_base_learning_rate", "stored"},
    {"sampling_rng", "stored"},
    {"step_equality", "validated"},
    {"model_lineage", "not_stored"},
    {"corpus_identity", "not_stored"},
    {"split_identity", "not_stored"},
    {"epoch_materialization", "not_stored"},
    {"epoch_cursor", "not_stored"},
    {"batch_order", "not_stored"},
    {"batch_cursor", "not_stored"},
    {"shuffle_rng", "not_stored"},
    {"training_rng", "not_stored"},
    {"learning_rate_schedule", "not_stored"},
    {"next_learning_rate", "not_stored"},
    {"clipping_policy", "not_stored"},
    {"validation_policy", "not_stored"},
    {"gradients", "not_stored"},
    {"trainer_capture", "creation_required"},
    {"caller_next_batch", "required"},
    {"caller_next_learning_rate", "required"},
    {"clean_post_update", "required"},
    {"whole_job_resume", "false"},
};
// endregion: checkpoint-scope

Json record_json(const CheckpointRecord& record) {
  return {{"name", record.name},
          {"role", llm::checkpoint_record_role_name(record.role)},
          {"type", llm::checkpoint_element_type_name(record.element_type)},
          {"shape", record.shape},
          {"offset", record.offset},
          {"end", record.end()}};
}

}  // namespace

// region: learner-checkpoint-output
int main(int argc, char** argv) try {
  const auto trace_path = demo::trace_path(argc, argv);
  const ch35::SelectedState selected = ch35::selected_state();
  const std::uint64_t generator_state = ch35::saved_generator_state();

  // Write, write again, read back, write what was read.
  const llm::Checkpoint checkpoint = ch35::checkpoint_of(selected, generator_state);
  const llm::EncodedCheckpoint encoded = checkpoint.encode();
  const llm::EncodedCheckpoint repeated = checkpoint.encode();
  const llm::Checkpoint loaded = llm::Checkpoint::decode(encoded.bytes);
  const llm::EncodedCheckpoint loaded_encoded = loaded.encode();

  // The saved model and the loaded one: logits, then one caller update each.
  const llm::DecoderModel original = llm::restore_decoder(checkpoint);
  const llm::DecoderModel restored = llm::restore_decoder(loaded);
  const auto original_logits = ch35::logits_bits(original);
  const auto restored_logits = ch35::logits_bits(restored);
  llm::AdamW original_optimizer = llm::AdamW::from_state(checkpoint.optimizer_state());
  llm::AdamW restored_optimizer = llm::AdamW::from_state(loaded.optimizer_state());
  ch35::caller_update(original, original_optimizer, ch35::kInputs, ch35::kTargets,
                      ch35::kNextLearningRate);
  ch35::caller_update(restored, restored_optimizer, ch35::kInputs, ch35::kTargets,
                      ch35::kNextLearningRate);
  const auto updated_bits = ch35::parameter_bits(original);
  const auto updated_logits = ch35::logits_bits(restored);

  // The same update with another batch, and with another learning rate.
  const llm::DecoderModel other_batch = llm::restore_decoder(checkpoint);
  llm::AdamW other_batch_optimizer = llm::AdamW::from_state(checkpoint.optimizer_state());
  ch35::caller_update(other_batch, other_batch_optimizer, ch35::kOtherInputs, ch35::kOtherTargets,
                      ch35::kNextLearningRate);
  const llm::DecoderModel other_rate = llm::restore_decoder(checkpoint);
  llm::AdamW other_rate_optimizer = llm::AdamW::from_state(checkpoint.optimizer_state());
  ch35::caller_update(other_rate, other_rate_optimizer, ch35::kInputs, ch35::kTargets,
                      2 * ch35::kNextLearningRate);

  llm::SplitMix64 continued(ch35::kSamplingSeed);
  continued.next_u64();
  const std::uint64_t expected_next = continued.next_u64();
  llm::SplitMix64 resumed(loaded.generator_state());
  const std::uint64_t resumed_next = resumed.next_u64();

  const ch35::Refusals refusals = ch35::refusals(selected, encoded);
  const ch35::AtomicReplacement atomic = ch35::atomic_replacement(selected);

  const std::vector<CheckpointRecord>& records = encoded.records;
  const CheckpointRecord* first_parameter = nullptr;
  for (const CheckpointRecord& record : records) {
    if (record.role == CheckpointRecordRole::ModelParameter) {
      first_parameter = &record;
      break;
    }
  }
  const std::vector<std::uint8_t>& bytes = encoded.bytes;
  const std::uint64_t marker = little_endian(bytes, 10, 4);

  std::cout << "chapter=35-checkpoints\n";
  std::cout << "schema=version:" << little_endian(bytes, 8, 2)
            << " magic:" << std::string(bytes.begin(), bytes.begin() + 7)
            << " endian:" << (marker == 0x01020304 ? "little" : "other")
            << " header_bytes:" << encoded.header_bytes
            << " payload_bytes:" << encoded.payload_bytes() << " file_bytes:" << bytes.size()
            << " checksum:" << encoded.checksum_text() << '\n';
  std::cout << "tokenizer=kind:" << checkpoint.tokenizer().kind_name()
            << " layout_version:" << little_endian(bytes, 38, 2)
            << " vocabulary:" << checkpoint.tokenizer().vocabulary_size()
            << " pieces:" << checkpoint.tokenizer().literal_pieces().size()
            << " decoder_vocabulary:" << checkpoint.model_config().vocabulary_size << '\n';
  std::cout << "layout=records:" << records.size() << " first:" << record_text(records.front())
            << " first_parameter:" << record_text(*first_parameter)
            << " final_end:" << records.back().end()
            << " alignment_padding:" << alignment_padding(encoded) << '\n';
  std::cout << "hex=" << hex_prefix(bytes, 16) << '\n';
  std::cout << "state=selected_step:" << checkpoint.selected_step()
            << " optimizer_step:" << checkpoint.optimizer_state().step_count
            << " parameter_tensors:" << checkpoint.parameters().size()
            << " parameter_scalars:" << checkpoint.parameter_scalars()
            << " sampling_rng:splitmix64-v" << little_endian(bytes, 40, 2)
            << " sampling_rng_state:" << hex_state(checkpoint.generator_state()) << '\n';
  std::cout << "roundtrip=bytes_deterministic:" << bool_text(encoded.bytes == repeated.bytes)
            << " loaded_bytes_identical:" << bool_text(encoded.bytes == loaded_encoded.bytes)
            << " logits_bits_identical:" << bool_text(original_logits == restored_logits)
            << " logits_fingerprint:" << ch35::bits_fingerprint(restored_logits)
            << " sampling_rng_next_identical:" << bool_text(expected_next == resumed_next)
            << " sampling_rng_next:" << hex_state(resumed_next) << '\n';
  std::cout << "component_replay=caller_inputs:[0,1] caller_targets:[1,2] caller_learning_rate:"
            << llm::format_fixed(ch35::kNextLearningRate, 6)
            << " next_step:" << restored_optimizer.step_count() << " parameter_bits_identical:"
            << bool_text(updated_bits == ch35::parameter_bits(restored))
            << " optimizer_state_identical:"
            << bool_text(original_optimizer.state() == restored_optimizer.state())
            << " logits_bits_identical:" << bool_text(ch35::logits_bits(original) == updated_logits)
            << " logits_fingerprint:" << ch35::bits_fingerprint(updated_logits)
            << " changed_batch_diverges:"
            << bool_text(ch35::parameter_bits(other_batch) != updated_bits ||
                         other_batch_optimizer.state() != original_optimizer.state())
            << " changed_learning_rate_diverges:"
            << bool_text(ch35::parameter_bits(other_rate) != updated_bits ||
                         other_rate_optimizer.state() != original_optimizer.state())
            << '\n';
  std::cout << "scope=";
  for (std::size_t i = 0; i < kScope.size(); ++i)
    std::cout << (i ? " " : "") << kScope[i].first << ':' << kScope[i].second;
  std::cout << '\n';
  std::cout << "reject=version:" << bool_text(refusals.version)
            << " vocabulary_mismatch:" << bool_text(refusals.vocabulary_mismatch)
            << " step_mismatch:" << bool_text(refusals.step_mismatch)
            << " truncation:" << bool_text(refusals.truncation)
            << " checksum:" << bool_text(refusals.checksum) << '\n';
  std::cout << "atomic=replaced_complete_file:" << bool_text(atomic.replaced_complete_file)
            << " loaded_sampling_rng_state:" << hex_state(atomic.loaded_generator_state)
            << " temporary_files:" << atomic.temporary_files << " unix_same_directory:true\n";
  std::cout << "contrast=isolated_parameter_tensors:" << checkpoint.parameters().size()
            << " isolated_parameter_scalars:" << checkpoint.parameter_scalars()
            << " isolated_parameter_bytes:" << checkpoint.parameter_scalars() * sizeof(double)
            << " checkpoint_records:" << records.size() << " tokenizer_records:"
            << count_roles(records,
                           {CheckpointRecordRole::LiteralToken, CheckpointRecordRole::BpePairs})
            << " optimizer_moment_records:"
            << count_roles(records, {CheckpointRecordRole::OptimizerFirstMoment,
                                     CheckpointRecordRole::OptimizerSecondMoment})
            << " checkpoint_file_bytes:" << bytes.size()
            << " sampling_rng_state:" << hex_state(checkpoint.generator_state()) << '\n';
  std::cout << "next=load this checkpoint for temperature and top-k sampling\n";

  Json record_table = Json::array();
  for (const CheckpointRecord& record : records) record_table.push_back(record_json(record));
  Json refusal_table = Json::array();
  const char* refusal_names[] = {"version", "vocabulary_mismatch", "step_mismatch", "truncation",
                                 "checksum"};
  for (std::size_t i = 0; i < refusals.kinds.size(); ++i) {
    refusal_table.push_back({{"case", refusal_names[i]},
                             {"kind", refusals.kinds[i]},
                             {"message", refusals.messages[i]}});
  }
  demo::write_trace(trace_path,
                    {{"header_bytes", encoded.header_bytes},
                     {"payload_bytes", encoded.payload_bytes()},
                     {"file_bytes", bytes.size()},
                     {"checksum", encoded.checksum_text()},
                     {"first_bytes", std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + 58)},
                     {"records", record_table},
                     {"refusals", refusal_table},
                     {"generator_state", hex_state(generator_state)},
                     {"generator_next", hex_state(resumed_next)},
                     {"parameter_scalars", checkpoint.parameter_scalars()}});
  return 0;
} catch (const std::exception& error) {
  std::cerr << "chapter 35 demo failed: " << error.what() << '\n';
  return 1;
}
// endregion: learner-checkpoint-output
