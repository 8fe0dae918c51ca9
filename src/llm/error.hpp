// The root of every error the llm library throws, and the one pattern every
// area follows to declare its own error type (docs/adding-an-operation.md,
// "Typed errors").
//
// Each area (text units, corpus, BPE training, tokenizer, causal windows,
// bigram model, metrics, tensor, gradient check, scalar tape, tensor tape,
// model operations, layers, parameters, batches, AdamW, ...) derives one
// error type from llm::Error. That type carries an `enum class` kind and the
// offending values as fields; its what() reads like a sentence naming them.
// Every error also names its area and its kind as stable kebab-case text, so a
// caller that only reports errors (a demo, a log line) reads `error.area()`
// and `error.kind_name()` from the base class without knowing which derived
// type it caught.
//
// An area writes three things and no switch, no factory per kind:
//   1. the enum of its kinds;
//   2. one table, in enum order, giving each kind its stable name and its
//      message, whose `{field}` holes name the evidence to print;
//   3. its evidence struct (the offending values) and a function that turns
//      one named field of it into text.
// `KindedError<Traits>` then builds the class: `kind()`, `evidence()`, and a
// message filled from the table. See src/llm/nn/layer_error.hpp.
//
// A hole may also name a value the area computes from several fields: the
// extent a coordinate overran, a node named with its optional label, the
// clause of a sentence that depends on which evidence is present. The area's
// `field_text` computes it from the evidence, so no throw site formats text.
#pragma once

#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

/// The library the book builds, chapter by chapter: text, tensors, tapes,
/// layers, training. Every public name lives here.
namespace llm {

/// Base class of every exception thrown by the llm library.
///
/// Operations that throw give the strong guarantee: stored gradients, values
/// and graph state are bit-for-bit as they were before the call.
class Error : public std::runtime_error {
 public:
  /// `area` and `kind_name` must outlive every copy of the error: pass string
  /// literals or the views the kind tables hold.
  Error(std::string_view area, std::string_view kind_name, const std::string& message)
      : std::runtime_error(message), area_(area), kind_name_(kind_name) {}

  /// The area that threw, e.g. `corpus`, `tokenizer`, `tensor`,
  /// `gradient-check`, `scalar-tape`, `tensor-tape` or `model-operation`.
  std::string_view area() const noexcept { return area_; }
  /// The kind's stable kebab-case name, e.g. `shape-overflow` or `released-graph`.
  std::string_view kind_name() const noexcept { return kind_name_; }

