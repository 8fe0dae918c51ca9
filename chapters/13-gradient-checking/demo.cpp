// Chapter 13 demo: checks derivatives from the actual representable probes,
// prints every worked result, and with --trace writes the run data of the
// chapter's probe-spacing figure, step-scan plot and coordinate table.
#include <cmath>
#include <exception>
#include <iostream>
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

Json difference_json(const llm::CentralDifference& d) {
  return Json{{"point", d.point},
              {"requested_step", d.requested_step},
              {"minus_point", d.minus_point},
              {"plus_point", d.plus_point},
              {"minus_spacing", d.minus_spacing},
              {"plus_spacing", d.plus_spacing},
              {"minus_value", d.minus_value},
              {"center_value", d.center_value},
              {"plus_value", d.plus_value},
              {"left_slope", d.left_slope},
              {"right_slope", d.right_slope},
              {"left_weight", d.left_weight},
              {"right_weight", d.right_weight},
              {"stencil", llm::stencil_name(d.stencil)},
              {"derivative", d.derivative}};
}

Json comparison_json(const llm::GradientComparison& c) {
  return Json{{"analytic", c.analytic},
              {"numerical", c.numerical},
              {"absolute_error", c.absolute_error},
              {"scale", c.scale},
              {"scaled_error", c.scaled_error},
              {"tolerance", c.tolerance},
              {"passed", c.passed}};
}

Json slopes_json(const llm::OneSidedSlopeComparison& s) {
  return Json{{"left", s.left},
              {"right", s.right},
              {"absolute_gap", s.absolute_gap},
              {"scale", s.scale},
              {"scaled_gap", s.scaled_gap},
              {"tolerance", s.tolerance},
              {"consistent", s.consistent}};
}

