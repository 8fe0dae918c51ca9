// The JSON log of one `make train` run (run.json beside its checkpoint):
// the configuration, the data, the machine, one entry per logged update and
// per evaluation, one entry per session (a resumed run has several), and the
// final losses and times. Rewritten atomically whenever a checkpoint is
// saved, so after a crash it holds at least what the checkpoint holds; a
// resumed run drops what came after its checkpoint and records it again.
//
// docs/training-run.md describes the keys; chapter 40 plots from them.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "llm/training/run_measurement.hpp"
#include "llm/training/train_run.hpp"

namespace llm {

/// How long making the run's tokens took: learning the BPE merges (zero for
/// a byte run) and encoding both partitions.
struct TextPreparation {
  RunClocks learning{};  ///< TrainingText::learn_byte_pair
  RunClocks encoding{};  ///< TrainingText::encode
};

class TrainLog {
 public:
  TrainLog() = default;

  /// A new log for `run` (no update made yet) on the text at `data_path`,
  /// whose tokens took `preparation` to make.
  static TrainLog start(const TrainRunConfig& config, const TrainRun& run,
                        const std::string& data_path, const TextPreparation& preparation);
  /// The log at `path`.
  /// @throws std::runtime_error naming the path when it cannot be read or
  ///         is not a run log.
  static TrainLog read(const std::string& path);

  /// The first setting whose value differs from the logged configuration's,
  /// as `key: logged there, given here`, or nothing when they agree. A
  /// setting the log lacks (it was written before the setting existed)
  /// counts as its default.
  std::optional<std::string> config_difference(const TrainRunConfig& config) const;
  /// Drops every update and evaluation at or after `iteration` (a resumed run
  /// makes them again) and any final record, unless the final record is at
  /// `iteration` (the run is finished and nothing follows its checkpoint).
  void truncate_after_resume(std::size_t iteration);

  /// Opens a session that starts at `iteration` updates, with llm::matmul's
  /// rate measured at its start.
  void begin_session(std::size_t iteration, const MatmulRate& matmul);
  /// Adds the clocks of one update to the session's training time.
  void add_update_time(const RunClocks& elapsed);
  /// The session's training time so far (updates only).
  const RunClocks& session_training() const noexcept { return session_training_; }
  /// Records where the session stands: `iteration` updates made, `reason`
  /// (`checkpoint`, `interrupted`, `finished`).
  void end_session(std::size_t iteration, const std::string& reason);

  void add_update(const UpdateReport& update);
  void add_evaluation(const EvaluationReport& evaluation);
  /// Records the last evaluation, the full validation pass and its time.
  void set_final(const EvaluationReport& evaluation, const FullValidationReport& full_validation,
                 const RunClocks& full_pass);
  bool has_final() const { return json_.contains("final"); }
  /// `final: val loss ...`, the summary line printed at the end; a BPE run's
  /// adds the full pass's nats per byte (a byte run's equal its loss).
  std::string final_line() const;

  /// Writes the log to `path` through a temporary file renamed over it.
  /// @throws std::runtime_error naming the file when a write fails.
  void write(const std::string& path) const;

  const nlohmann::json& json() const noexcept { return json_; }

 private:
  nlohmann::json json_;
  RunClocks session_training_{};
};

}  // namespace llm
