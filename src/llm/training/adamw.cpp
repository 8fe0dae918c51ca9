// AdamW with decoupled weight decay and an all-or-nothing step (chapter 22).
#include "llm/training/adamw.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <span>
#include <utility>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "llm/format.hpp"
#include "llm/tensor/kernel_output.hpp"
#include "llm/tensor/parallel.hpp"

namespace llm {

namespace {

// `["a", "b"]`: the names as the changed-set error quotes them.
std::string quoted_names(const std::vector<std::string>& names) {
  std::string text = "[";
  for (std::size_t i = 0; i < names.size(); ++i) text += (i == 0 ? "\"" : ", \"") + names[i] + "\"";
  return text + "]";
}

}  // namespace

std::string AdamWErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "value") return format_shortest(evidence.value);
  if (field == "learning_rate") return format_shortest(evidence.learning_rate);
  if (field == "weight_decay") return format_shortest(evidence.weight_decay);
  if (field == "product") return format_shortest(evidence.product);
  if (field == "name") return evidence.name;
  if (field == "group_fault") {  // an empty name, or a name listed twice
    if (evidence.name.empty()) return "the " + evidence.group + " group lists an empty name";
    return "'" + evidence.name + "' is listed twice in the " + evidence.group + " group";
  }
  if (field == "expected_names") return quoted_names(evidence.expected_names);
  if (field == "names") return quoted_names(evidence.names);
  if (field == "quantity") return evidence.quantity;
  if (field == "element") return std::to_string(evidence.element);
  error_detail::unknown_field(area, field);
}

namespace {

std::vector<std::string> sorted_names(const ParameterSet& parameters) {
  std::set<std::string> names;
  for (const NamedParameter& entry : parameters) names.insert(entry.name);
  return {names.begin(), names.end()};
}

double checked(double value, const std::string& name, std::size_t element,
               std::string_view quantity) {
  if (!std::isfinite(value)) {
    throw AdamWError(
        AdamWErrorKind::NonFiniteArithmetic,
        {.value = value, .name = name, .quantity = std::string(quantity), .element = element});
  }
  return value;
}

// One parameter's element updates (adamw-element-update) in the same
// operations and order, with one finiteness test per element over all its
// intermediates instead of one call per intermediate. Returns the first
// element with a non-finite intermediate, which the checked loop then redoes
// to name the quantity and throw; `count` when every element was updated.
// `first_in` and `second_in` may be `first_out` and `second_out` (fresh
// moments): each element reads its own before writing it.
struct ElementInputs {
  const double* theta;
  const double* gradient;
  const double* first;
  const double* second;
};
struct ElementOutputs {
  double* first;
  double* second;
  double* after;
};
std::size_t update_while_finite(const AdamWConfig& config, double first_correction,
                                double second_correction, double decay_product, ElementInputs in,
                                ElementOutputs out, std::size_t count) {
  const double beta1 = config.beta1(), beta2 = config.beta2();
  const double learning_rate = config.learning_rate(), epsilon = config.epsilon();
  for (std::size_t i = 0; i < count; ++i) {
    const double theta = in.theta[i];
    const double g = in.gradient[i];
    const double m = beta1 * in.first[i] + (1.0 - beta1) * g;
    const double g_squared = g * g;
    const double v = beta2 * in.second[i] + (1.0 - beta2) * g_squared;
    const double m_hat = m / first_correction;
    const double v_hat = v / second_correction;
    const double adaptive = learning_rate * (m_hat / (std::sqrt(v_hat) + epsilon));
    const double decay = decay_product * theta;
    const double after = theta - adaptive - decay;
    // x - x is +0 for a finite x and NaN otherwise, and NaN survives the sum.
    const double finite_sum = (m - m) + (g_squared - g_squared) + (v - v) + (m_hat - m_hat) +
                              (v_hat - v_hat) + (adaptive - adaptive) + (decay - decay) +
                              (after - after);
    if (finite_sum != 0.0) return i;  // NaN compares unequal
    out.first[i] = m;
    out.second[i] = v;
    out.after[i] = after;
  }
  return count;
}

#if defined(__x86_64__)
// update_while_finite eight elements at a time, for CPUs with AVX-512F. Each
// lane does the scalar loop's operations in its order (IEEE division and
// square root round the same in a vector lane as in a scalar one, and no
// multiply is fused into an add), so the bits are the same. A block of eight
// with any non-finite intermediate is left to the scalar loop, which finds
// the element and stores the ones before it.
__attribute__((target("avx512f"))) std::size_t update_while_finite_avx512(
    const AdamWConfig& config, double first_correction, double second_correction,
    double decay_product, ElementInputs in, ElementOutputs out, std::size_t count) {
  typedef double Values __attribute__((vector_size(64)));
  const double beta1 = config.beta1(), beta2 = config.beta2();
  const double learning_rate = config.learning_rate(), epsilon = config.epsilon();
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    Values theta, g, first, second;
    std::memcpy(&theta, in.theta + i, sizeof theta);
    std::memcpy(&g, in.gradient + i, sizeof g);
    std::memcpy(&first, in.first + i, sizeof first);
    std::memcpy(&second, in.second + i, sizeof second);
    const Values m = beta1 * first + (1.0 - beta1) * g;
    const Values g_squared = g * g;
    const Values v = beta2 * second + (1.0 - beta2) * g_squared;
    const Values m_hat = m / first_correction;
    const Values v_hat = v / second_correction;
    // All eight lanes (mask 0xFF); the masked form names a source for lanes it
    // skips, so no lane is ever undefined.
    const __m512d packed = reinterpret_cast<__m512d>(v_hat);
    const Values root = reinterpret_cast<Values>(_mm512_mask_sqrt_pd(packed, 0xFF, packed));
    const Values adaptive = learning_rate * (m_hat / (root + epsilon));
    const Values decay = decay_product * theta;
    const Values after = theta - adaptive - decay;
    const Values finite_sum = (m - m) + (g_squared - g_squared) + (v - v) + (m_hat - m_hat) +
                              (v_hat - v_hat) + (adaptive - adaptive) + (decay - decay) +
                              (after - after);
    double lanes = 0.0;
    for (int lane = 0; lane < 8; ++lane) lanes += finite_sum[lane];
    if (lanes != 0.0) break;  // a NaN: the scalar loop finds which element
    std::memcpy(out.first + i, &m, sizeof m);
    std::memcpy(out.second + i, &v, sizeof v);
    std::memcpy(out.after + i, &after, sizeof after);
  }
  return i + update_while_finite(config, first_correction, second_correction, decay_product,
                                 {in.theta + i, in.gradient + i, in.first + i, in.second + i},
                                 {out.first + i, out.second + i, out.after + i}, count - i);
}
#endif

