// Chapter 40's training run at a size a test can afford: the run's own tests
// (tests/training/train_run_test.cpp) take it to the end, llm-generate's
// (tests/apps/llm_generate_test.cpp) stop after two updates for a checkpoint.
#pragma once

#include "llm/training/train_run_config.hpp"

namespace llm::testing {

/// One decoder block of width 16 (2 heads, feed-forward width 24) over
/// windows of 16 bytes, batches of 4, 8 updates (2 of warm-up, decay over
/// all 8) and 2 evaluation batches; every other setting is the default.
inline TrainRunConfig small_config() {
  TrainRunConfig config;
  config.layers = 1;
  config.heads = 2;
  config.model_width = 16;
  config.feed_forward_width = 24;
  config.context = 16;
  config.batch_size = 4;
  config.iterations = 8;
  config.warmup_iterations = 2;
  config.decay_iterations = 8;
  config.eval_batches = 2;
  return config;
}

}  // namespace llm::testing
