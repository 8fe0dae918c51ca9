// Messages and evidence of the parameter errors (chapter 17).
#include "llm/nn/parameter_error.hpp"

#include <cstdio>
#include <utility>

#include "llm/format.hpp"

namespace llm {

std::string_view parameter_error_kind_name(ParameterErrorKind kind) {
  switch (kind) {
    case ParameterErrorKind::InvalidName:
      return "invalid-name";
    case ParameterErrorKind::DuplicateName:
      return "duplicate-name";
    case ParameterErrorKind::SharedParameter:
      return "shared-parameter";
    case ParameterErrorKind::UnknownName:
      return "unknown-name";
    case ParameterErrorKind::NotAParameter:
      return "not-a-parameter";
    case ParameterErrorKind::UpdateCountMismatch:
      return "update-count-mismatch";
    case ParameterErrorKind::SnapshotMismatch:
      return "snapshot-mismatch";
    case ParameterErrorKind::RejectedValue:
      return "rejected-value";
    case ParameterErrorKind::ZeroFanIn:
      return "zero-fan-in";
    case ParameterErrorKind::ZeroFanOut:
      return "zero-fan-out";
    case ParameterErrorKind::FanSumOverflow:
      return "fan-sum-overflow";
    case ParameterErrorKind::ShapeProductOverflow:
      return "shape-product-overflow";
    case ParameterErrorKind::MissingValue:
      return "missing-value";
    case ParameterErrorKind::UnexpectedValue:
      return "unexpected-value";
    case ParameterErrorKind::DuplicateValue:
      return "duplicate-value";
    case ParameterErrorKind::InvalidGradientScale:
      return "invalid-gradient-scale";
    case ParameterErrorKind::NonFiniteScaledGradient:
      return "non-finite-scaled-gradient";
  }
  return "unknown";
}

ParameterError::ParameterError(ParameterErrorKind kind, const std::string& message)
    : Error("parameter", parameter_error_kind_name(kind), message), kind_(kind) {}

namespace {
std::string quoted(const std::string& name) {
  return "\"" + name + "\"";
}
std::string hex_byte(std::uint8_t byte) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%02x", static_cast<unsigned>(byte));
  return text;
}
}  // namespace

ParameterError ParameterError::invalid_name(std::string name, std::size_t index,
                                            std::uint8_t byte) {
  std::string reason;
  if (name.empty()) {
    reason = "a parameter name must not be empty";
  } else if (byte == 0) {
    reason = "parameter name " + quoted(name) + " has an empty dot-separated segment at byte " +
             std::to_string(index);
  } else {
    reason = "parameter name " + quoted(name) + " has byte " + hex_byte(byte) + " at " +
             std::to_string(index) + "; only a-z, 0-9, '_' and '.' are allowed";
  }
  ParameterError error(ParameterErrorKind::InvalidName, reason);
  error.name_ = std::move(name);
  error.index_ = index;
  error.byte_ = byte;
  return error;
}

ParameterError ParameterError::duplicate_name(std::string name, std::size_t first) {
  ParameterError error(ParameterErrorKind::DuplicateName,
                       "parameter name " + quoted(name) + " is already taken by parameter " +
                           std::to_string(first) + " of the set");
  error.name_ = std::move(name);
  error.index_ = first;
  return error;
}

ParameterError ParameterError::shared_parameter(std::string name, std::string first_name,
                                                std::size_t first) {
  ParameterError error(ParameterErrorKind::SharedParameter,
                       "the parameter offered as " + quoted(name) + " is already parameter " +
                           std::to_string(first) + " " + quoted(first_name) +
                           " of the set; list a shared (tied) parameter once");
  error.name_ = std::move(name);
  error.first_name_ = std::move(first_name);
  error.index_ = first;
  return error;
}

ParameterError ParameterError::unknown_name(std::string name) {
  ParameterError error(ParameterErrorKind::UnknownName,
                       "the set holds no parameter named " + quoted(name));
  error.name_ = std::move(name);
  return error;
}

ParameterError ParameterError::not_a_parameter(std::string name) {
  ParameterError error(ParameterErrorKind::NotAParameter,
                       "the value offered as " + quoted(name) +
                           " is not a tape parameter (a tracked leaf with a gradient)");
  error.name_ = std::move(name);
  return error;
}