using ElementLoop = std::size_t (*)(const AdamWConfig&, double, double, double, ElementInputs,
                                    ElementOutputs, std::size_t);

// The widest element loop this CPU runs, chosen at the first step.
ElementLoop element_loop() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return update_while_finite_avx512;
#endif
  return update_while_finite;
}

// update_while_finite over pieces of the elements on several threads
// (parallel_pieces; each element is computed alone, so the bits do not
// change): the first element any piece stopped at, else `count`. Pieces after
// a stop may have written their scratch outputs; the checked loop rewrites
// everything from the stop on.
std::size_t update_in_pieces(const AdamWConfig& config, double first_correction,
                             double second_correction, double decay_product, ElementInputs in,
                             ElementOutputs out, std::size_t count) {
  static const ElementLoop update = element_loop();
  std::atomic<std::size_t> first_stop{count};
  // Two divisions and a square root per element: a quarter of the usual piece.
  parallel_pieces(count, kMinimumPiece / 4, [&](std::size_t begin, std::size_t end) {
    const std::size_t stop =
        begin + update(config, first_correction, second_correction, decay_product,
                       {in.theta + begin, in.gradient + begin, in.first + begin, in.second + begin},
                       {out.first + begin, out.second + begin, out.after + begin}, end - begin);
    if (stop < end) keep_smallest(first_stop, stop);
  });
  return first_stop.load(std::memory_order_relaxed);
}

// g * s for every element of a stored gradient (AdamWStepOptions::gradient_scale).
Tensor scaled_copy(const Tensor& gradient, double scale) {
  Tensor scaled = gradient;
  for (double& value : scaled.mutable_values()) value *= scale;
  return scaled;
}

}  // namespace

