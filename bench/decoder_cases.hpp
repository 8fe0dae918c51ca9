// The decoder training step that our tape and libtorch both run (issue 18's
// size and chapter 40's): its sizes, its data, and the initial weights, drawn
// once by our library and handed to libtorch as plain values, so both start
// from the same numbers. Built only when the decoder (src/llm/models/) is in
// the tree.
#pragma once

#if __has_include("llm/models/decoder_model.hpp")
#define LLM_BENCH_DECODER 1

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bench_cases.hpp"
#include "llm/models/decoder_model.hpp"
#include "llm/nn/splitmix64.hpp"

namespace bench {

/// A decoder and its batch: vocabulary V, width D, heads H, layers L,
/// SwiGLU width F, context T and batch B (B sequences of T tokens per step).
struct DecoderSize {
  const char* name;
  std::size_t vocabulary, width, heads, layers, feed_forward, context, batch;
};

/// Issue 18's small decoder, and chapter 40's (nanoGPT's character-level
/// Shakespeare configuration, with a SwiGLU of width 4D).
inline constexpr std::array<DecoderSize, 2> kDecoderSizes{{
    {"issue18", 64, 32, 2, 2, 64, 16, 8},
    {"chapter40", 65, 128, 4, 4, 512, 64, 12},
}};

/// AdamW's settings in both implementations: decay on every weight, none on
/// the RMSNorm gains.
inline constexpr double kLearningRate = 3e-3;
inline constexpr double kBeta1 = 0.9;
inline constexpr double kBeta2 = 0.95;
inline constexpr double kEpsilon = 1e-8;
inline constexpr double kWeightDecay = 0.1;

/// Steps whose losses the run prints for both implementations.
inline constexpr std::size_t kComparedSteps = 5;

inline llm::DecoderConfig decoder_config(const DecoderSize& size) {
  llm::DecoderConfig config;
  config.vocabulary_size = size.vocabulary;
  config.layers = size.layers;
  config.block.model_width = size.width;
  config.block.heads = size.heads;
  config.block.feed_forward_width = size.feed_forward;
  config.block.context = size.context;
  return config;
}

/// The model every run starts from (seed 18).
inline llm::DecoderModel initial_decoder(const DecoderSize& size) {
  llm::SplitMix64 generator(18);
  return llm::DecoderModel::initialized(decoder_config(size), generator);
}

/// One named parameter's initial values, row-major.
struct InitialValue {
  std::string name;
  std::vector<std::int64_t> shape;
  std::vector<double> values;
};

inline std::vector<InitialValue> initial_values(const llm::DecoderModel& model) {
  std::vector<InitialValue> values;
  for (const llm::NamedParameter& entry : model.parameters()) {
    const llm::SharedTensor value = entry.parameter.value();
    const llm::Tensor dense = value.materialize();
    std::vector<std::int64_t> shape(value.shape().begin(), value.shape().end());
    values.push_back({entry.name, shape, {dense.values().begin(), dense.values().end()}});
  }
  return values;
}

/// A batch of B sequences: ids [B, T] and their next tokens [B, T], from a
/// noisy chain (the next token is (5 c + 3) mod V three times in four,
/// otherwise uniform), so the loss has something to learn.
struct DecoderBatch {
  std::vector<std::size_t> ids;
  std::vector<std::size_t> targets;
};

inline DecoderBatch decoder_batch(const DecoderSize& size) {
  llm::SplitMix64 generator(40);
  DecoderBatch batch;
  for (std::size_t row = 0; row < size.batch; ++row) {
    std::size_t token = generator.next_u64() % size.vocabulary;
    std::vector<std::size_t> sequence{token};
    for (std::size_t t = 0; t < size.context; ++t) {
      token = generator.next_u64() % 4 != 0 ? (5 * token + 3) % size.vocabulary
                                            : generator.next_u64() % size.vocabulary;
      sequence.push_back(token);
    }
    batch.ids.insert(batch.ids.end(), sequence.begin(), sequence.end() - 1);
    batch.targets.insert(batch.targets.end(), sequence.begin() + 1, sequence.end());
  }
  return batch;
}

/// One implementation's decoder benchmarks, each over one DecoderSize: a
/// whole training step, the forward pass, forward and backward, and the
/// step on several threads (the thread count is the benchmark's argument).
struct DecoderBenchmarks {
  using Function = void (*)(benchmark::State&, DecoderSize);
  Function step, forward, forward_backward, step_threads;
};

/// Registers `decoder_step`, `decoder_forward` and `decoder_forward_backward`
/// `/<implementation>/<size>` for every size, and `decoder_threads/
/// <implementation>/chapter40` on kThreadCounts: the same names for ours and
/// libtorch, so bench_main pairs them.
inline void register_decoder_benchmarks(const std::string& implementation,
                                        const DecoderBenchmarks& benchmarks) {
  for (const DecoderSize& size : kDecoderSizes) {
    const std::string suffix = "/" + implementation + "/" + size.name;
    for (const auto& [name, function] :
         {std::pair{"decoder_step", benchmarks.step},
          std::pair{"decoder_forward", benchmarks.forward},
          std::pair{"decoder_forward_backward", benchmarks.forward_backward}}) {
      benchmark::RegisterBenchmark((name + suffix).c_str(), function, size)
          ->Apply(repeated)
          ->Unit(benchmark::kMicrosecond);
    }
  }
  const DecoderSize& chapter40 = kDecoderSizes[1];
  benchmark::RegisterBenchmark(("decoder_threads/" + implementation + "/" + chapter40.name).c_str(),
                               benchmarks.step_threads, chapter40)
      ->Apply(on_thread_counts);
}

/// The losses of the first kComparedSteps steps of our implementation and of
/// libtorch's (decoder_bench.cpp, anchor_torch.cpp), from the same weights.
std::vector<double> decoder_losses_ours(const DecoderSize& size);
std::vector<double> decoder_losses_torch(const DecoderSize& size);

}  // namespace bench

#endif