 private:
  std::string_view area_;
  std::string_view kind_name_;
};

// region: error-kind-table
/// One row of an area's kind table: a kind, its stable kebab-case name and
/// its message. `{name}` in the message is replaced by the evidence field
/// `name` (the area's `field_text` says how it prints); `{{` and `}}` print
/// one brace.
template <typename Kind>
struct ErrorKindSpec {
  Kind kind;                 ///< the enum value this row describes
  std::string_view name;     ///< stable kebab-case name, e.g. `table-rank`
  std::string_view message;  ///< the sentence what() reads, with `{field}` holes
};

/// True when row i of `table` describes kind i: the table is in enum order
/// and complete, so looking a kind up is one index. Areas check it with
/// `static_assert`, so a row added out of order does not compile.
template <typename Kind, std::size_t N>
constexpr bool kinds_in_enum_order(const std::array<ErrorKindSpec<Kind>, N>& table) {
  for (std::size_t i = 0; i < N; ++i) {
    if (static_cast<std::size_t>(table[i].kind) != i) return false;
  }
  return true;
}
// endregion: error-kind-table

/// How KindedError fills a message (internal to the error pattern).
namespace error_detail {

/// Replaces each `{name}` hole of `format` by `field(name)`; `{{` and `}}`
/// print one brace. A hole without its closing brace is a bug in a kind
/// table; it throws std::logic_error naming the format (tests build every
/// kind, so such a table never ships).
template <typename FieldText>
std::string fill(std::string_view format, const FieldText& field) {
  std::string text;
  text.reserve(format.size() + 32);
  for (std::size_t i = 0; i < format.size(); ++i) {
    const char c = format[i];
    if ((c == '{' || c == '}') && i + 1 < format.size() && format[i + 1] == c) {
      text += c;
      ++i;
    } else if (c == '{') {
      const std::size_t close = format.find('}', i);
      if (close == std::string_view::npos) {
        throw std::logic_error("unclosed hole in error message format: " + std::string(format));
      }
      text += field(format.substr(i + 1, close - i - 1));
      i = close;
    } else {
      text += c;
    }
  }
  return text;
}

/// What an area's `field_text` throws for a hole its evidence does not have:
/// a bug in that area's kind table, caught by the tests that build every kind.
[[noreturn]] inline void unknown_field(std::string_view area, std::string_view field) {
  throw std::logic_error("the " + std::string(area) + " error table names an unknown field {" +
                         std::string(field) + "}");
}

}  // namespace error_detail

// region: kinded-error
/// The error class of one area, built from its traits:
///
/// ```cpp
/// struct LayerErrorTraits {
///   using Kind = LayerErrorKind;           // the enum
///   using Evidence = LayerErrorEvidence;   // the offending values
///   static constexpr std::string_view area = "layer";
///   static constexpr std::array<ErrorKindSpec<Kind>, 11> kinds{{...}};  // in enum order
///   static std::string field_text(const Evidence&, std::string_view field);
/// };
/// class LayerError : public KindedError<LayerErrorTraits> {
///  public:
///   explicit LayerError(LayerErrorKind kind, LayerErrorEvidence evidence = {})
///       : KindedError(kind, std::move(evidence)) {}
///   ...  // one accessor per evidence field
/// };
/// ```
///
/// The derived class writes its constructor out instead of inheriting this
/// one (`using KindedError::KindedError;`): the API reference then shows the
/// area's own types, which Sphinx can resolve, instead of `Kind` and `Evidence`.
///
/// The message is the kind's table row with every hole filled from the
/// evidence, so a kind's name and sentence live in one place and a throw
/// site reads `throw LayerError(LayerErrorKind::TableRank, {.shape = shape})`.
template <typename Traits>
class KindedError : public Error {
 public:
  using Kind = typename Traits::Kind;          ///< the area's enum of kinds
  using Evidence = typename Traits::Evidence;  ///< the area's evidence struct

  /// An error of `kind` about `evidence`; fields the kind does not use keep
  /// their defaults (empty or zero), and a kind without evidence omits it.
  explicit KindedError(Kind kind, Evidence evidence = {})
      : Error(Traits::area, spec(kind).name, message(kind, evidence)),
        kind_(kind),
        evidence_(std::move(evidence)) {}

  /// Which fact failed.
  Kind kind() const noexcept { return kind_; }
  /// The offending values.
  const Evidence& evidence() const noexcept { return evidence_; }

  /// The stable kebab-case name of `kind`, e.g. `table-rank`.
  static constexpr std::string_view kind_name_of(Kind kind) { return spec(kind).name; }

 private:
  static_assert(kinds_in_enum_order(Traits::kinds),
                "an area's kind table must list every kind once, in enum order");

  // A kind added to the enum but not to the table is a bug the tests meet
  // first (they build every kind); it must not read past the table.
  static constexpr const ErrorKindSpec<Kind>& spec(Kind kind) {
    const auto index = static_cast<std::size_t>(kind);
    if (index >= Traits::kinds.size()) {
      throw std::logic_error("the " + std::string(Traits::area) + " error table has no row " +
                             std::to_string(index));
    }
    return Traits::kinds[index];
  }
  static std::string message(Kind kind, const Evidence& evidence) {
    return error_detail::fill(spec(kind).message, [&](std::string_view field) {
      return Traits::field_text(evidence, field);
    });
  }

  Kind kind_;
  Evidence evidence_;
};
// endregion: kinded-error

}  // namespace llm