// The evidence a rejection carries, by kind.
Json rejection_values(const llm::GradCheckError& e) {
  Json values = Json::object();
  if (e.side()) values["side"] = llm::difference_side_name(*e.side());
  switch (e.kind()) {
    case llm::GradCheckErrorKind::InvalidStep:
      values["step"] = number(e.step());
      break;
    case llm::GradCheckErrorKind::PerturbationUnchanged:
    case llm::GradCheckErrorKind::PerturbationNotFinite:
      values["point"] = number(e.point());
      values["step"] = number(e.step());
      break;
    case llm::GradCheckErrorKind::NonFiniteEvaluation:
      values["value"] = number(e.value());
      values["value_text"] = format_shortest(e.value());
      break;
    case llm::GradCheckErrorKind::GradientShapeMismatch:
      values["parameter_shape"] = e.parameter_shape();
      values["analytic_shape"] = e.analytic_shape();
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
  // endregion: learner-gradient-check-evidence

  // region: learner-gradient-check-output
  const llm::CentralDifference& q = correct.difference;
  std::cout << "quadratic: theta=" << value(q.point) << " requested_h=" << spacing(q.requested_step)
            << " actual_h_minus=" << spacing(q.minus_spacing)
            << " actual_h_plus=" << spacing(q.plus_spacing) << " f_minus=" << value(q.minus_value)
            << " f_center=" << value(q.center_value) << " f_plus=" << value(q.plus_value)
            << " left_slope=" << value(q.left_slope) << " right_slope=" << value(q.right_slope)
            << " left_weight=" << spacing(q.left_weight)
            << " right_weight=" << spacing(q.right_weight) << " numerical=" << value(q.derivative)
            << '\n';
  std::cout << "quadratic probes: minus_point=" << spacing(q.minus_point)
            << " plus_point=" << spacing(q.plus_point)
            << " stencil=" << llm::stencil_name(q.stencil) << '\n';
  for (const auto& [label, check] :
       {std::pair{"correct candidate", &correct}, std::pair{"wrong candidate", &wrong}}) {
    const llm::GradientComparison& c = check->comparison;
    std::cout << label << ": analytic=" << value(c.analytic)
              << " scaled_error=" << error(c.scaled_error) << " tolerance=" << error(c.tolerance)
              << " pass=" << flag(c.passed) << '\n';
  }

  const llm::CentralDifference& r = rounded.check.difference;
  std::cout << "rounded identity: theta=" << value(r.point)
            << " requested_h=" << spacing(r.requested_step)
            << " actual_h_minus=" << spacing(r.minus_spacing)
            << " actual_h_plus=" << spacing(r.plus_spacing)
            << " stencil=" << llm::stencil_name(r.stencil) << " left_slope=" << value(r.left_slope)
            << " right_slope=" << value(r.right_slope) << " left_weight=" << spacing(r.left_weight)
            << " right_weight=" << spacing(r.right_weight) << " numerical=" << value(r.derivative)
            << " scaled_error=" << error(rounded.check.comparison.scaled_error)
            << " tolerance=" << error(rounded.check.comparison.tolerance)
            << " pass=" << flag(rounded.check.comparison.passed) << '\n';
  std::cout << "rounded identity over requested 2h: numerical="
            << value(rounded.requested_two_step_estimate)
            << " scaled_error=" << error(rounded.requested_two_step_comparison.scaled_error)
            << " pass=" << flag(rounded.requested_two_step_comparison.passed) << '\n';

  const llm::CentralDifference& k = kink.check.difference;
  std::cout << "absolute kink: theta=" << value(k.point)
            << " requested_h=" << spacing(k.requested_step) << " left_slope=" << value(k.left_slope)
            << " right_slope=" << value(k.right_slope) << " numerical=" << value(k.derivative)
            << " analytic=" << value(kink.check.comparison.analytic)
            << " scaled_error=" << error(kink.check.comparison.scaled_error)
            << " tolerance=" << error(kink.check.comparison.tolerance)
            << " pass=" << flag(kink.check.comparison.passed) << '\n';
  std::cout << "absolute kink slopes: scaled_gap=" << error(kink.slopes.scaled_gap)
            << " tolerance=" << error(kink.slopes.tolerance)
            << " consistent=" << flag(kink.slopes.consistent) << '\n';

  std::cout << "cubic scan: theta=" << value(ch13::cubic_point)
            << " analytic=" << value(ch13::cubic_analytic)
            << " tolerance=" << error(ch13::step_tolerance) << '\n';
  for (const ch13::StepScanRecord& record : scan) {
    const llm::CentralDifference& d = record.check.difference;
    std::cout << "step scan: requested_h=" << spacing(d.requested_step)
              << " actual_h_minus=" << spacing(d.minus_spacing)
              << " actual_h_plus=" << spacing(d.plus_spacing)
              << " left_slope=" << value(d.left_slope) << " right_slope=" << value(d.right_slope)
              << " numerical=" << value(d.derivative)
              << " scaled_error=" << error(record.check.comparison.scaled_error)
              << " pass=" << flag(record.check.comparison.passed) << " phase=" << record.phase
              << '\n';
  }

  std::cout << "nll logits: shape=" << llm::shape_text(nll.logits.shape())
            << " values=" << llm::format_list(nll.logits.values())
            << " targets=" << llm::format_list(std::span<const std::size_t>(ch13::targets))
            << " loss=" << value(nll.loss) << '\n';
  std::cout << "nll paths: analytic=" << ch13::analytic_path
            << " objective=" << ch13::objective_path << " shared=" << ch13::shared_primitives
            << '\n';
  std::cout << "nll check: requested_h=" << spacing(ch13::tensor_step)
            << " tolerance=" << error(ch13::tensor_tolerance)
            << " max_samples=" << ch13::tensor_samples << " pass=" << flag(nll.check.passed)
            << '\n';
  std::vector<std::vector<std::size_t>> coordinates;
  for (const llm::CoordinateGradientCheck& check : nll.check.checks) {
    coordinates.push_back(check.coordinate);
  }
  std::cout << "sampled coordinates: " << llm::format_list(coordinates) << '\n';
  for (const llm::CoordinateGradientCheck& check : nll.check.checks) {
    std::cout << "coordinate: flat=" << check.flat_index
              << " coordinate=" << llm::format_list(std::span<const std::size_t>(check.coordinate))
              << " analytic=" << value(check.comparison.analytic)
              << " numerical=" << value(check.comparison.numerical)
              << " scaled_error=" << error(check.comparison.scaled_error)
              << " pass=" << flag(check.comparison.passed) << '\n';
  }
  std::cout << "tensor restored exactly: " << flag(nll.restored_exactly) << '\n';

  for (const ch13::RejectedRequest& request : rejected) {
    std::cout << "rejected " << request.label
              << ": kind=" << llm::grad_check_error_kind_name(request.error.kind())
              << " message=" << request.error.what() << '\n';
  }
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
    const llm::CentralDifference& d = record.check.difference;
    const llm::GradientComparison& c = record.check.comparison;
    records.push_back(Json{{"requested_step", d.requested_step},
                           {"minus_spacing", d.minus_spacing},
                           {"plus_spacing", d.plus_spacing},
                           {"left_slope", d.left_slope},
                           {"right_slope", d.right_slope},
                           {"numerical", d.derivative},
                           {"scaled_error", c.scaled_error},
                           {"tolerance", c.tolerance},
                           {"passed", c.passed},
                           {"phase", record.phase},
                           {"difference", difference_json(d)}});
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
                              {"kind", llm::grad_check_error_kind_name(request.error.kind())},
                              {"message", request.error.what()},
                              {"values", rejection_values(request.error)}});
  }
  trace["rejected"] = rejections;
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
