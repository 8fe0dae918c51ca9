// The worked examples of chapter 32: a two-layer decoder with a tied head
// drawn from SplitMix64(32), run on the tokens [0, 1, 2] with the next
// tokens [1, 2, 3] as targets; its parameters with and without tying; the
// tied table's gradient split into its lookup and head roles; the refusals;
// causality; the gradient checks; and replay.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "llm/models/decoder_model.hpp"
#include "llm/tensor/tensor.hpp"

namespace ch32 {

inline constexpr std::size_t kBatch = 1;
inline constexpr std::size_t kTokens = 3;
inline constexpr std::size_t kVocabulary = 5;
inline constexpr std::size_t kModelWidth = 4;
inline constexpr std::size_t kHeads = 2;
inline constexpr std::size_t kFeedForwardWidth = 4;
inline constexpr std::size_t kLayers = 2;
inline constexpr std::size_t kContext = 4;
inline constexpr double kRopeBase = 10000.0;
inline constexpr double kEpsilon = 1e-6;
inline constexpr std::uint64_t kSeed = 32;
inline constexpr double kStep = 1e-6;
inline constexpr double kTolerance = 2e-5;

inline const std::vector<llm::TokenId> kTokenIds = {0, 1, 2};
inline const std::vector<llm::TokenId> kTargetIds = {1, 2, 3};
/// The tying probe's table [5, 4] and final gain [4] (the earlier edition's).
inline constexpr std::array<double, 20> kProbeTable = {0.8,  -0.2, 0.1, 0.4,  -0.3, 0.7,  0.2,
                                                       -0.1, 0.5,  0.1, -0.6, 0.3,  -0.4, -0.2,
                                                       0.9,  0.1,  0.2, 0.3,  -0.1, 0.8};
inline constexpr std::array<double, 4> kProbeGain = {1.0, 0.9, 1.1, 0.8};

/// The chapter's configuration with `layers` blocks.
llm::DecoderConfig config(std::size_t layers, llm::HeadTying head = llm::HeadTying::Tied);
/// DecoderModel::initialized(config(layers, head), SplitMix64(kSeed)).
llm::DecoderModel model(std::size_t layers = kLayers, llm::HeadTying head = llm::HeadTying::Tied);

/// One forward pass and the loss, stage by stage.
struct ForwardEvidence {
  std::vector<std::string> stage_names;  ///< embedding, block_0, block_1, final_norm
  std::vector<llm::Tensor> stages;       ///< each [1, 3, 4]
  llm::Tensor logits;                    ///< [1, 3, 5]
  double mean_loss = 0.0;                ///< DecoderModel::loss
  std::vector<double> position_nll;      ///< -log softmax(logits)[target], per position
  std::vector<std::size_t> predictions;  ///< argmax of each row of logits
};
ForwardEvidence forward_evidence(const llm::DecoderModel& model);

/// The tied table in both roles.
struct TyingEvidence {
  std::string name;                ///< the one table's name
  bool no_head_parameter = false;  ///< tied: no `head.weight` in the set
  bool unread_rows_learn = false;  ///< rows of tokens never looked up still get a gradient
  llm::Tensor full, lookup_role, head_role;  ///< the probe's table gradients
  double decomposition_error = 0.0;          ///< max |full - lookup - head|
};
TyingEvidence tying_evidence(const llm::DecoderModel& model);

/// Names and counts, tied and untied.
struct ParameterEvidence {
  std::vector<std::string> names;
  std::vector<std::size_t> sizes;
  std::size_t scalars = 0, untied_scalars = 0;
  bool bias_free = false, stable_order = false;
};
ParameterEvidence parameter_evidence(const llm::DecoderModel& model);

/// One refusal: what was asked, the error kind, the message.
struct Refusal {
  std::string request, kind, message;
};
/// Zero, one and two layers give [1,3,4] streams and [1,3,5] logits.
bool depths_valid();
/// Empty vocabulary, 5 tokens in a context of 4, token ID 5, target 5.
std::vector<Refusal> refusals();

/// Replacing the last token leaves the first two rows of logits bit for bit.
struct CausalityEvidence {
  bool prefix_unchanged[2] = {false, false};
  bool suffix_changed = false;
  llm::Tensor changed_logits;
};
CausalityEvidence causality_evidence(const llm::DecoderModel& model);

/// Central differences of the zero-layer probe's loss in its table and gain;
/// every tensor of the two-layer model getting a finite gradient; and the
/// whole model's sampled check (six coordinates per tensor).
struct GradientEvidence {
  std::size_t table_checks = 0, gain_checks = 0;
  bool probe_passed = false;
  std::size_t finite_gradients = 0, tensors = 0;
  std::size_t model_checks = 0;
  bool model_passed = false;
};
GradientEvidence gradient_evidence(const llm::DecoderModel& model);

}  // namespace ch32
