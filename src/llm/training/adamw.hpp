// AdamW: bias-corrected first and second gradient moments per named
// parameter, and weight decay applied beside the adaptive step instead of
// through the gradient. Taught in chapter 22.
//
// For each coordinate of a parameter theta with gradient g at step t:
//     m_t = beta1 m_{t-1} + (1 - beta1) g        v_t = beta2 v_{t-1} + (1 - beta2) g^2
//     m^_t = m_t / (1 - beta1^t)                 v^_t = v_t / (1 - beta2^t)
//     theta_t = theta_{t-1} - eta m^_t / (sqrt(v^_t) + epsilon) - (eta lambda) theta_{t-1}
// with lambda the configured decay for a parameter of the decay group and 0
// for one of the no-decay group. The decay term never enters m or v.
//
// A step is a transaction over a whole ParameterSet (chapter 17): every new
// value and every new moment is computed and checked first, the values are
// prepared with ParameterSet::prepare_update, and only then are values,
// moments and the step count installed, by operations that cannot throw.
//
// Chapter 33 drives the same optimizer from a training loop: a step may take
// its own learning rate (a schedule's value) and a uniform gradient scale
// (AdamWStepOptions). Chapter 35 saves and restores it: state() returns
// everything the next step reads, from_state() rebuilds an optimizer that
// continues bit for bit.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "llm/error.hpp"
#include "llm/nn/parameter_set.hpp"
#include "llm/tensor/shape.hpp"
#include "llm/training/adamw_state_error.hpp"