// region: adamw-config-create
AdamWConfig AdamWConfig::create(double learning_rate, double beta1, double beta2, double epsilon,
                                double weight_decay) {
  // region: adamw-configuration-checks
  if (!std::isfinite(learning_rate) || learning_rate <= 0.0) {
    throw AdamWError(AdamWErrorKind::InvalidLearningRate, {.value = learning_rate});
  }
  if (!std::isfinite(beta1) || beta1 < 0.0 || beta1 >= 1.0) {
    throw AdamWError(AdamWErrorKind::InvalidBeta1, {.value = beta1});
  }
  if (!std::isfinite(beta2) || beta2 < 0.0 || beta2 >= 1.0) {
    throw AdamWError(AdamWErrorKind::InvalidBeta2, {.value = beta2});
  }
  if (!std::isfinite(epsilon) || epsilon <= 0.0) {
    throw AdamWError(AdamWErrorKind::InvalidEpsilon, {.value = epsilon});
  }
  if (!std::isfinite(weight_decay) || weight_decay < 0.0) {
    throw AdamWError(AdamWErrorKind::InvalidWeightDecay, {.value = weight_decay});
  }
  // endregion: adamw-configuration-checks
  // The product the step really uses, as a double: it must shrink a decayed
  // parameter by a fraction strictly between 0 and 1.
  const double product = learning_rate * weight_decay;
  if (weight_decay != 0.0 && (!std::isfinite(product) || product <= 0.0 || product >= 1.0)) {
    throw AdamWError(
        AdamWErrorKind::InvalidDecayProduct,
        {.learning_rate = learning_rate, .weight_decay = weight_decay, .product = product});
  }
  return AdamWConfig(learning_rate, beta1, beta2, epsilon, weight_decay);
}
// endregion: adamw-config-create

AdamWParameterGroups AdamWParameterGroups::create(const std::vector<std::string>& decay,
                                                  const std::vector<std::string>& no_decay) {
  AdamWParameterGroups groups;
  const auto collect = [](const std::vector<std::string>& names, std::string_view group,
                          std::set<std::string>& into) {
    for (const std::string& name : names) {
      if (name.empty())
        throw AdamWError(AdamWErrorKind::InvalidGroupedName, {.group = std::string(group)});
      if (!into.insert(name).second) {
        throw AdamWError(AdamWErrorKind::InvalidGroupedName,
                         {.group = std::string(group), .name = name});
      }
    }
  };
  collect(decay, "decay", groups.decay_);
  collect(no_decay, "no-decay", groups.no_decay_);
  if (groups.decay_.empty() && groups.no_decay_.empty()) {
    throw AdamWError(AdamWErrorKind::EmptyParameterGroups);
  }
  for (const std::string& name : groups.decay_) {
    if (groups.no_decay_.contains(name)) {
      throw AdamWError(AdamWErrorKind::NameInBothGroups, {.name = name});
    }
  }
  return groups;
}

AdamWParameterGroups AdamWParameterGroups::partition(
    const ParameterSet& parameters, const std::function<bool(std::string_view)>& decays) {
  std::vector<std::string> decay;
  std::vector<std::string> no_decay;
  for (const NamedParameter& entry : parameters) {
    (decays(entry.name) ? decay : no_decay).push_back(entry.name);
  }
  return create(decay, no_decay);
}

std::vector<std::string> AdamWParameterGroups::names() const {
  std::set<std::string> all = decay_;
  all.insert(no_decay_.begin(), no_decay_.end());
  return {all.begin(), all.end()};
}

std::vector<std::string> AdamW::parameter_names() const {
  std::vector<std::string> names;
  for (const auto& [name, moments] : moments_) names.push_back(name);
  return names;
}

const AdamWMoments* AdamW::moments(std::string_view name) const {
  const auto found = moments_.find(name);
  return found == moments_.end() ? nullptr : &found->second;
}

// region: adamw-state-export
AdamWState AdamW::state() const {
  return AdamWState{config_, groups_, step_count_, beta1_power_, beta2_power_, moments_};
}
// endregion: adamw-state-export

namespace {

// region: adamw-state-checks
void check_beta_power(std::string_view name, double power, std::uint64_t step_count) {
  const bool valid = step_count == 0
                         ? std::bit_cast<std::uint64_t>(power) == std::bit_cast<std::uint64_t>(1.0)
                         : std::isfinite(power) && power >= 0.0 && power < 1.0;
  if (!valid) {
    throw AdamWStateError(AdamWStateErrorKind::InvalidBetaPower,
                          {.name = std::string(name), .step_count = step_count, .value = power});
  }
}

void check_moment_entry(const std::string& name, const AdamWMoments& moments) {
  if (name.empty()) throw AdamWStateError(AdamWStateErrorKind::EmptyParameterName, {});
  std::size_t count = 1;
  for (std::size_t extent : moments.shape) {
    if (extent != 0 && count > std::numeric_limits<std::size_t>::max() / extent) {
      throw AdamWStateError(AdamWStateErrorKind::ShapeOverflow,
                            {.name = name, .shape = moments.shape});
    }
    count *= extent;
  }
  if (moments.first.size() != count || moments.second.size() != count) {
    throw AdamWStateError(AdamWStateErrorKind::MomentLengthMismatch,
                          {.name = name,
                           .shape = moments.shape,
                           .expected = count,
                           .first_length = moments.first.size(),
                           .second_length = moments.second.size()});
  }
  for (const auto& [which, values] :
       {std::pair{std::string_view("first"), &moments.first}, {"second", &moments.second}}) {
    for (std::size_t i = 0; i < values->size(); ++i) {
      if (!std::isfinite((*values)[i])) {
        throw AdamWStateError(AdamWStateErrorKind::NonFiniteMoment,
                              {.name = name, .moment = which, .index = i, .value = (*values)[i]});
      }
    }
  }
  for (std::size_t i = 0; i < moments.second.size(); ++i) {
    if (moments.second[i] < 0.0) {
      throw AdamWStateError(AdamWStateErrorKind::NegativeSecondMoment,
                            {.name = name, .index = i, .value = moments.second[i]});
    }
  }
}
// endregion: adamw-state-checks

}  // namespace