ParameterError ParameterError::update_count_mismatch(std::size_t expected, std::size_t actual) {
  ParameterError error(ParameterErrorKind::UpdateCountMismatch,
                       "the set has " + std::to_string(expected) + " parameters, but " +
                           std::to_string(actual) + " new values were given");
  error.expected_ = expected;
  error.actual_ = actual;
  return error;
}

ParameterError ParameterError::snapshot_mismatch(std::string name, std::size_t index) {
  ParameterError error(ParameterErrorKind::SnapshotMismatch,
                       "the snapshot's parameter " + std::to_string(index) + " is " + quoted(name) +
                           ", which is not the set's parameter at that position");
  error.name_ = std::move(name);
  error.index_ = index;
  return error;
}

ParameterError ParameterError::rejected_value(std::string name, std::size_t index,
                                              const Error& cause) {
  ParameterError error(ParameterErrorKind::RejectedValue,
                       "the new value of parameter " + std::to_string(index) + " " + quoted(name) +
                           " was rejected: " + cause.what());
  error.name_ = std::move(name);
  error.index_ = index;
  error.cause_kind_ = cause.kind_name();
  return error;
}

ParameterError ParameterError::zero_fan_in(std::size_t fan_out) {
  ParameterError error(ParameterErrorKind::ZeroFanIn, "fan-in must be at least 1, got 0");
  error.fan_out_ = fan_out;
  return error;
}

ParameterError ParameterError::zero_fan_out(std::size_t fan_in) {
  ParameterError error(ParameterErrorKind::ZeroFanOut, "fan-out must be at least 1, got 0");
  error.fan_in_ = fan_in;
  return error;
}

ParameterError ParameterError::fan_sum_overflow(std::size_t fan_in, std::size_t fan_out) {
  ParameterError error(ParameterErrorKind::FanSumOverflow,
                       "fan-in " + std::to_string(fan_in) + " plus fan-out " +
                           std::to_string(fan_out) + " does not fit size_t");
  error.fan_in_ = fan_in;
  error.fan_out_ = fan_out;
  return error;
}

ParameterError ParameterError::shape_product_overflow(std::size_t fan_in, std::size_t fan_out) {
  ParameterError error(ParameterErrorKind::ShapeProductOverflow,
                       "a [" + std::to_string(fan_in) + ", " + std::to_string(fan_out) +
                           "] matrix has more elements than size_t can count");
  error.fan_in_ = fan_in;
  error.fan_out_ = fan_out;
  return error;
}

ParameterError ParameterError::missing_value(std::string name, std::size_t index) {
  ParameterError error(ParameterErrorKind::MissingValue, "no value was given for parameter " +
                                                             std::to_string(index) + " " +
                                                             quoted(name) + " of the set");
  error.name_ = std::move(name);
  error.index_ = index;
  return error;
}

ParameterError ParameterError::unexpected_value(std::string name, std::size_t index) {
  ParameterError error(ParameterErrorKind::UnexpectedValue,
                       "value " + std::to_string(index) + " is named " + quoted(name) +
                           ", but the set holds no parameter of that name");
  error.name_ = std::move(name);
  error.index_ = index;
  return error;
}

ParameterError ParameterError::duplicate_value(std::string name, std::size_t index) {
  ParameterError error(ParameterErrorKind::DuplicateValue, "value " + std::to_string(index) +
                                                               " repeats the name " + quoted(name) +
                                                               " of an earlier value");
  error.name_ = std::move(name);
  error.index_ = index;
  return error;
}

ParameterError ParameterError::invalid_gradient_scale(double multiplier, double divisor) {
  ParameterError error(ParameterErrorKind::InvalidGradientScale,
                       "a gradient scale needs a finite multiplier >= 0 and a finite divisor > 0, "
                       "got " +
                           format_shortest(multiplier) + " / " + format_shortest(divisor));
  error.value_ = multiplier;
  error.divisor_ = divisor;
  return error;
}

ParameterError ParameterError::non_finite_scaled_gradient(std::string name, std::size_t index,
                                                          double gradient, double multiplier,
                                                          double divisor) {
  ParameterError error(ParameterErrorKind::NonFiniteScaledGradient,
                       "scaling the gradient of " + quoted(name) + " at element " +
                           std::to_string(index) + " (" + format_shortest(gradient) + " / " +
                           format_shortest(divisor) + " * " + format_shortest(multiplier) +
                           ") overflows");
  error.name_ = std::move(name);
  error.index_ = index;
  error.value_ = gradient;
  error.divisor_ = divisor;
  return error;
}

}  // namespace llm
