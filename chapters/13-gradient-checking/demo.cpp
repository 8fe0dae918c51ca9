// Chapter 13 demo: checks derivatives from the actual representable probes,
// prints every worked result, and with --trace writes the run data of the
// chapter's probe-spacing figure, step-scan plot and coordinate table.
#include <algorithm>
#include <cmath>
#include <exception>
#include <iostream>
#include <stdexcept>
#include <string>

#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"

namespace {

using demo::Json;
using llm::format_fixed;
using llm::format_scientific;
using llm::format_shortest;

// The book's three number formats: values, errors and tolerances, and steps,
// spacings and weights (17 digits show which double the probe really is).
std::string value(double x) {
  return format_fixed(x, 12);
}
std::string error(double x) {
  return format_scientific(x, 12);
}
std::string spacing(double x) {
  return format_scientific(x, 17);
}
std::string flag(bool b) {
  return b ? "true" : "false";
}

// A double for the trace; NaN and infinities have no JSON number, so they
// become null and the caller adds their text.
Json number(double x) {
  return std::isfinite(x) ? Json(x) : Json(nullptr);
}

Json difference_json(const llm::CentralDifference& difference) {
  return Json{{"point", difference.point},
              {"requested_step", difference.requested_step},
              {"minus_point", difference.minus_point},
              {"plus_point", difference.plus_point},
              {"minus_spacing", difference.minus_spacing},
              {"plus_spacing", difference.plus_spacing},
              {"minus_value", difference.minus_value},
              {"center_value", difference.center_value},
              {"plus_value", difference.plus_value},
              {"left_slope", difference.left_slope},
              {"right_slope", difference.right_slope},
              {"left_weight", difference.left_weight},
              {"right_weight", difference.right_weight},
              {"stencil", llm::stencil_name(difference.stencil)},
              {"derivative", difference.derivative}};
}

Json comparison_json(const llm::GradientComparison& comparison) {
  return Json{{"analytic", comparison.analytic},
              {"numerical", comparison.numerical},
              {"absolute_error", comparison.absolute_error},
              {"scale", comparison.scale},
              {"scaled_error", comparison.scaled_error},
              {"tolerance", comparison.tolerance},
              {"passed", comparison.passed}};
}

Json slopes_json(const llm::OneSidedSlopeComparison& slopes) {
  return Json{{"left", slopes.left},
              {"right", slopes.right},
              {"absolute_gap", slopes.absolute_gap},
              {"scale", slopes.scale},
              {"scaled_gap", slopes.scaled_gap},
              {"tolerance", slopes.tolerance},
              {"consistent", slopes.consistent}};
}

// The evidence a rejection carries, by kind.
Json rejection_values(const llm::GradCheckError& rejection) {
  Json values = Json::object();
  if (rejection.side()) values["side"] = llm::difference_side_name(*rejection.side());
  switch (rejection.kind()) {
    case llm::GradCheckErrorKind::InvalidStep:
      values["step"] = number(rejection.step());
      break;
    case llm::GradCheckErrorKind::PerturbationUnchanged:
    case llm::GradCheckErrorKind::PerturbationNotFinite:
      values["point"] = number(rejection.point());
      values["step"] = number(rejection.step());
      break;
    case llm::GradCheckErrorKind::NonFiniteEvaluation:
      values["value"] = number(rejection.value());
      values["value_text"] = format_shortest(rejection.value());
      break;
    case llm::GradCheckErrorKind::GradientShapeMismatch:
      values["parameter_shape"] = rejection.parameter_shape();
      values["analytic_shape"] = rejection.analytic_shape();
      break;
    default:
      break;
  }
  return values;
}

int run(int argc, char** argv) {
  const auto trace_path = demo::trace_path(argc, argv);

  // region: learner-gradient-check-evidence
  // Every check runs before anything is printed.
  const llm::ScalarGradientCheck correct = ch13::quadratic_gradient_check(6.0);
  const llm::ScalarGradientCheck wrong = ch13::quadratic_gradient_check(5.5);
  const ch13::RoundedIdentityExample rounded = ch13::rounded_identity_gradient_check();
  const ch13::KinkExample kink = ch13::absolute_kink_diagnostic();
  const std::vector<ch13::StepScanRecord> scan = ch13::cubic_step_scan();
  const ch13::TinyNllGradientExample nll = ch13::tiny_nll_gradient_example();
  const std::vector<ch13::RejectedRequest> rejected = ch13::rejected_requests();
  const std::vector<ch13::SmoothCheck> smooth = ch13::exp_tanh_checks();
  const ch13::UnequalParabolaExample parabola = ch13::unequal_parabola_check();
  // endregion: learner-gradient-check-evidence

  // The refusal the output names; the others are in the trace.
  const auto collapsed_at =
      std::ranges::find(rejected, std::string("collapsed step"), &ch13::RejectedRequest::label);
  if (collapsed_at == rejected.end()) throw std::logic_error("no collapsed-step rejection");
  const ch13::RejectedRequest& collapsed = *collapsed_at;

  // region: learner-gradient-check-output
  const llm::CentralDifference& quadratic_difference = correct.difference;
  std::cout << "quadratic: theta=" << value(quadratic_difference.point)
            << " requested_h=" << spacing(quadratic_difference.requested_step)
            << " actual_h_minus=" << spacing(quadratic_difference.minus_spacing)
            << " actual_h_plus=" << spacing(quadratic_difference.plus_spacing)
            << " f_minus=" << value(quadratic_difference.minus_value)
            << " f_center=" << value(quadratic_difference.center_value)
            << " f_plus=" << value(quadratic_difference.plus_value)
            << " left_slope=" << value(quadratic_difference.left_slope)
            << " right_slope=" << value(quadratic_difference.right_slope)
            << " left_weight=" << spacing(quadratic_difference.left_weight)
            << " right_weight=" << spacing(quadratic_difference.right_weight)
            << " numerical=" << value(quadratic_difference.derivative) << '\n';
  for (const auto& [label, check] :
       {std::pair{"correct candidate", &correct}, std::pair{"wrong candidate", &wrong}}) {
    const llm::GradientComparison& comparison = check->comparison;
    std::cout << label << ": analytic=" << value(comparison.analytic)
              << " scaled_error=" << error(comparison.scaled_error)
              << " tolerance=" << error(comparison.tolerance) << " pass=" << flag(comparison.passed)
              << '\n';
  }

  const llm::CentralDifference& identity_difference = rounded.check.difference;
  std::cout << "rounded identity: theta=" << value(identity_difference.point)
            << " requested_h=" << spacing(identity_difference.requested_step)
            << " actual_h_minus=" << spacing(identity_difference.minus_spacing)
            << " actual_h_plus=" << spacing(identity_difference.plus_spacing)
            << " left_weight=" << spacing(identity_difference.left_weight)
            << " right_weight=" << spacing(identity_difference.right_weight)
            << " numerical=" << value(identity_difference.derivative)
            << " pass=" << flag(rounded.check.comparison.passed) << '\n';

  const llm::CentralDifference& kink_difference = kink.check.difference;
  std::cout << "known abs kink: theta=" << value(kink_difference.point)
            << " requested_h=" << spacing(kink_difference.requested_step)
            << " centered_numerical=" << value(kink_difference.derivative)
            << " left_slope=" << value(kink.slopes.left)
            << " right_slope=" << value(kink.slopes.right)
            << " one_sided_scaled_gap=" << error(kink.slopes.scaled_gap)
            << " consistent=" << flag(kink.slopes.consistent) << '\n';

  std::cout << "cubic step scan: theta=" << value(ch13::cubic_point)
            << " analytic=" << value(ch13::cubic_analytic) << '\n';
  for (std::size_t i = 0; i < scan.size(); ++i) {
    const llm::CentralDifference& difference = scan[i].check.difference;
    std::cout << "  requested_h=" << error(ch13::step_scan[i])
              << " actual_h_minus=" << spacing(difference.minus_spacing)
              << " actual_h_plus=" << spacing(difference.plus_spacing) << " phase=" << scan[i].phase
              << " numerical=" << value(difference.derivative)
              << " scaled_error=" << error(scan[i].check.comparison.scaled_error)
              << " pass=" << flag(scan[i].check.comparison.passed) << '\n';
  }

  std::cout << "oracle paths: analytic=" << ch13::analytic_path
            << " objective=" << ch13::objective_path << " shared=" << ch13::shared_primitives
            << " material_course_path_shared=" << flag(ch13::material_course_path_shared) << '\n';
  std::cout << "nll logits: shape=" << llm::shape_text(nll.logits.shape())
            << " values=" << llm::format_list(nll.logits.values())
            << " targets=" << llm::format_list(std::span<const std::size_t>(ch13::targets))
            << " loss=" << value(nll.loss) << '\n';
  std::vector<std::vector<std::size_t>> coordinates;
  for (const llm::CoordinateGradientCheck& check : nll.check.checks) {
    coordinates.push_back(check.coordinate);
  }
  std::cout << "sampled coordinates: " << llm::format_list(coordinates) << '\n';
  for (const llm::CoordinateGradientCheck& check : nll.check.checks) {
    std::cout << "  coordinate=" << llm::format_list(std::span<const std::size_t>(check.coordinate))
              << " requested_h=" << spacing(check.difference.requested_step)
              << " actual_h_minus=" << spacing(check.difference.minus_spacing)
              << " actual_h_plus=" << spacing(check.difference.plus_spacing)
              << " analytic=" << value(check.comparison.analytic)
              << " numerical=" << value(check.comparison.numerical)
              << " scaled_error=" << error(check.comparison.scaled_error)
              << " pass=" << flag(check.comparison.passed) << '\n';
  }
  std::cout << "tensor restored exactly: " << flag(nll.restored_exactly) << '\n';
  std::cout << "collapsed-step error: " << collapsed.error.what() << '\n';
  std::cout << "chapter 14 handoff: check reverse-mode derivatives against this oracle\n";
  // endregion: learner-gradient-check-output

  Json trace;
  trace["quadratic"] = {
      {"function", "theta^2"},
      {"difference", difference_json(correct.difference)},
      {"candidates",
       {Json{{"label", "correct"}, {"comparison", comparison_json(correct.comparison)}},
        Json{{"label", "wrong"}, {"comparison", comparison_json(wrong.comparison)}}}}};
  trace["rounded_identity"] = {
      {"function", "x"},
      {"difference", difference_json(rounded.check.difference)},
      {"comparison", comparison_json(rounded.check.comparison)},
      {"requested_two_step_estimate", rounded.requested_two_step_estimate},
      {"requested_two_step_comparison", comparison_json(rounded.requested_two_step_comparison)}};
  trace["kink"] = {{"function", "|x|"},
                   {"difference", difference_json(kink.check.difference)},
                   {"comparison", comparison_json(kink.check.comparison)},
                   {"slopes", slopes_json(kink.slopes)}};
  Json records = Json::array();
  for (const ch13::StepScanRecord& record : scan) {
    const llm::CentralDifference& difference = record.check.difference;
    const llm::GradientComparison& comparison = record.check.comparison;
    records.push_back(Json{{"requested_step", difference.requested_step},
                           {"minus_spacing", difference.minus_spacing},
                           {"plus_spacing", difference.plus_spacing},
                           {"left_slope", difference.left_slope},
                           {"right_slope", difference.right_slope},
                           {"numerical", difference.derivative},
                           {"scaled_error", comparison.scaled_error},
                           {"tolerance", comparison.tolerance},
                           {"passed", comparison.passed},
                           {"phase", record.phase},
                           {"difference", difference_json(difference)}});
  }
  trace["step_scan"] = {{"function", "theta^3 - 2 theta"},
                        {"point", ch13::cubic_point},
                        {"analytic", ch13::cubic_analytic},
                        {"tolerance", ch13::step_tolerance},
                        {"records", records}};
  Json checks = Json::array();
  for (const llm::CoordinateGradientCheck& check : nll.check.checks) {
    checks.push_back(Json{{"flat_index", check.flat_index},
                          {"coordinate", check.coordinate},
                          {"analytic", check.comparison.analytic},
                          {"numerical", check.comparison.numerical},
                          {"scaled_error", check.comparison.scaled_error},
                          {"tolerance", check.comparison.tolerance},
                          {"passed", check.comparison.passed},
                          {"difference", difference_json(check.difference)}});
  }
  trace["nll"] = {{"logits", demo::tensor_json(nll.logits)},
                  {"axis", ch13::class_axis},
                  {"targets", ch13::targets},
                  {"loss", nll.loss},
                  {"analytic_gradient", demo::tensor_json(nll.analytic)},
                  {"paths",
                   {{"analytic", ch13::analytic_path},
                    {"objective", ch13::objective_path},
                    {"shared", ch13::shared_primitives}}},
                  {"step", ch13::tensor_step},
                  {"tolerance", ch13::tensor_tolerance},
                  {"requested_samples", nll.check.requested_samples},
                  {"checks", checks},
                  {"passed", nll.check.passed},
                  {"restored_exactly", nll.restored_exactly}};
  Json rejections = Json::array();
  for (const ch13::RejectedRequest& request : rejected) {
    rejections.push_back(Json{{"label", request.label},
                              {"kind", request.error.kind_name()},
                              {"message", request.error.what()},
                              {"values", rejection_values(request.error)}});
  }
  trace["rejected"] = rejections;
  Json smooth_checks = Json::array();
  for (const ch13::SmoothCheck& check : smooth) {
    smooth_checks.push_back(Json{{"candidate", check.candidate},
                                 {"difference", difference_json(check.check.difference)},
                                 {"comparison", comparison_json(check.check.comparison)}});
  }
  trace["unequal_parabola"] = {
      {"function", "(x - 2^53)^2"},
      {"difference", difference_json(parabola.check.difference)},
      {"comparison", comparison_json(parabola.check.comparison)},
      {"swapped_weights_estimate", parabola.swapped_weights_estimate},
      {"requested_two_step_estimate", parabola.requested_two_step_estimate}};
  trace["exp_tanh"] = {{"function", "exp(tanh x)"},
                       {"point", ch13::smooth_point},
                       {"tolerance", ch13::smooth_tolerance},
                       {"quadratic_at_large_step", comparison_json(correct.comparison)},
                       {"checks", smooth_checks}};
  demo::write_trace(trace_path, trace);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& failure) {
    std::cerr << "chapter 13 demo failed: " << failure.what() << '\n';
    return 1;
  }
}