// region: adamw-from-state
AdamW AdamW::from_state(AdamWState state) {
  check_beta_power("beta1", state.beta1_power, state.step_count);
  check_beta_power("beta2", state.beta2_power, state.step_count);
  if ((state.step_count == 0) != state.moments.empty()) {
    throw AdamWStateError(AdamWStateErrorKind::MomentPresence,
                          {.step_count = state.step_count, .entries = state.moments.size()});
  }
  for (const auto& [name, moments] : state.moments) check_moment_entry(name, moments);
  if (state.groups && state.step_count > 0) {
    std::vector<std::string> moment_names;
    for (const auto& [name, moments] : state.moments) moment_names.push_back(name);
    if (moment_names != state.groups->names()) {
      throw AdamWStateError(
          AdamWStateErrorKind::GroupsMismatch,
          {.grouped_names = state.groups->names(), .moment_names = std::move(moment_names)});
    }
  }
  AdamW optimizer(state.config);
  optimizer.groups_ = std::move(state.groups);
  optimizer.step_count_ = state.step_count;
  optimizer.beta1_power_ = state.beta1_power;
  optimizer.beta2_power_ = state.beta2_power;
  optimizer.moments_ = std::move(state.moments);
  return optimizer;
}
// endregion: adamw-from-state

std::uint64_t AdamW::step(const ParameterSet& parameters, const AdamWStepOptions& options) {
  return prepare_and_commit(parameters, options, false).step;
}

AdamWStep AdamW::step_with_trace(const ParameterSet& parameters, const AdamWStepOptions& options) {
  return prepare_and_commit(parameters, options, true);
}

// region: adamw-step-configuration
namespace {

// The configuration one step uses: the configured one, or the same betas,
// epsilon and decay with this step's rate, checked exactly as a configured
// rate is (so a scheduled rate cannot make eta * lambda leave (0, 1)).
AdamWConfig step_config(const AdamWConfig& config, const AdamWStepOptions& options) {
  if (!options.learning_rate) return config;
  return AdamWConfig::create(*options.learning_rate, config.beta1(), config.beta2(),
                             config.epsilon(), config.weight_decay());
}

double checked_gradient_scale(double scale) {
  if (!std::isfinite(scale) || scale < 0.0 || scale > 1.0) {
    throw AdamWError(AdamWErrorKind::InvalidGradientScale, {.value = scale});
  }
  return scale;
}

}  // namespace
// endregion: adamw-step-configuration

