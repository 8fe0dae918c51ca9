// Named parameter sets (chapter 17): the name grammar, declaration order,
// zero_grad, snapshot and restore, and the all-or-nothing update.
#include "llm/nn/parameter_set.hpp"

#include <utility>

#include "llm/autograd/tensor_value.hpp"

namespace llm {

// region: validate-parameter-name
void validate_parameter_name(std::string_view name) {
  if (name.empty()) throw ParameterError::invalid_name(std::string(name), 0, 0);
  bool segment_empty = true;  // true at the start and right after a dot
  for (std::size_t index = 0; index < name.size(); ++index) {
    const auto byte = static_cast<unsigned char>(name[index]);
    if (byte == '.') {
      if (segment_empty) throw ParameterError::invalid_name(std::string(name), index, 0);
      segment_empty = true;
      continue;
    }
    const bool allowed =
        (byte >= 'a' && byte <= 'z') || (byte >= '0' && byte <= '9') || byte == '_';
    if (!allowed) throw ParameterError::invalid_name(std::string(name), index, byte);
    segment_empty = false;
  }
  if (segment_empty) throw ParameterError::invalid_name(std::string(name), name.size(), 0);
}
// endregion: validate-parameter-name

// region: parameter-set-add
void ParameterSet::add(std::string name, const TensorValue& parameter) {
  validate_parameter_name(name);
  if (const NamedParameter* earlier = find(name)) {
    throw ParameterError::duplicate_name(std::move(name),
                                         static_cast<std::size_t>(earlier - entries_.data()));
  }
  if (!parameter.is_parameter()) throw ParameterError::not_a_parameter(std::move(name));
  for (std::size_t earlier = 0; earlier < entries_.size(); ++earlier) {
    if (entries_[earlier].parameter.is_same_node(parameter)) {  // one node, one update per step
      throw ParameterError::shared_parameter(std::move(name), entries_[earlier].name, earlier);
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
        throw ParameterError::duplicate_name(std::move(name), earlier);
      }
      if (grown[earlier].parameter.is_same_node(member.parameter)) {
        throw ParameterError::shared_parameter(std::move(name), grown[earlier].name, earlier);
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
  if (entry == nullptr) throw ParameterError::unknown_name(std::string(name));
  return entry->parameter;
}

std::size_t ParameterSet::index_of(std::string_view name) const {
  const NamedParameter* entry = find(name);
  if (entry == nullptr) throw ParameterError::unknown_name(std::string(name));
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
    throw ParameterError::update_count_mismatch(entries_.size(), snapshot.size());
  }
  ParameterUpdate update;
  update.prepared_.reserve(entries_.size());
  for (std::size_t index = 0; index < entries_.size(); ++index) {
    const NamedParameter& entry = entries_[index];
    if (snapshot.names_[index] != entry.name) {
      throw ParameterError::snapshot_mismatch(snapshot.names_[index], index);
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
    throw ParameterError::update_count_mismatch(entries_.size(), values.size());
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

}  // namespace llm
