// A learning rate for every planned update (chapter 33): the training loop
// passes update t's rate to AdamW through AdamWStepOptions, so one optimizer
// follows a schedule without being rebuilt and without losing its moments.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "llm/training/training_error.hpp"

namespace llm {

// region: learning-rate-schedule
/// One finite positive learning rate per update, updates counted from 1.
/// The schedule's length is the number of updates a run makes.
class LearningRateSchedule {
 public:
  /// `rates[t - 1]` is the rate of update t.
  /// @throws TrainingError EmptySchedule, InvalidScheduledRate (the first
  ///         rate that is not finite and > 0, naming its update).
  static LearningRateSchedule create(std::vector<double> rates);

  /// How many updates the schedule plans.
  std::size_t steps() const noexcept { return rates_.size(); }
  /// The rate of update `step` (1-based), or nothing outside 1..steps().
  std::optional<double> learning_rate(std::size_t step) const noexcept {
    if (step == 0 || step > rates_.size()) return std::nullopt;
    return rates_[step - 1];
  }
  /// Every rate, update 1 first.
  std::span<const double> rates() const noexcept { return rates_; }

  /// Field-by-field equality.
  bool operator==(const LearningRateSchedule&) const = default;

 private:
  explicit LearningRateSchedule(std::vector<double> rates) : rates_(std::move(rates)) {}
  std::vector<double> rates_;
};
// endregion: learning-rate-schedule

}  // namespace llm