// region: transactional-adamw-step
AdamWStep AdamW::prepare_and_commit(const ParameterSet& parameters, const AdamWStepOptions& options,
                                    bool keep_trace) {
  const AdamWConfig config = step_config(config_, options);
  const double gradient_scale = checked_gradient_scale(options.gradient_scale);
  // region: adamw-step-name-checks
  if (parameters.empty()) throw AdamWError(AdamWErrorKind::EmptyParameterSet);
  const std::vector<std::string> names = sorted_names(parameters);
  // The grouped names, else the names that own moments, else (first step) any.
  const std::vector<std::string> expected =
      groups_ ? groups_->names() : (step_count_ > 0 ? parameter_names() : names);
  if (names != expected) {
    throw AdamWError(AdamWErrorKind::ParameterSetChanged,
                     {.expected_names = expected, .names = names});
  }
  // endregion: adamw-step-name-checks

  // Phase 1: compute every candidate into scratch_, storage this optimizer
  // owns and nothing reads; the live moments_ are only read.
  if (step_count_ == 0) scratch_.clear();  // the first step decides the names
  AdamWStep result;
  result.step = step_count_ + 1;
  result.learning_rate = config.learning_rate();
  const double beta1_power = beta1_power_ * config.beta1();
  const double beta2_power = beta2_power_ * config.beta2();
  result.first_correction = 1.0 - beta1_power;
  result.second_correction = 1.0 - beta2_power;
  std::vector<Tensor> next_values;
  next_values.reserve(parameters.size());
  for (const NamedParameter& entry : parameters) {
    // The current values, read where they lie (a parameter is row-major, so
    // contiguous() copies nothing); phase 3 replaces them, nothing here writes.
    const SharedTensor before = entry.parameter.value().contiguous();
    const Tensor& stored = *entry.parameter.gradient();  // a set holds parameters only
    // The gradient the moments read: the stored one, or a scaled copy.
    const Tensor scaled = gradient_scale == 1.0 ? Tensor() : scaled_copy(stored, gradient_scale);
    const Tensor& gradient = gradient_scale == 1.0 ? stored : scaled;
    AdamWMoments& next = scratch_[entry.name];
    next.shape = before.shape();
    next.first.resize(before.size());
    next.second.resize(before.size());
    if (step_count_ == 0) {  // fresh moments are zero; each element reads its own before writing
      std::fill(next.first.begin(), next.first.end(), 0.0);
      std::fill(next.second.begin(), next.second.end(), 0.0);
    }
    const AdamWMoments& moments = step_count_ == 0 ? next : moments_.find(entry.name)->second;
    if (moments.shape != before.shape()) {
      throw AdamWError(AdamWErrorKind::ParameterShapeChanged, {.name = entry.name});
    }
    const bool decays = !groups_ || groups_->decays(entry.name);
    const double decay_product = decays ? config.learning_rate() * config.weight_decay() : 0.0;
    AdamWParameterUpdate update{entry.name, before.shape(), decays, {}, {}, {}, {}, {}, {}, {}, {},
                                {}};
    // Every element is written below (or the step throws): a reused buffer
    // (kernel_output) saves the page faults of a fresh one on every step.
    Tensor next_value = kernel_output(before.shape());
    const std::span<double> after = next_value.mutable_values();
    // Without a trace, the unchecked-per-intermediate loop does the work; the
    // checked loop below starts where it stopped (at the end, or at the
    // element whose error it must report).
    const std::size_t first_unchecked =
        keep_trace ? 0
                   : update_in_pieces(
                         config, result.first_correction, result.second_correction, decay_product,
                         {before.contiguous_values().data(), gradient.values().data(),
                          moments.first.data(), moments.second.data()},
                         {next.first.data(), next.second.data(), after.data()}, before.size());
    for (std::size_t i = first_unchecked; i < before.size(); ++i) {
      // region: adamw-element-update
      const double theta = before.contiguous_values()[i];
      const double g = gradient.values()[i];
      const double m = checked(config.beta1() * moments.first[i] + (1.0 - config.beta1()) * g,
                               entry.name, i, "first moment");
      const double g_squared = checked(g * g, entry.name, i, "squared gradient");
      const double v =
          checked(config.beta2() * moments.second[i] + (1.0 - config.beta2()) * g_squared,
                  entry.name, i, "second moment");
      const double m_hat =
          checked(m / result.first_correction, entry.name, i, "corrected first moment");
      const double v_hat =
          checked(v / result.second_correction, entry.name, i, "corrected second moment");
      const double adaptive =
          checked(config.learning_rate() * (m_hat / (std::sqrt(v_hat) + config.epsilon())),
                  entry.name, i, "adaptive delta");
      const double decay =
          checked(decay_product * theta, entry.name, i, "decay delta");  // never enters m or v
      after[i] = checked(theta - adaptive - decay, entry.name, i, "updated value");
      // endregion: adamw-element-update
      next.first[i] = m;
      next.second[i] = v;
      if (keep_trace) {
        update.before.push_back(theta);
        update.gradient.push_back(g);
        update.first_moment.push_back(m);
        update.second_moment.push_back(v);
        update.corrected_first_moment.push_back(m_hat);
        update.corrected_second_moment.push_back(v_hat);
        update.adaptive_delta.push_back(adaptive);
        update.decay_delta.push_back(decay);
        update.after.push_back(after[i]);
      }
    }
    next_values.push_back(std::move(next_value));
    if (keep_trace) result.updates.push_back(std::move(update));
  }

  // Phase 2: the tape checks and stores every new value (may throw; nothing changed yet).
  ParameterUpdate prepared = parameters.prepare_update(std::move(next_values));

  // Phase 3: install everything with operations that cannot throw. The old
  // moments become the next step's scratch: no moment is copied.
  prepared.commit();
  moments_.swap(scratch_);
  step_count_ = result.step;
  beta1_power_ = beta1_power;
  beta2_power_ = beta2_power;
  return result;
}
// endregion: transactional-adamw-step

}  // namespace llm
