// Chapter 22 demo: one AdamW step over two named parameters, with every
// moment, correction and delta; SGD and AdamW on an anisotropic quadratic;
// the checks on the committed step and on a rejected one; four optimizers
// after two steps. With --trace PATH it also writes the step's
// intermediates, both paths and the two-step comparison for the figures.
#include <exception>
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "demo_lists.hpp"
#include "demo_trace.hpp"
#include "fixtures.hpp"
#include "llm/format.hpp"

namespace {

using demo::Json;
using llm::format_fixed;

std::string vector_text(std::span<const double> values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i)
    text += (i == 0 ? "" : ", ") + format_fixed(values[i], 6);
  return text + "]";
}

std::string names_text(const std::vector<std::string>& names) {
  std::string text = "[";
  for (std::size_t i = 0; i < names.size(); ++i) text += (i == 0 ? "" : ", ") + names[i];
  return text + "]";
}

const char* bool_text(bool value) {
  return value ? "true" : "false";
}
const char* verdict(bool rejected) {
  return rejected ? "rejected" : "accepted";
}

Json update_json(const llm::AdamWParameterUpdate& update) {
  return {{"name", update.name},
          {"decay", update.decay_applied},
          {"before", update.before},
          {"gradient", update.gradient},
          {"first", update.first_moment},
          {"second", update.second_moment},
          {"corrected_first", update.corrected_first_moment},
          {"corrected_second", update.corrected_second_moment},
          {"adaptive", update.adaptive_delta},
          {"decay_delta", update.decay_delta},
          {"after", update.after}};
}

Json zero_after_history_json() {
  const ch22::ZeroGradientAfterHistory history = ch22::zero_gradient_after_history();
  return {{"first", update_json(history.first)},
          {"second", update_json(history.second)},
          {"pure_decay", history.pure_decay}};
}

Json round_trip_json(const ch22::CorrectionRoundTrip& trip) {
  return {{"beta1", trip.beta1},
          {"beta2", trip.beta2},
          {"one_minus_beta1", 1.0 - trip.beta1},
          {"count", trip.count},
          {"seed", ch22::kRoundTripSeed},
          {"first_differ", trip.first_differ},
          {"second_differ", trip.second_differ},
          {"largest_ulps", trip.largest_ulps}};
}

Json parameterization_json() {
  const ch22::DecayParameterization p = ch22::decay_parameterization();
  return {{"learning_rate", p.learning_rate},     {"halved_learning_rate", p.halved_learning_rate},
          {"book_decay", p.book_decay},           {"book_decay_halved", p.book_decay_halved},
          {"lh_weight_decay", p.lh_weight_decay}, {"lh_decay", p.lh_decay},
          {"lh_decay_halved", p.lh_decay_halved}};
}

}  // namespace

