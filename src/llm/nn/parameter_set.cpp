// Named parameter sets (chapter 17): the name grammar, declaration order,
// zero_grad, snapshot and restore, and the all-or-nothing update.
#include "llm/nn/parameter_set.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "llm/autograd/tensor_value.hpp"

namespace llm {

// region: validate-parameter-name
void validate_parameter_name(std::string_view name) {
  if (name.empty()) throw ParameterError(ParameterErrorKind::InvalidName);
  bool segment_empty = true;  // true at the start and right after a dot
  for (std::size_t index = 0; index < name.size(); ++index) {
    const auto byte = static_cast<unsigned char>(name[index]);
    if (byte == '.') {
      if (segment_empty)
        throw ParameterError(ParameterErrorKind::InvalidName,
                             {.name = std::string(name), .index = index});
      segment_empty = true;
      continue;
    }
    const bool allowed =
        (byte >= 'a' && byte <= 'z') || (byte >= '0' && byte <= '9') || byte == '_';
    if (!allowed)
      throw ParameterError(ParameterErrorKind::InvalidName,
                           {.name = std::string(name), .index = index, .byte = byte});
    segment_empty = false;
  }
  if (segment_empty)
    throw ParameterError(ParameterErrorKind::InvalidName,
                         {.name = std::string(name), .index = name.size()});
}
// endregion: validate-parameter-name

// region: parameter-set-add
void ParameterSet::add(std::string name, const TensorValue& parameter) {
  validate_parameter_name(name);
  if (const NamedParameter* earlier = find(name)) {
    throw ParameterError(
        ParameterErrorKind::DuplicateName,
        {.name = std::move(name), .index = static_cast<std::size_t>(earlier - entries_.data())});
  }
  if (!parameter.is_parameter())
    throw ParameterError(ParameterErrorKind::NotAParameter, {.name = std::move(name)});
  for (std::size_t earlier = 0; earlier < entries_.size(); ++earlier) {
    if (entries_[earlier].parameter.is_same_node(parameter)) {  // one node, one update per step
      throw ParameterError(
          ParameterErrorKind::SharedParameter,
          {.name = std::move(name), .index = earlier, .first_name = entries_[earlier].name});
    }
  }
  entries_.push_back(NamedParameter{std::move(name), parameter});
}

void ParameterSet::add_all(std::string_view prefix, const ParameterSet& members) {
  validate_parameter_name(prefix);
  // Build the grown list aside; swap it in only when every name was accepted.
  std::vector<NamedParameter> grown = entries_;
  grown.reserve(entries_.size() + members.size());
  for (const NamedParameter& member : members) {
    std::string name = std::string(prefix) + "." + member.name;
    for (std::size_t earlier = 0; earlier < grown.size(); ++earlier) {
      if (grown[earlier].name == name) {
        throw ParameterError(ParameterErrorKind::DuplicateName,
                             {.name = std::move(name), .index = earlier});
      }
      if (grown[earlier].parameter.is_same_node(member.parameter)) {
        throw ParameterError(
            ParameterErrorKind::SharedParameter,
            {.name = std::move(name), .index = earlier, .first_name = grown[earlier].name});
      }
    }
    grown.push_back(NamedParameter{std::move(name), member.parameter});
  }
  entries_.swap(grown);
}
// endregion: parameter-set-add

const NamedParameter* ParameterSet::find(std::string_view name) const& noexcept {
  for (const NamedParameter& entry : entries_) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

const TensorValue& ParameterSet::at(std::string_view name) const& {
  const NamedParameter* entry = find(name);
  if (entry == nullptr)
    throw ParameterError(ParameterErrorKind::UnknownName, {.name = std::string(name)});
  return entry->parameter;
}

std::size_t ParameterSet::index_of(std::string_view name) const {
  const NamedParameter* entry = find(name);
  if (entry == nullptr)
    throw ParameterError(ParameterErrorKind::UnknownName, {.name = std::string(name)});
  return static_cast<std::size_t>(entry - entries_.data());
}

// region: parameter-set-zero-grad
void ParameterSet::zero_grad() const noexcept {
  // Each entry is a parameter, a leaf: zero_grad() on it reaches only itself
  // and fills its gradient in place.
  for (const NamedParameter& entry : entries_) entry.parameter.zero_grad();
}
// endregion: parameter-set-zero-grad

ParameterSnapshot ParameterSet::snapshot() const {
  ParameterSnapshot snapshot;
  snapshot.names_.reserve(entries_.size());
  snapshot.values_.reserve(entries_.size());
  snapshot.gradients_.reserve(entries_.size());
  for (const NamedParameter& entry : entries_) {
    snapshot.names_.push_back(entry.name);
    snapshot.values_.push_back(entry.parameter.value());
    snapshot.gradients_.push_back(*entry.parameter.gradient());
  }
  return snapshot;
}

void ParameterSet::restore(const ParameterSnapshot& snapshot) const {
  if (snapshot.size() != entries_.size()) {
    throw ParameterError(ParameterErrorKind::UpdateCountMismatch,
                         {.expected = entries_.size(), .actual = snapshot.size()});
  }
  ParameterUpdate update;
  update.prepared_.reserve(entries_.size());
  for (std::size_t index = 0; index < entries_.size(); ++index) {
    const NamedParameter& entry = entries_[index];
    if (snapshot.names_[index] != entry.name) {
      throw ParameterError(ParameterErrorKind::SnapshotMismatch,
                           {.name = snapshot.names_[index], .index = index});
    }
    try {
      update.prepared_.push_back(
          entry.parameter.prepare_restore(snapshot.values_[index], snapshot.gradients_[index]));
    } catch (const TensorAutodiffError& error) {
      throw ParameterError::rejected_value(entry.name, index, error);
    }
  }
  update.commit();
}

// region: parameter-set-update
ParameterUpdate ParameterSet::prepare_update(std::vector<Tensor> values) const {
  if (values.size() != entries_.size()) {
    throw ParameterError(ParameterErrorKind::UpdateCountMismatch,
                         {.expected = entries_.size(), .actual = values.size()});
  }
  ParameterUpdate update;
  update.prepared_.reserve(entries_.size());
  for (std::size_t index = 0; index < entries_.size(); ++index) {
    const NamedParameter& entry = entries_[index];
    try {
      update.prepared_.push_back(entry.parameter.prepare_assignment(std::move(values[index])));
    } catch (const TensorAutodiffError& error) {
      throw ParameterError::rejected_value(entry.name, index, error);
    }
  }
  return update;  // nothing installed yet: dropping it changes nothing
}

void ParameterUpdate::commit() noexcept {
  if (committed_) return;
  for (PreparedAssignment& prepared : prepared_) TensorValue::commit_assignment(prepared);
  committed_ = true;
}

void ParameterSet::assign_all(std::vector<Tensor> values) const {
  ParameterUpdate update = prepare_update(std::move(values));
  update.commit();
}
// endregion: parameter-set-update

// region: parameter-set-gradient-norm
GradientNorm ParameterSet::gradient_norm() const noexcept {
  double largest = 0.0;
  double scaled_squares = 1.0;  // sum of (|g| / largest)^2; the largest element counts 1
  for (const NamedParameter& entry : entries_) {
    for (double element : entry.parameter.gradient()->values()) {
      const double magnitude = std::fabs(element);
      if (magnitude == 0.0) continue;
      if (largest < magnitude) {  // a new largest: rescale the sum to it
        const double ratio = largest / magnitude;
        scaled_squares = 1.0 + scaled_squares * ratio * ratio;
        largest = magnitude;
      } else {
        const double ratio = magnitude / largest;
        scaled_squares += ratio * ratio;
      }
    }
  }
  if (largest == 0.0) return GradientNorm{};
  const double scaled_root = std::sqrt(scaled_squares);
  const double norm = largest * scaled_root;
  return GradientNorm{largest, scaled_root,
                      std::isfinite(norm) ? norm : std::numeric_limits<double>::max()};
}
// endregion: parameter-set-gradient-norm

// region: parameter-set-scale-gradients
void ParameterSet::scale_gradients(double factor) const {
  scale_gradients(factor, 1.0);  // g / 1 is g exactly, so this is g * factor
}

void ParameterSet::scale_gradients(double multiplier, double divisor) const {
  if (!std::isfinite(multiplier) || multiplier < 0.0 || !std::isfinite(divisor) || divisor <= 0.0) {
    throw ParameterError(ParameterErrorKind::InvalidGradientScale,
                         {.value = multiplier, .divisor = divisor});
  }
  // Check every product first: a throw leaves every gradient as it was.
  // g / 1 is g exactly, so a divisor of 1 (every clip whose factor does not
  // underflow) skips the division and gives the same bits.
  const bool divides = divisor != 1.0;
  for (const NamedParameter& entry : entries_) {
    const std::span<const double> gradient = entry.parameter.gradient()->values();
    for (std::size_t i = 0; i < gradient.size(); ++i) {
      const double quotient = divides ? gradient[i] / divisor : gradient[i];
      if (!std::isfinite(quotient * multiplier)) {
        throw ParameterError(ParameterErrorKind::NonFiniteScaledGradient,
                             {.name = entry.name,
                              .index = i,
                              .value = gradient[i],
                              .divisor = divisor,
                              .multiplier = multiplier});
      }
    }
  }
  for (const NamedParameter& entry : entries_) {
    entry.parameter.scale_gradient_in_place(multiplier, divisor);  // no version bump
  }
}
// endregion: parameter-set-scale-gradients

// region: parameter-set-named-values
std::vector<NamedValue> ParameterSet::named_values() const {
  std::vector<NamedValue> values;
  values.reserve(entries_.size());
  for (const NamedParameter& entry : entries_) {
    values.push_back(NamedValue{entry.name, entry.parameter.value()});
  }
  return values;
}

ParameterUpdate ParameterSet::prepare_load(std::span<const NamedValue> values) const {
  std::map<std::string_view, std::size_t> by_name;  // name -> position in `values`
  for (std::size_t index = 0; index < values.size(); ++index) {
    const std::string& name = values[index].name;
    if (!by_name.emplace(name, index).second)
      throw ParameterError(ParameterErrorKind::DuplicateValue, {.name = name, .index = index});
    if (find(name) == nullptr)
      throw ParameterError(ParameterErrorKind::UnexpectedValue, {.name = name, .index = index});
  }
  ParameterUpdate update;
  update.prepared_.reserve(entries_.size());
  for (std::size_t index = 0; index < entries_.size(); ++index) {
    const NamedParameter& entry = entries_[index];
    const auto found = by_name.find(entry.name);
    if (found == by_name.end())
      throw ParameterError(ParameterErrorKind::MissingValue, {.name = entry.name, .index = index});
    try {
      update.prepared_.push_back(
          entry.parameter.prepare_assignment(values[found->second].value.materialize()));
    } catch (const TensorAutodiffError& error) {
      throw ParameterError::rejected_value(entry.name, index, error);
    }
  }
  return update;  // nothing installed yet
}

void ParameterSet::load(std::span<const NamedValue> values) const {
  ParameterUpdate update = prepare_load(values);
  update.commit();
}
// endregion: parameter-set-named-values

// region: parameter-binding-compare
ParameterBinding ParameterBinding::capture(const ParameterSet& parameters) {
  ParameterBinding binding;
  for (const NamedParameter& entry : parameters) {
    binding.entries_.push_back(
        Entry{entry.name, entry.parameter.node_id(), entry.parameter.version()});
  }
  return binding;
}

std::optional<BindingMismatch> ParameterBinding::compare(const ParameterSet& parameters) const {
  if (parameters.size() != entries_.size()) {
    return BindingMismatch{BindingMismatchKind::Count, 0, "", entries_.size(), parameters.size()};
  }
  for (std::size_t index = 0; index < entries_.size(); ++index) {
    const Entry& captured = entries_[index];
    const NamedParameter& entry = parameters[index];
    if (entry.name != captured.name) {
      return BindingMismatch{BindingMismatchKind::Name, index, captured.name, 0, 0};
    }
    if (entry.parameter.node_id() != captured.node_id) {
      return BindingMismatch{BindingMismatchKind::Node, index, captured.name, 0, 0};
    }
    if (entry.parameter.version() != captured.version) {
      return BindingMismatch{BindingMismatchKind::Version, index, captured.name, captured.version,
                             entry.parameter.version()};
    }
  }
  return std::nullopt;
}
// endregion: parameter-binding-compare

}  // namespace llm
