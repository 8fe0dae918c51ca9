// The typed error of the run-time settings of the kernels (area
// `configuration`): a thread count or a matrix-product kernel that the
// environment (LLM_THREADS, LLM_MATMUL_KERNEL) or a call names but that
// cannot be used. Written in the one pattern of src/llm/error.hpp. See
// docs/performance.md.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "llm/error.hpp"

namespace llm {

/// What was wrong with a setting.
enum class ConfigurationErrorKind {
  InvalidThreadCount,       ///< not a whole number from 1 to kMaximumThreads
  UnknownMatmulKernel,      ///< no matrix-product kernel has that name
  UnsupportedMatmulKernel,  ///< the kernel needs instructions this CPU lacks
};

/// The offending setting; a kind leaves the fields it does not use empty.
struct ConfigurationErrorEvidence {
  std::string source{};   ///< where it came from, e.g. `LLM_THREADS` or `set_thread_count`
  std::string value{};    ///< the value given, as text
  std::string allowed{};  ///< what would have been accepted
};

/// The `configuration` area: each kind's stable name and message, in enum order.
struct ConfigurationErrorTraits {
  using Kind = ConfigurationErrorKind;                       ///< the area's kinds
  using Evidence = ConfigurationErrorEvidence;               ///< the offending values
  static constexpr std::string_view area = "configuration";  ///< Error::area()
  /// Each kind's stable name and message, in enum order.
  static constexpr std::array<ErrorKindSpec<Kind>, 3> kinds{{
      {Kind::InvalidThreadCount, "invalid-thread-count",
       "{source} must be a thread count from {allowed}, got '{value}'"},
      {Kind::UnknownMatmulKernel, "unknown-matmul-kernel",
       "{source} names no matrix-product kernel: '{value}' (kernels: {allowed})"},
      {Kind::UnsupportedMatmulKernel, "unsupported-matmul-kernel",
       "{source} names the matrix-product kernel '{value}', which this CPU cannot run "
       "(it runs: {allowed})"},
  }};
  /// `source`, `value` or `allowed` as the message prints it.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};

/// An error in a run-time setting of the kernels (area `configuration`),
/// thrown before any work: no tensor, value or gradient has changed.
class ConfigurationError : public KindedError<ConfigurationErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty. `throw ConfigurationError(ConfigurationErrorKind::..., {.field = value});`
  explicit ConfigurationError(ConfigurationErrorKind kind, ConfigurationErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}
};

}  // namespace llm
