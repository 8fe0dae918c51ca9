// The checked learning-rate schedule of chapter 33.
#include "llm/training/learning_rate_schedule.hpp"

#include <cmath>
#include <utility>

namespace llm {

LearningRateSchedule LearningRateSchedule::create(std::vector<double> rates) {
  if (rates.empty()) throw TrainingError(TrainingErrorKind::EmptySchedule, {});
  for (std::size_t index = 0; index < rates.size(); ++index) {
    if (!std::isfinite(rates[index]) || rates[index] <= 0.0) {
      throw TrainingError(TrainingErrorKind::InvalidScheduledRate,
                          {.step = index + 1, .value = rates[index]});
    }
  }
  return LearningRateSchedule(std::move(rates));
}

}  // namespace llm