namespace llm {

// region: adamw-errors
/// What an AdamW configuration, grouping or step rejected.
enum class AdamWErrorKind {
  InvalidLearningRate,    ///< eta not finite or not > 0
  InvalidBeta1,           ///< beta1 not finite or outside [0, 1)
  InvalidBeta2,           ///< beta2 not finite or outside [0, 1)
  InvalidEpsilon,         ///< epsilon not finite or not > 0
  InvalidWeightDecay,     ///< lambda not finite or negative
  InvalidDecayProduct,    ///< lambda > 0 but the computed eta * lambda is not in (0, 1)
  EmptyParameterGroups,   ///< neither group names a parameter
  InvalidGroupedName,     ///< an empty name, or a name twice in one group
  NameInBothGroups,       ///< a name both decays and does not
  EmptyParameterSet,      ///< a step over no parameter
  ParameterSetChanged,    ///< the set's names differ from the groups' or the moments'
  ParameterShapeChanged,  ///< a parameter's shape differs from its moments'
  NonFiniteArithmetic,    ///< a moment, delta or new value overflowed or became NaN
  InvalidGradientScale,   ///< a step's gradient scale is not finite or outside [0, 1]
};

/// The offending values of an AdamWError; a kind leaves the fields it does
/// not use zero or empty.
struct AdamWErrorEvidence {
  double value = 0.0;          ///< the rejected hyperparameter, or the non-finite result
  double learning_rate = 0.0;  ///< InvalidDecayProduct: eta
  double weight_decay = 0.0;   ///< InvalidDecayProduct: lambda
  double product = 0.0;        ///< InvalidDecayProduct: the computed eta * lambda
  std::string group{};         ///< InvalidGroupedName: `decay` or `no-decay`
  std::string name{};          ///< the parameter name at fault (empty for an empty name)
  std::vector<std::string> expected_names{};  ///< ParameterSetChanged: the names it expected
  std::vector<std::string> names{};           ///< ParameterSetChanged: the names it got
  std::string quantity{};   ///< NonFiniteArithmetic: `first moment`, `update`, ...
  std::size_t element = 0;  ///< NonFiniteArithmetic: the row-major element
};

/// The `adamw` area: each kind's stable name and message, in enum order.
struct AdamWErrorTraits {
  using Kind = AdamWErrorKind;                       ///< the area's kinds
  using Evidence = AdamWErrorEvidence;               ///< the offending values
  static constexpr std::string_view area = "adamw";  ///< Error::area()
  /// Each kind's stable name and message, in enum order. `{group_fault}` says
  /// whether a group lists an empty name or lists `name` twice; name lists
  /// print as `["a", "b"]`.
  static constexpr std::array<ErrorKindSpec<Kind>, 14> kinds{{
      {Kind::InvalidLearningRate, "invalid-learning-rate",
       "the learning rate must be finite and positive, got {value}"},
      {Kind::InvalidBeta1, "invalid-beta1", "beta1 must be finite and in [0, 1), got {value}"},
      {Kind::InvalidBeta2, "invalid-beta2", "beta2 must be finite and in [0, 1), got {value}"},
      {Kind::InvalidEpsilon, "invalid-epsilon", "epsilon must be finite and positive, got {value}"},
      {Kind::InvalidWeightDecay, "invalid-weight-decay",
       "the weight decay must be finite and non-negative, got {value}"},
      {Kind::InvalidDecayProduct, "invalid-decay-product",
       "with positive weight decay, learning_rate * weight_decay must lie in (0, 1), got "
       "{learning_rate} * {weight_decay} = {product}"},
      {Kind::EmptyParameterGroups, "empty-parameter-groups",
       "the parameter groups name no parameter"},
      {Kind::InvalidGroupedName, "invalid-grouped-name", "{group_fault}"},
      {Kind::NameInBothGroups, "name-in-both-groups",
       "'{name}' is in both the decay and the no-decay group"},
      {Kind::EmptyParameterSet, "empty-parameter-set", "an AdamW step needs a parameter"},
      {Kind::ParameterSetChanged, "parameter-set-changed",
       "parameter-name set changed from {expected_names} to {names}"},
      {Kind::ParameterShapeChanged, "parameter-shape-changed",
       "parameter '{name}' changed shape since its moments were created"},
      {Kind::NonFiniteArithmetic, "non-finite-arithmetic",
       "the {quantity} of parameter '{name}' at element {element} became {value}"},
      {Kind::InvalidGradientScale, "invalid-gradient-scale",
       "the gradient scale must be finite and in [0, 1], got {value}"},
  }};
  /// A field as the message prints it, or `group_fault`.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};

/// An error of chapter 22's optimizer. A throwing step changes no
/// parameter value or gradient, no moment and not the step count.
class AdamWError : public KindedError<AdamWErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw AdamWError(AdamWErrorKind::..., {.field = value});`
  explicit AdamWError(AdamWErrorKind kind, AdamWErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}
};
// endregion: adamw-errors

// region: adamw-configuration
/// The five validated hyperparameters of one AdamW optimizer.
class AdamWConfig {
 public:
  /// Checks, in this order: eta finite and > 0; beta1 and beta2 finite in
  /// [0, 1); epsilon finite and > 0; lambda finite and >= 0; with lambda > 0,
  /// the double eta * lambda neither infinite, nor 0 after underflow, nor
  /// >= 1 (a step would then not shrink, would wipe the parameter out, or
  /// would flip its sign).
  /// @throws AdamWError InvalidLearningRate, InvalidBeta1, InvalidBeta2,
  ///         InvalidEpsilon, InvalidWeightDecay, InvalidDecayProduct.
  static AdamWConfig create(double learning_rate, double beta1, double beta2, double epsilon,
                            double weight_decay);

  /// eta: the step size, finite and > 0.
  double learning_rate() const noexcept { return learning_rate_; }
  /// beta1: the share of the previous first moment each step keeps, in [0, 1).
  double beta1() const noexcept { return beta1_; }
  /// beta2: the share of the previous second moment each step keeps, in [0, 1).
  double beta2() const noexcept { return beta2_; }
  /// epsilon: added to sqrt(v^) in the denominator, finite and > 0.
  double epsilon() const noexcept { return epsilon_; }
  /// lambda: the decay coefficient of the decay group, finite and >= 0.
  double weight_decay() const noexcept { return weight_decay_; }
  /// eta * lambda as a double: the fraction of a decayed parameter removed per step.
  double decay_product() const noexcept { return learning_rate_ * weight_decay_; }
  /// 1 - eta * lambda: what a decayed parameter is multiplied by per step
  /// when its gradient is zero.
  double shrinkage_factor() const noexcept { return 1.0 - decay_product(); }

  /// Field-by-field equality.
  bool operator==(const AdamWConfig&) const = default;

 private:
  AdamWConfig(double learning_rate, double beta1, double beta2, double epsilon, double weight_decay)
      : learning_rate_(learning_rate),
        beta1_(beta1),
        beta2_(beta2),
        epsilon_(epsilon),
        weight_decay_(weight_decay) {}
  double learning_rate_, beta1_, beta2_, epsilon_, weight_decay_;
};
// endregion: adamw-configuration

// region: adamw-parameter-groups
/// Which parameters decay: two disjoint sets of full parameter names whose
/// union must be exactly the names of every set the optimizer steps.
/// Weights of projections usually decay; gains, biases and norms usually do not.
class AdamWParameterGroups {
 public:
  /// @throws AdamWError InvalidGroupedName (an empty name, or one listed
  ///         twice in a group), EmptyParameterGroups, NameInBothGroups.
  static AdamWParameterGroups create(const std::vector<std::string>& decay,
                                     const std::vector<std::string>& no_decay);

  /// Whether `name` is in the decay group.
  bool decays(std::string_view name) const { return decay_.contains(std::string(name)); }
  /// Every grouped name, sorted.
  std::vector<std::string> names() const;
  /// The decay group's names, sorted (byte order).
  std::vector<std::string> decay_names() const { return {decay_.begin(), decay_.end()}; }
  /// The no-decay group's names, sorted (byte order).
  std::vector<std::string> no_decay_names() const { return {no_decay_.begin(), no_decay_.end()}; }

  /// Puts every parameter of `parameters` in the decay group when
  /// `decays(name)` is true and in the no-decay group otherwise (chapter 33:
  /// every name ending in `.gain` is kept out of decay).
  /// @throws AdamWError EmptyParameterGroups for an empty set.
  static AdamWParameterGroups partition(const ParameterSet& parameters,
                                        const std::function<bool(std::string_view)>& decays);

  /// Field-by-field equality.
  bool operator==(const AdamWParameterGroups&) const = default;

 private:
  std::set<std::string> decay_;
  std::set<std::string> no_decay_;
};
// endregion: adamw-parameter-groups

// region: adamw-moment-state
/// The first and second moments of one parameter, one value per element,
/// kept under the parameter's name (not its position in the set).
struct AdamWMoments {
  Shape shape;                 ///< the parameter's shape when the moments were made
  std::vector<double> first;   ///< m_t, zero before the first step
  std::vector<double> second;  ///< v_t, zero before the first step

  /// Field-by-field equality.
  bool operator==(const AdamWMoments&) const = default;
};
// endregion: adamw-moment-state

/// Every intermediate of one parameter's update, for chapter 22's demo and
/// its figures. Vectors have one entry per element of the parameter.
struct AdamWParameterUpdate {
  std::string name;            ///< the parameter's full name
  Shape shape;                 ///< its shape
  bool decay_applied = false;  ///< in the decay group (lambda > 0 applies)
  std::vector<double> before;  ///< theta_{t-1}
  /// g_t as the moments read it: the stored gradient times the step's
  /// gradient scale (the stored one is left unchanged).
  std::vector<double> gradient;
  std::vector<double> first_moment;             ///< m_t
  std::vector<double> second_moment;            ///< v_t
  std::vector<double> corrected_first_moment;   ///< m^_t = m_t / (1 - beta1^t)
  std::vector<double> corrected_second_moment;  ///< v^_t = v_t / (1 - beta2^t)
  std::vector<double> adaptive_delta;           ///< eta m^_t / (sqrt(v^_t) + epsilon)
  std::vector<double> decay_delta;              ///< (eta lambda) theta_{t-1}, 0 without decay
  std::vector<double> after;                    ///< theta_t
};

/// One committed step with its intermediates (AdamW::step_with_trace).
struct AdamWStep {
  std::uint64_t step = 0;                     ///< t, counted from 1
  double learning_rate = 0.0;                 ///< eta this step used
  double first_correction = 0.0;              ///< 1 - beta1^t
  double second_correction = 0.0;             ///< 1 - beta2^t
  std::vector<AdamWParameterUpdate> updates;  ///< in the set's order
};

// region: adamw-step-options
/// What one step may choose for itself without rebuilding the optimizer
/// (chapter 33). The defaults reproduce chapter 22's step.
struct AdamWStepOptions {
  /// eta for this step only, e.g. a schedule's value; the configured rate
  /// when empty. Checked with the configured betas, epsilon and decay
  /// exactly as AdamWConfig::create checks a rate (the decay product eta *
  /// lambda included); the configuration itself keeps its rate.
  std::optional<double> learning_rate{};
  /// A factor s in [0, 1] every gradient element is multiplied by before the
  /// moments read it (g * s; s = 1 reads g unchanged). The decay term does
  /// not see it, and the stored gradient is left as it is.
  double gradient_scale = 1.0;
};
// endregion: adamw-step-options

// region: adamw-state
/// Everything the next AdamW step reads, as plain values: what a checkpoint
/// stores (chapter 35). AdamW::from_state(optimizer.state()) continues bit
/// for bit where `optimizer` stopped.
struct AdamWState {
  AdamWConfig config;                          ///< the five hyperparameters
  std::optional<AdamWParameterGroups> groups;  ///< the decay policy, or every parameter decays
  std::uint64_t step_count = 0;                ///< committed steps t
  double beta1_power = 1.0;                    ///< beta1^t as the running product holds it
  double beta2_power = 1.0;                    ///< beta2^t as the running product holds it
  std::map<std::string, AdamWMoments, std::less<>> moments;  ///< by name; empty at t = 0

  /// Field-by-field equality.
  bool operator==(const AdamWState&) const = default;
};
// endregion: adamw-state

// region: adamw-optimizer-class
/// AdamW over a ParameterSet whose names stay the same from step to step.
class AdamW {
 public:
  /// Every parameter decays.
  explicit AdamW(AdamWConfig config) : config_(config) {}
  /// Parameters decay as `groups` says; every set stepped must hold exactly
  /// the grouped names.
  AdamW(AdamWConfig config, AdamWParameterGroups groups)
      : config_(config), groups_(std::move(groups)) {}

  /// One step over every parameter of `parameters`, reading each stored
  /// gradient (which the step leaves in place: clear it with zero_grad()
  /// before the next backward pass). Returns the new step count t.
  /// `options` may set this step's learning rate and gradient scale
  /// (chapter 33); checked first, in that order.
  /// @throws AdamWError InvalidLearningRate, InvalidDecayProduct (the step's
  ///         rate), InvalidGradientScale, EmptyParameterSet,
  ///         ParameterSetChanged (names differ from the groups or, after the
  ///         first step, from the moments), ParameterShapeChanged,
  ///         NonFiniteArithmetic (naming parameter, element and quantity).
  /// On any throw, every value, gradient, moment and the step count are
  /// unchanged, bit for bit.
  std::uint64_t step(const ParameterSet& parameters, const AdamWStepOptions& options = {});

  /// step(), also returning every intermediate.
  AdamWStep step_with_trace(const ParameterSet& parameters, const AdamWStepOptions& options = {});

  /// A copy of everything the next step reads (chapter 35).
  AdamWState state() const;

  /// An optimizer that continues where the one `state` came from, bit for
  /// bit: same moments, step count and exact beta powers. The state is
  /// checked, not trusted (it may come from a file): in this order, beta1
  /// and beta2 powers (exactly 1 at t = 0, finite in [0, 1) after),
  /// moments present exactly when t > 0, each entry (a name, a shape whose
  /// element count fits, both moment lengths equal to it, finite moments,
  /// no negative second moment), and with groups and t > 0 the moments'
  /// names equal to the grouped names. Names and shapes are compared with a
  /// parameter set on the next step().
  /// @throws AdamWStateError naming the first fault.
  static AdamW from_state(AdamWState state);

  /// The hyperparameters every step uses (a step may override the rate).
  const AdamWConfig& config() const noexcept { return config_; }
  /// The decay groups, or empty when every parameter decays.
  const std::optional<AdamWParameterGroups>& groups() const noexcept { return groups_; }
  /// The number of committed steps.
  std::uint64_t step_count() const noexcept { return step_count_; }
  /// The names that own moments, sorted (empty before the first step).
  std::vector<std::string> parameter_names() const;
  /// The moments of `name`, or nullptr.
  const AdamWMoments* moments(std::string_view name) const;

  /// Equal configuration, groups, step count, beta powers and moments (the
  /// scratch buffers of the next step are not state).
  friend bool operator==(const AdamW& a, const AdamW& b) {
    return a.config_ == b.config_ && a.groups_ == b.groups_ && a.step_count_ == b.step_count_ &&
           a.beta1_power_ == b.beta1_power_ && a.beta2_power_ == b.beta2_power_ &&
           a.moments_ == b.moments_;
  }

 private:
  AdamWStep prepare_and_commit(const ParameterSet& parameters, const AdamWStepOptions& options,
                               bool keep_trace);

  AdamWConfig config_;
  std::optional<AdamWParameterGroups> groups_;
  std::uint64_t step_count_ = 0;
  double beta1_power_ = 1.0;  ///< beta1^t, kept as a running product
  double beta2_power_ = 1.0;  ///< beta2^t
  std::map<std::string, AdamWMoments, std::less<>> moments_;
  /// Where a step writes its candidate moments. A successful step swaps it
  /// with moments_, so after the first step no moment is allocated or
  /// copied; a failed step leaves moments_ untouched (only this is dirty).
  std::map<std::string, AdamWMoments, std::less<>> scratch_;
};
// endregion: adamw-optimizer-class

}  // namespace llm
