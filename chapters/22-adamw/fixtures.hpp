// The worked examples of chapter 22: one AdamW step over two named
// parameters (one decays, one does not), the decay-product domain, a
// zero-gradient probe, a changed parameter set that must roll back, SGD and
// AdamW paths on an anisotropic quadratic, and four optimizers' two-step
// results on one scalar. Each returns plain data the demo prints.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "llm/training/adamw.hpp"

namespace ch22 {

inline constexpr double kLearningRate = 0.1;
inline constexpr double kBeta1 = 0.5;
inline constexpr double kBeta2 = 0.5;
inline constexpr double kEpsilon = 0.1;
inline constexpr double kWeightDecay = 0.1;
/// Velocity retention of the heavy-ball momentum comparison.
inline constexpr double kMomentumRate = 0.5;
/// The gradient sequence of the two-step comparison.
inline constexpr std::array<double, 2> kHistoricalGradients = {0.2, -0.1};

llm::AdamWConfig chapter_config();

/// Whether AdamWConfig::create rejects eta * lambda = 1, > 1 and an underflowed product.
struct DecayDomain {
  bool equal_one_rejected = false;
  bool over_one_rejected = false;
  bool underflow_rejected = false;
};
DecayDomain decay_domain();

/// The named step and what the demo proves about it.
struct NamedStepEvidence {
  llm::AdamWStep step;
  std::vector<std::string> state_names;
  bool raw_gradients_retained = false;     ///< stored gradients bit-for-bit those the step read
  bool parameter_nodes_preserved = false;  ///< same tape nodes, new values
  llm::AdamWParameterUpdate zero_gradient_update;
  std::string changed_set_error;
  bool changed_set_rolled_back = false;  ///< values, gradients, versions, moments unchanged
};
NamedStepEvidence named_step_evidence();

/// One point of the two paths on q(x, y) = (x^2 + 4 y^2) / 2.
struct TrajectoryPoint {
  std::array<double, 2> sgd;
  std::array<double, 2> adamw;
};
std::vector<TrajectoryPoint> anisotropic_trajectory();

/// theta after two steps from 1 with gradients kHistoricalGradients.
struct HistoricalUpdates {
  double sgd = 0.0, momentum = 0.0, adam_l2 = 0.0, adamw = 0.0;
};
HistoricalUpdates historical_updates();

/// The chapter's betas are equal, so a bug that swaps beta1 and beta2 cannot
/// show in its output. This case uses beta1 = 0.9, beta2 = 0.999 and two
/// different gradients on [1, -2]; it returns the second step's update.
inline constexpr std::array<double, 2> kAsymmetricBetas = {0.9, 0.999};
inline constexpr std::array<std::array<double, 2>, 2> kAsymmetricGradients = {
    {{0.2, -0.4}, {-0.1, 0.3}}};
llm::AdamWParameterUpdate asymmetric_second_step(double beta1, double beta2);

/// A decay-group parameter [1, -2] that gets the gradient [0.2, -0.4] on
/// step 1 and none on step 2. Its moments are no longer zero on step 2, so
/// the step is not pure decay: the adaptive delta comes from the history.
struct ZeroGradientAfterHistory {
  llm::AdamWParameterUpdate first;   ///< step 1, gradient [0.2, -0.4]
  llm::AdamWParameterUpdate second;  ///< step 2, gradient [0, 0]
  std::vector<double> pure_decay;    ///< (1 - d) times step 1's result: what decay alone gives
};
ZeroGradientAfterHistory zero_gradient_after_history();

/// Does the first step's bias correction give back g and fl(g * g) bit for
/// bit? It divides fl((1 - beta) * g) by 1 - beta, which is exact when
/// 1 - beta is a power of two (0.5) and not in general (0.1 is not a double).
/// One AdamW step over `count` gradients drawn uniformly from [-1, 1).
struct CorrectionRoundTrip {
  double beta1 = 0.0, beta2 = 0.0;
  std::size_t count = 0;
  std::size_t first_differ = 0;    ///< corrected first moments != g
  std::size_t second_differ = 0;   ///< corrected second moments != fl(g * g)
  std::uint64_t largest_ulps = 0;  ///< the largest distance in units in the last place
};
inline constexpr std::size_t kRoundTripCount = 100000;
inline constexpr std::uint64_t kRoundTripSeed = 22;
CorrectionRoundTrip correction_round_trip(double beta1, double beta2);

/// The decay of one step in this book's (PyTorch's) parameterization, d =
/// fl(eta * lambda), for the chapter's eta and for eta / 2; and in
/// Loshchilov & Hutter's Algorithm 2 with the same decay at the start
/// (schedule multiplier eta_t = 1, base rate alpha = eta, their lambda =
/// d), where halving alpha leaves eta_t * lambda unchanged.
struct DecayParameterization {
  double learning_rate = 0.0, halved_learning_rate = 0.0;
  double book_decay = 0.0, book_decay_halved = 0.0;
  double lh_weight_decay = 0.0, lh_decay = 0.0, lh_decay_halved = 0.0;
};
DecayParameterization decay_parameterization();

}  // namespace ch22