// region: learner-adamw-output
int main(int argc, char** argv) try {
  const auto trace_path = demo::trace_path(argc, argv);
  const llm::AdamWConfig config = ch22::chapter_config();
  const ch22::DecayDomain domain = ch22::decay_domain();
  const ch22::NamedStepEvidence evidence = ch22::named_step_evidence();
  const std::vector<ch22::TrajectoryPoint> path = ch22::anisotropic_trajectory();
  const ch22::HistoricalUpdates history = ch22::historical_updates();

  std::cout << "chapter=22-adamw\n";
  std::cout << "prediction=prepare both named updates before writing either live leaf\n";
  std::cout << "config=learning_rate:" << format_fixed(config.learning_rate(), 6)
            << " beta1:" << format_fixed(config.beta1(), 6)
            << " beta2:" << format_fixed(config.beta2(), 6)
            << " epsilon:" << format_fixed(config.epsilon(), 6)
            << " weight_decay:" << format_fixed(config.weight_decay(), 6) << '\n';
  std::cout << "decay_domain=product:" << format_fixed(config.decay_product(), 6)
            << " shrinkage_factor:" << format_fixed(config.shrinkage_factor(), 6)
            << " equal_one:" << verdict(domain.equal_one_rejected)
            << " over_one:" << verdict(domain.over_one_rejected)
            << " underflow:" << verdict(domain.underflow_rejected) << '\n';
  std::cout << "step=" << evidence.step.step << '\n';
  std::cout << "bias_corrections=first:" << format_fixed(evidence.step.first_correction, 6)
            << " second:" << format_fixed(evidence.step.second_correction, 6) << '\n';
  for (const llm::AdamWParameterUpdate& update : evidence.step.updates) {
    std::cout << "parameter=" << update.name
              << " group=" << (update.decay_applied ? "decay" : "no_decay") << " shape="
              << demo::list_text(std::vector<std::size_t>(update.shape.begin(), update.shape.end()))
              << " before=" << vector_text(update.before)
              << " gradient=" << vector_text(update.gradient) << '\n';
    std::cout << "  moments=first:" << vector_text(update.first_moment)
              << " second:" << vector_text(update.second_moment)
              << " corrected_first:" << vector_text(update.corrected_first_moment)
              << " corrected_second:" << vector_text(update.corrected_second_moment) << '\n';
    std::cout << "  deltas=adaptive:" << vector_text(update.adaptive_delta)
              << " decay:" << vector_text(update.decay_delta)
              << " after:" << vector_text(update.after) << '\n';
  }
  for (std::size_t step = 0; step < path.size(); ++step) {
    std::cout << "trajectory[" << step << "]=sgd:" << vector_text(path[step].sgd)
              << " adamw:" << vector_text(path[step].adamw) << '\n';
  }
  const llm::AdamWParameterUpdate& probe = evidence.zero_gradient_update;
  std::cout << "state_names=" << names_text(evidence.state_names) << '\n';
  std::cout << "raw_gradients_retained=" << bool_text(evidence.raw_gradients_retained) << '\n';
  std::cout << "all_parameter_nodes_preserved=" << bool_text(evidence.parameter_nodes_preserved)
            << '\n';
  std::cout << "zero_gradient_probe=before:" << vector_text(probe.before)
            << " adaptive:" << vector_text(probe.adaptive_delta)
            << " decay:" << vector_text(probe.decay_delta) << " after:" << vector_text(probe.after)
            << '\n';
  std::cout << "changed_set_error=" << evidence.changed_set_error << '\n';
  std::cout << "changed_set_rollback=" << bool_text(evidence.changed_set_rolled_back) << '\n';
  std::cout << "historical_two_step=sgd:" << format_fixed(history.sgd, 6)
            << " momentum:" << format_fixed(history.momentum, 6)
            << " adam_l2:" << format_fixed(history.adam_l2, 6)
            << " adamw:" << format_fixed(history.adamw, 6) << '\n';
  std::cout << "next=train a fixed-context neural language model with these named updates\n";

  Json updates = Json::array();
  for (const llm::AdamWParameterUpdate& update : evidence.step.updates)
    updates.push_back(update_json(update));
  Json trajectory = Json::array();
  for (const ch22::TrajectoryPoint& point : path)
    trajectory.push_back({{"sgd", point.sgd}, {"adamw", point.adamw}});
  demo::write_trace(
      trace_path,
      {{"config",
        {{"learning_rate", config.learning_rate()},
         {"beta1", config.beta1()},
         {"beta2", config.beta2()},
         {"epsilon", config.epsilon()},
         {"weight_decay", config.weight_decay()},
         {"decay_product", config.decay_product()}}},
       {"corrections", {evidence.step.first_correction, evidence.step.second_correction}},
       {"updates", updates},
       {"probe", update_json(probe)},
       {"trajectory", trajectory},
       {"asymmetric",
        {{"betas", ch22::kAsymmetricBetas},
         {"gradients", ch22::kAsymmetricGradients},
         {"step", update_json(ch22::asymmetric_second_step(ch22::kAsymmetricBetas[0],
                                                           ch22::kAsymmetricBetas[1]))},
         {"swapped", update_json(ch22::asymmetric_second_step(ch22::kAsymmetricBetas[1],
                                                              ch22::kAsymmetricBetas[0]))}}},
       {"zero_after_history", zero_after_history_json()},
       {"round_trips",
        {round_trip_json(ch22::correction_round_trip(ch22::kBeta1, ch22::kBeta2)),
         round_trip_json(
             ch22::correction_round_trip(ch22::kAsymmetricBetas[0], ch22::kAsymmetricBetas[1]))}},
       {"parameterization", parameterization_json()},
       {"history",
        {{"start", 1.0},
         {"gradients", ch22::kHistoricalGradients},
         {"momentum_rate", ch22::kMomentumRate},
         {"sgd", history.sgd},
         {"momentum", history.momentum},
         {"adam_l2", history.adam_l2},
         {"adamw", history.adamw}}}});
  return 0;
} catch (const std::exception& error) {
  std::cerr << "chapter 22 demo failed: " << error.what() << '\n';
  return 1;
}
// endregion: learner-adamw-output
