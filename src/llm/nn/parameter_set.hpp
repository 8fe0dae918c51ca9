// Named parameters: the set a model and each of its layers report, with
// validated dot-separated names in declaration order, zero_grad over every
// parameter, snapshot and restore, and an all-or-nothing update of many
// parameters. Taught in chapter 17; every later chapter's layers and the
// optimizer of chapter 22 use it.
//
// A parameter is a plain TensorValue::parameter handle; a set holds copies of
// the handles (the same tape nodes), so a set is a list of names, not a
// container of values. A layer reports its own parameters under short names
// (`weight`, `bias`) and the model adds them under the layer's prefix:
// `decoder.block.0.attention.query` + `weight` gives
// `decoder.block.0.attention.query.weight`. Composition, not a class
// hierarchy: whatever can list its parameters can be trained.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "llm/autograd/tensor_value.hpp"
#include "llm/nn/parameter_error.hpp"
#include "llm/tensor/shared_tensor.hpp"
#include "llm/tensor/tensor.hpp"

namespace llm {

// region: parameter-name-grammar
/// Checks a parameter name: one or more non-empty segments separated by
/// dots, each made of the bytes a-z, 0-9 and `_` (`block_0.attention.query`).
/// The first fault in byte order is reported.
/// @throws ParameterError InvalidName with index() the fault's byte offset
///         (the length for a trailing dot) and byte() the offending byte
///         (0 for an empty name or segment).
void validate_parameter_name(std::string_view name);
// endregion: parameter-name-grammar

/// One entry of a set: its full name and the parameter's handle.
struct NamedParameter {
  std::string name;       ///< the full dot-separated name
  TensorValue parameter;  ///< the tape parameter (a handle to the shared node)
};

/// The values and gradients of every parameter of a set at one moment, in
/// the set's order (ParameterSet::snapshot). Values are shared, never copied:
/// a value is immutable, so keeping its handle keeps it.
class ParameterSnapshot {
 public:
  /// How many parameters the snapshot holds.
  std::size_t size() const noexcept { return names_.size(); }
  /// The name of parameter `index` (std::out_of_range past the end).
  const std::string& name(std::size_t index) const { return names_.at(index); }
  /// The value parameter `index` had (shared, not copied).
  const SharedTensor& value(std::size_t index) const { return values_.at(index); }
  /// A copy of the gradient parameter `index` had.
  const Tensor& gradient(std::size_t index) const { return gradients_.at(index); }

 private:
  friend class ParameterSet;
  std::vector<std::string> names_;
  std::vector<SharedTensor> values_;
  std::vector<Tensor> gradients_;
};

// region: parameter-update-class
/// New values for every parameter of a set, each already checked and stored
/// (ParameterSet::prepare_update). commit() installs them all with
/// operations that cannot throw, so an update lands whole or not at all.
class ParameterUpdate {
 public:
  /// How many parameters the update replaces.
  std::size_t size() const noexcept { return prepared_.size(); }
  /// Whether commit() has run.
  bool committed() const noexcept { return committed_; }
  /// Installs every prepared value (each parameter's version increments);
  /// a second call does nothing.
  void commit() noexcept;

 private:
  friend class ParameterSet;
  std::vector<PreparedAssignment> prepared_;
  bool committed_ = false;
};
// endregion: parameter-update-class

// region: parameter-set-class
/// A duplicate-free, declaration-ordered list of named parameters.
class ParameterSet {
 public:
  /// Appends `parameter` under `name`. A node appears once: a parameter
  /// shared by two layers (tied weights) is listed once, so an update
  /// changes it once.
  /// @throws ParameterError InvalidName, DuplicateName (index() is the
  ///         earlier entry), NotAParameter, SharedParameter; the set is unchanged.
  void add(std::string name, const TensorValue& parameter);

  /// Appends every entry of `members`, in its order, as `prefix.name`: a
  /// layer's set added under its place in the model. Every new name is
  /// checked before any is added.
  /// @throws ParameterError InvalidName (of the prefix), DuplicateName,
  ///         SharedParameter; the set is unchanged.
  void add_all(std::string_view prefix, const ParameterSet& members);

  /// The number of parameters.
  std::size_t size() const noexcept { return entries_.size(); }
  /// Whether the set holds no parameter.
  bool empty() const noexcept { return entries_.empty(); }
  /// The entry at `index` in declaration order; an index not below size()
  /// throws std::out_of_range.
  const NamedParameter& operator[](std::size_t index) const& { return entries_.at(index); }
  /// Iteration in declaration order.
  auto begin() const& noexcept { return entries_.begin(); }
  /// The end of the iteration.
  auto end() const& noexcept { return entries_.end(); }

  /// The entry called `name`, or nullptr.
  const NamedParameter* find(std::string_view name) const& noexcept;
  /// The parameter called `name`. @throws ParameterError UnknownName.
  const TensorValue& at(std::string_view name) const&;

  // Deleted on a temporary set (the one `layer.parameters()` returns): a
  // reference or iterator into it would dangle at the end of the statement.
  // Keep the set in a variable first; a range-for over a temporary is fine.
  const NamedParameter& operator[](std::size_t index) const&& = delete;
  auto begin() const&& noexcept = delete;
  auto end() const&& noexcept = delete;
  const NamedParameter* find(std::string_view name) const&& noexcept = delete;
  const TensorValue& at(std::string_view name) const&& = delete;
  /// The position of `name` in declaration order. @throws ParameterError UnknownName.
  std::size_t index_of(std::string_view name) const;

  /// Sets every parameter's gradient to zero in place, whether or not the
  /// last loss reached it (TensorValue::zero_grad on a loss misses a
  /// parameter the loss does not use). Allocates nothing, so cannot fail.
  void zero_grad() const noexcept;

  /// Every parameter's value (shared) and gradient (copied), in order.
  /// @throws TensorError AllocationFailed if a gradient copy cannot be made.
  ParameterSnapshot snapshot() const;

  /// Puts back the values and gradients of `snapshot`; each parameter's
  /// version increments, so graphs recorded since are stale. Every entry is
  /// checked and copied before any is installed.
  /// @throws ParameterError UpdateCountMismatch, SnapshotMismatch (names or
  ///         order differ), RejectedValue (shapes differ); nothing changes.
  void restore(const ParameterSnapshot& snapshot) const;

  /// Checks and stores `values[i]` as the new value of parameter i, changing
  /// nothing yet. The first half of an all-or-nothing update.
  /// @throws ParameterError UpdateCountMismatch, then RejectedValue naming the
  ///         first parameter whose value has another shape or a NaN or an
  ///         infinity (cause_kind() says which).
  ParameterUpdate prepare_update(std::vector<Tensor> values) const;

  /// prepare_update(values).commit(): every parameter gets its new value,
  /// or, if any value is rejected, none does.
  /// @throws ParameterError UpdateCountMismatch or RejectedValue, exactly as
  ///         prepare_update; on a throw every parameter is unchanged.
  void assign_all(std::vector<Tensor> values) const;

 private:
  std::vector<NamedParameter> entries_;
};
// endregion: parameter-set-class

}  // namespace llm
