// Messages and evidence of the tensor tape's typed errors.
#include <string>
#include <utility>

#include "llm/autograd/tensor_value.hpp"
#include "llm/format.hpp"

namespace llm {
namespace {

std::string coordinate_text(const std::vector<std::size_t>& coordinate) {
  return format_list(std::span<const std::size_t>(coordinate));
}

std::string name_of(TensorOperation operation) {
  return std::string(operation.name());
}

// `mean_axis node 7`, or `mean_axis node 7 ("loss")` for a labeled node.
std::string node_text(TensorOperation operation, std::size_t node, const std::string& label) {
  std::string text = name_of(operation) + " node " + std::to_string(node);
  if (!label.empty()) text += " (\"" + label + "\")";
  return text;
}

}  // namespace

std::string_view tensor_autodiff_error_kind_name(TensorAutodiffErrorKind kind) {
  switch (kind) {
    case TensorAutodiffErrorKind::NonFiniteLeaf:
      return "non-finite-leaf";
    case TensorAutodiffErrorKind::NonFiniteResult:
      return "non-finite-result";
    case TensorAutodiffErrorKind::UntrackedOutput:
      return "untracked-output";
    case TensorAutodiffErrorKind::NonScalarOutput:
      return "non-scalar-output";
    case TensorAutodiffErrorKind::SeedShapeMismatch:
      return "seed-shape-mismatch";
    case TensorAutodiffErrorKind::NonFiniteSeed:
      return "non-finite-seed";
    case TensorAutodiffErrorKind::ReleasedGraph:
      return "released-graph";
    case TensorAutodiffErrorKind::StaleOperand:
      return "stale-operand";
    case TensorAutodiffErrorKind::NotAParameter:
      return "not-a-parameter";
    case TensorAutodiffErrorKind::AssignShapeMismatch:
      return "assign-shape-mismatch";
    case TensorAutodiffErrorKind::ContributionShapeMismatch:
      return "contribution-shape-mismatch";
    case TensorAutodiffErrorKind::NonFiniteContribution:
      return "non-finite-contribution";
    case TensorAutodiffErrorKind::NonFinitePassAdjoint:
      return "non-finite-pass-adjoint";
    case TensorAutodiffErrorKind::NonFiniteAccumulatedGradient:
      return "non-finite-accumulated-gradient";
    case TensorAutodiffErrorKind::NotOneElement:
      return "not-one-element";
  }
  return "unknown";
}

TensorAutodiffError::TensorAutodiffError(TensorAutodiffErrorKind kind, TensorOperation operation,
                                         const std::string& message)
    : Error("tensor-tape", tensor_autodiff_error_kind_name(kind), message),
      kind_(kind),
      operation_(operation) {}

TensorAutodiffError TensorAutodiffError::non_finite_leaf(TensorOperation operation, Shape shape,
                                                         std::vector<std::size_t> coordinate,
                                                         double value) {
  TensorAutodiffError error(TensorAutodiffErrorKind::NonFiniteLeaf, operation,
                            name_of(operation) + " value " + format_shortest(value) +
                                " at coordinate " + coordinate_text(coordinate) + " of shape " +
                                shape_text(shape) + " must be finite");
  error.shape_ = std::move(shape);
  error.coordinate_ = std::move(coordinate);
  error.value_ = value;
  return error;
}

TensorAutodiffError TensorAutodiffError::non_finite_result(TensorOperation operation, Shape shape,
                                                           std::vector<std::size_t> coordinate,
                                                           double value) {
  TensorAutodiffError error(TensorAutodiffErrorKind::NonFiniteResult, operation,
                            name_of(operation) + " produced non-finite value " +
                                format_shortest(value) + " at coordinate " +
                                coordinate_text(coordinate) + " of shape " + shape_text(shape));
  error.shape_ = std::move(shape);
  error.coordinate_ = std::move(coordinate);
  error.value_ = value;
  return error;
}

TensorAutodiffError TensorAutodiffError::untracked_output(TensorOperation operation) {
  return TensorAutodiffError(
      TensorAutodiffErrorKind::UntrackedOutput, operation,
      "cannot backpropagate from untracked " + name_of(operation) + " output");
}

TensorAutodiffError TensorAutodiffError::non_scalar_output(TensorOperation operation, Shape shape) {
  TensorAutodiffError error(TensorAutodiffErrorKind::NonScalarOutput, operation,
                            "backward() seeds 1 only for a rank-zero output, but the " +
                                name_of(operation) + " output has shape " + shape_text(shape) +
                                "; pass a seed of that shape to backward_with_seed");
  error.shape_ = std::move(shape);
  return error;
}

TensorAutodiffError TensorAutodiffError::not_one_element(TensorOperation operation, Shape shape) {
  TensorAutodiffError error(TensorAutodiffErrorKind::NotOneElement, operation,
                            "item() reads a value of exactly one element, but the " +
                                name_of(operation) + " value has shape " + shape_text(shape));
  error.shape_ = std::move(shape);
  return error;
}

TensorAutodiffError TensorAutodiffError::seed_shape_mismatch(TensorOperation operation,
                                                             Shape seed_shape, Shape output_shape) {
  TensorAutodiffError error(TensorAutodiffErrorKind::SeedShapeMismatch, operation,
                            "backward seed shape " + shape_text(seed_shape) + " does not match " +
                                name_of(operation) + " output shape " + shape_text(output_shape));
  error.shape_ = std::move(seed_shape);
  error.expected_shape_ = std::move(output_shape);
  return error;
}

TensorAutodiffError TensorAutodiffError::non_finite_seed(TensorOperation operation, Shape shape,
                                                         std::vector<std::size_t> coordinate,
                                                         double value) {
  TensorAutodiffError error(TensorAutodiffErrorKind::NonFiniteSeed, operation,
                            "backward seed value " + format_shortest(value) + " at coordinate " +
                                coordinate_text(coordinate) + " for the " + name_of(operation) +
                                " output must be finite");
  error.shape_ = std::move(shape);
  error.coordinate_ = std::move(coordinate);
  error.value_ = value;
  return error;
}

TensorAutodiffError TensorAutodiffError::released_graph(TensorOperation operation, std::size_t node,
                                                        std::string label) {
  TensorAutodiffError error(TensorAutodiffErrorKind::ReleasedGraph, operation,
                            "cannot reverse " + node_text(operation, node, label) +
                                ": an earlier backward pass released its saved context");
  error.node_ = node;
  error.label_ = std::move(label);
  return error;
}

TensorAutodiffError TensorAutodiffError::stale_operand(TensorOperation operation, std::size_t node,
                                                       std::string label, std::size_t parent,
                                                       std::size_t operand, std::uint64_t recorded,
                                                       std::uint64_t current) {
  TensorAutodiffError error(
      TensorAutodiffErrorKind::StaleOperand, operation,
      node_text(operation, node, label) + " recorded operand " + std::to_string(operand) +
          " (node " + std::to_string(parent) + ") at version " + std::to_string(recorded) +
          ", but that parameter was assigned since and is at version " + std::to_string(current));
  error.node_ = node;
  error.label_ = std::move(label);
  error.parent_ = parent;
  error.operand_ = operand;
  error.recorded_version_ = recorded;
  error.current_version_ = current;
  return error;
}

TensorAutodiffError TensorAutodiffError::not_a_parameter(TensorOperation operation) {
  return TensorAutodiffError(
      TensorAutodiffErrorKind::NotAParameter, operation,
      "assign() replaces parameter values only, not a " + name_of(operation) + " value");
}

TensorAutodiffError TensorAutodiffError::assign_shape_mismatch(Shape shape, Shape expected_shape) {
  TensorAutodiffError error(TensorAutodiffErrorKind::AssignShapeMismatch,
                            TensorOperation::Parameter,
                            "assigned value of shape " + shape_text(shape) +
                                " does not match parameter shape " + shape_text(expected_shape));
  error.shape_ = std::move(shape);
  error.expected_shape_ = std::move(expected_shape);
  return error;
}

TensorAutodiffError TensorAutodiffError::contribution_shape_mismatch(
    TensorOperation operation, std::size_t node, std::string label, std::size_t parent,
    std::size_t operand, Shape shape, Shape expected_shape) {
  TensorAutodiffError error(TensorAutodiffErrorKind::ContributionShapeMismatch, operation,
                            "VJP of " + node_text(operation, node, label) + " for operand " +
                                std::to_string(operand) + " (node " + std::to_string(parent) +
                                ") returned shape " + shape_text(shape) +
                                ", but the operand has shape " + shape_text(expected_shape));
  error.node_ = node;
  error.label_ = std::move(label);
  error.parent_ = parent;
  error.operand_ = operand;
  error.shape_ = std::move(shape);
  error.expected_shape_ = std::move(expected_shape);
  return error;
}

TensorAutodiffError TensorAutodiffError::non_finite_contribution(
    TensorOperation operation, std::size_t node, std::string label, std::size_t parent,
    std::size_t operand, std::vector<std::size_t> coordinate, double value) {
  TensorAutodiffError error(TensorAutodiffErrorKind::NonFiniteContribution, operation,
                            "VJP of " + node_text(operation, node, label) + " for operand " +
                                std::to_string(operand) + " (node " + std::to_string(parent) +
                                ") produced non-finite contribution " + format_shortest(value) +
                                " at coordinate " + coordinate_text(coordinate));
  error.node_ = node;
  error.label_ = std::move(label);
  error.parent_ = parent;
  error.operand_ = operand;
  error.coordinate_ = std::move(coordinate);
  error.value_ = value;
  return error;
}

TensorAutodiffError TensorAutodiffError::non_finite_pass_adjoint(
    TensorOperation operation, std::size_t node, std::string label,
    std::vector<std::size_t> coordinate, double previous, double contribution) {
  TensorAutodiffError error(TensorAutodiffErrorKind::NonFinitePassAdjoint, operation,
                            node_text(operation, node, label) + " cannot accumulate pass adjoint " +
                                format_shortest(previous) + " plus contribution " +
                                format_shortest(contribution) + " at coordinate " +
                                coordinate_text(coordinate));
  error.node_ = node;
  error.label_ = std::move(label);
  error.coordinate_ = std::move(coordinate);
  error.value_ = previous;
  error.other_value_ = contribution;
  return error;
}

TensorAutodiffError TensorAutodiffError::non_finite_accumulated_gradient(
    std::size_t node, std::string label, std::vector<std::size_t> coordinate, double stored,
    double pass_adjoint) {
  TensorAutodiffError error(
      TensorAutodiffErrorKind::NonFiniteAccumulatedGradient, TensorOperation::Parameter,
      node_text(TensorOperation::Parameter, node, label) + " cannot accumulate stored gradient " +
          format_shortest(stored) + " plus pass adjoint " + format_shortest(pass_adjoint) +
          " at coordinate " + coordinate_text(coordinate));
  error.node_ = node;
  error.label_ = std::move(label);
  error.coordinate_ = std::move(coordinate);
  error.value_ = stored;
  error.other_value_ = pass_adjoint;
  return error;
}

}  // namespace llm
