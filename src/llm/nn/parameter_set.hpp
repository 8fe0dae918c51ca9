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
#include <cstdint>
#include <optional>
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

/// A named value outside any set: what a checkpoint holds and what
/// ParameterSet::named_values and ParameterSet::load exchange (chapter 35).
struct NamedValue {
  std::string name;    ///< the full dot-separated parameter name
  SharedTensor value;  ///< the value (shared, immutable)
};

// region: global-gradient-norm
/// The global L2 norm of every stored gradient of a set, sqrt(sum g^2) over
/// all elements, kept in the overflow-safe form largest * scaled_root
/// (chapter 33).
struct GradientNorm {
  double largest = 0.0;      ///< the largest |g|; 0 when every gradient is zero
  double scaled_root = 0.0;  ///< sqrt(sum (|g| / largest)^2), in [1, sqrt(n)]; 0 when all are zero
  double value = 0.0;        ///< largest * scaled_root, or DBL_MAX if that product overflows
};
// endregion: global-gradient-norm

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

  // region: parameter-set-gradient-transform-declarations
  /// The global gradient norm over every parameter in set order, elements in
  /// row-major order. One pass keeps the largest |g| seen so far and the sum
  /// of squares scaled by it (rescaled when a larger |g| arrives), so no
  /// square overflows or underflows on the way; the fixed order fixes the
  /// bits (chapter 33).
  GradientNorm gradient_norm() const noexcept;

  /// Multiplies every stored gradient element by `factor` in place (chapter
  /// 33's clipping). A gradient transform is not a new value: versions stay,
  /// so graphs recorded before stay valid. Every product is checked finite
  /// before any is written, so it is all or nothing.
  /// @throws ParameterError InvalidGradientScale (factor not finite or
  ///         negative), NonFiniteScaledGradient (naming parameter and element).
  void scale_gradients(double factor) const;

  /// Every stored gradient element g becomes (g / divisor) * multiplier,
  /// checked and installed as scale_gradients(factor) is. Clipping uses this
  /// form when the factor multiplier / divisor itself would underflow to 0.
  /// @throws ParameterError InvalidGradientScale (multiplier not finite or
  ///         negative, divisor not finite or not > 0), NonFiniteScaledGradient.
  void scale_gradients(double multiplier, double divisor) const;
  // endregion: parameter-set-gradient-transform-declarations

  // region: parameter-set-named-values-declarations
  /// Every parameter's name and value, in set order. Values are shared, not
  /// copied (chapter 35 writes them to a checkpoint).
  std::vector<NamedValue> named_values() const;

  /// Checks and stores a new value for every parameter, found by name in
  /// `values` (in any order), changing nothing yet: the first half of load().
  /// Checked in this order: each entry of `values` in order (a repeated
  /// name, a name the set lacks), then each parameter in set order (no
  /// value for it, then its value's shape and finiteness).
  /// @throws ParameterError DuplicateValue, UnexpectedValue, MissingValue,
  ///         RejectedValue (cause_kind() `assign-shape-mismatch` or `non-finite-leaf`).
  ParameterUpdate prepare_load(std::span<const NamedValue> values) const;

  /// prepare_load(values).commit(): every parameter takes the value of its
  /// name (its version increments, its gradient is kept), or, if anything is
  /// rejected, none does.
  /// @throws ParameterError exactly as prepare_load; on a throw every
  ///         parameter is unchanged.
  void load(std::span<const NamedValue> values) const;
  // endregion: parameter-set-named-values-declarations

  /// prepare_update(values).commit(): every parameter gets its new value,
  /// or, if any value is rejected, none does.
  /// @throws ParameterError UpdateCountMismatch or RejectedValue, exactly as
  ///         prepare_update; on a throw every parameter is unchanged.
  void assign_all(std::vector<Tensor> values) const;

 private:
  std::vector<NamedParameter> entries_;
};
// endregion: parameter-set-class

// region: parameter-binding
/// Which part of a set differs from a ParameterBinding.
enum class BindingMismatchKind {
  Count,    ///< the set has another number of parameters
  Name,     ///< parameter `index` has another name
  Node,     ///< parameter `index` is another tape node (another model)
  Version,  ///< parameter `index` was assigned since (an optimizer step, a restore)
};

/// The first difference between a set and a binding.
struct BindingMismatch {
  BindingMismatchKind kind = BindingMismatchKind::Count;  ///< what differs
  std::size_t index = 0;                                  ///< the parameter (Name, Node, Version)
  std::string name{};                                     ///< its captured name
  std::uint64_t captured = 0;                             ///< the captured count or version
  std::uint64_t current = 0;                              ///< the set's count or version now
};

/// The names, tape nodes and versions of a set's parameters at one moment.
/// A key/value cache keeps one (chapters 37 and 38): rows computed with one
/// model's weights must never be mixed with another model's, or with the
/// same model's after an update, and a node id plus a version says exactly
/// which values a parameter held (values are immutable; assign() bumps the
/// version).
class ParameterBinding {
 public:
  /// The binding of `parameters` now.
  static ParameterBinding capture(const ParameterSet& parameters);
  /// The first difference from `parameters`, in the order count, then for
  /// each parameter name, node and version; nothing when it still matches.
  std::optional<BindingMismatch> compare(const ParameterSet& parameters) const;

  /// Field-by-field equality.
  bool operator==(const ParameterBinding&) const = default;

 private:
  struct Entry {
    std::string name;
    std::uint64_t node_id = 0;
    std::uint64_t version = 0;
    /// Field-by-field equality.
    bool operator==(const Entry&) const = default;
  };
  std::vector<Entry> entries_;
};
// endregion: parameter-binding

}  // namespace llm
