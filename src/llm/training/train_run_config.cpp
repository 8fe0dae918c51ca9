// Reading, checking and writing a chapter-40 run configuration. JSON syntax
// is nlohmann::json's job; this file knows the settings.
#include "llm/training/train_run_config.hpp"

#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <numbers>
#include <set>
#include <vector>

namespace llm {

std::string TrainRunErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "source") return evidence.source;
  if (field == "key") return evidence.key;
  if (field == "value") return evidence.value;
  if (field == "rule") return evidence.rule;
  if (field == "tokens") return std::to_string(evidence.tokens);
  if (field == "context") return std::to_string(evidence.context);
  if (field == "iteration") return std::to_string(evidence.iteration);
  if (field == "expected") return evidence.expected;
  error_detail::unknown_field(area, field);
}

namespace {

using Json = nlohmann::json;

// region: train-run-fields
// One setting: its JSON key and where it lives in the struct. Exactly one
// pointer is set: a count is a non-negative integer, a real any JSON number,
// a seed an unsigned 64-bit integer.
struct Field {
  const char* key;
  std::size_t TrainRunConfig::*count = nullptr;
  double TrainRunConfig::*real = nullptr;
  std::uint64_t TrainRunConfig::*seed = nullptr;
};
constexpr Field count_field(const char* key, std::size_t TrainRunConfig::*member) {
  return {.key = key, .count = member};
}
constexpr Field real_field(const char* key, double TrainRunConfig::*member) {
  return {.key = key, .real = member};
}
constexpr Field seed_field(const char* key, std::uint64_t TrainRunConfig::*member) {
  return {.key = key, .seed = member};
}

// In the order of the struct, which is the order of to_json().
const std::array<Field, 27> kFields{{
    real_field("train_fraction", &TrainRunConfig::train_fraction),
    count_field("bpe_merges", &TrainRunConfig::bpe_merges),
    count_field("layers", &TrainRunConfig::layers),
    count_field("heads", &TrainRunConfig::heads),
    count_field("model_width", &TrainRunConfig::model_width),
    count_field("feed_forward_width", &TrainRunConfig::feed_forward_width),
    count_field("context", &TrainRunConfig::context),
    real_field("rope_base", &TrainRunConfig::rope_base),
    real_field("rms_epsilon", &TrainRunConfig::rms_epsilon),
    count_field("batch_size", &TrainRunConfig::batch_size),
    count_field("iterations", &TrainRunConfig::iterations),
    real_field("learning_rate", &TrainRunConfig::learning_rate),
    real_field("min_learning_rate", &TrainRunConfig::min_learning_rate),
    count_field("warmup_iterations", &TrainRunConfig::warmup_iterations),
    count_field("decay_iterations", &TrainRunConfig::decay_iterations),
    real_field("beta1", &TrainRunConfig::beta1),
    real_field("beta2", &TrainRunConfig::beta2),
    real_field("adam_epsilon", &TrainRunConfig::adam_epsilon),
    real_field("weight_decay", &TrainRunConfig::weight_decay),
    real_field("gradient_clip", &TrainRunConfig::gradient_clip),
    count_field("eval_interval", &TrainRunConfig::eval_interval),
    count_field("eval_batches", &TrainRunConfig::eval_batches),
    count_field("log_interval", &TrainRunConfig::log_interval),
    count_field("checkpoint_interval", &TrainRunConfig::checkpoint_interval),
    seed_field("init_seed", &TrainRunConfig::init_seed),
    seed_field("data_seed", &TrainRunConfig::data_seed),
    seed_field("eval_seed", &TrainRunConfig::eval_seed),
}};
// endregion: train-run-fields

// Parses `text`, refusing an object that repeats a key: nlohmann::json would
// keep the last value silently, so a file could set a field twice.
Json parse_object(std::string_view text, std::string_view source) {
  std::vector<std::set<std::string>> open_objects;
  std::string repeated;
  auto find_repeated_keys = [&](int, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::object_start) {
      open_objects.emplace_back();
    } else if (event == Json::parse_event_t::key) {
      const auto& key = parsed.get_ref<const std::string&>();
      if (!open_objects.back().insert(key).second && repeated.empty()) repeated = key;
    } else if (event == Json::parse_event_t::object_end) {
      open_objects.pop_back();
    }
    return true;
  };
  Json parsed;
  try {
    parsed = Json::parse(text.begin(), text.end(), find_repeated_keys);
  } catch (const Json::exception& error) {
    throw TrainRunError(TrainRunErrorKind::InvalidJson,
                        {.source = std::string(source), .rule = error.what()});
  }
  if (!repeated.empty()) {
    throw TrainRunError(
        TrainRunErrorKind::InvalidJson,
        {.source = std::string(source), .rule = "the key \"" + repeated + "\" appears twice"});
  }
  if (!parsed.is_object()) {
    throw TrainRunError(TrainRunErrorKind::NotAnObject,
                        {.source = std::string(source), .value = parsed.dump()});
  }
  return parsed;
}

// Stores `value` into `config`'s field, checking only its JSON type; the
// ranges are validate()'s job.
void assign(TrainRunConfig& config, const Field& field, const Json& value,
            std::string_view source) {
  auto wrong_type = [&](const char* wanted) {
    return TrainRunError(
        TrainRunErrorKind::WrongType,
        {.source = std::string(source), .key = field.key, .value = value.dump(), .rule = wanted});
  };
  if (field.count != nullptr) {
    if (!value.is_number_unsigned()) throw wrong_type("a non-negative integer");
    config.*field.count = value.get<std::size_t>();
  } else if (field.real != nullptr) {
    if (!value.is_number()) throw wrong_type("a number");
    config.*field.real = value.get<double>();
  } else {
    if (!value.is_number_unsigned()) throw wrong_type("an unsigned 64-bit integer");
    config.*field.seed = value.get<std::uint64_t>();
  }
}

std::string number_text(double value) {
  return Json(value).dump();
}

}  // namespace

// region: train-run-from-json
TrainRunConfig TrainRunConfig::from_json(std::string_view json_text, std::string_view source) {
  const Json parsed = parse_object(json_text, source);
  TrainRunConfig config;
  for (const auto& [key, value] : parsed.items()) {
    const Field* field = nullptr;
    for (const Field& candidate : kFields) {
      if (key == candidate.key) field = &candidate;
    }
    if (field == nullptr) {
      throw TrainRunError(TrainRunErrorKind::UnknownKey,
                          {.source = std::string(source), .key = key});
    }
    assign(config, *field, value, source);
  }
  config.validate(source);
  return config;
}
// endregion: train-run-from-json

// region: train-run-validate
void TrainRunConfig::validate(std::string_view source) const {
  auto require = [&](bool holds, const char* key, std::string value, std::string rule) {
    if (!holds) {
      throw TrainRunError(TrainRunErrorKind::OutOfRange, {.source = std::string(source),
                                                          .key = key,
                                                          .value = std::move(value),
                                                          .rule = std::move(rule)});
    }
  };
  auto positive_count = [&](std::size_t value, const char* key) {
    require(value >= 1, key, std::to_string(value), "at least 1");
  };
  auto positive_real = [&](double value, const char* key) {
    require(std::isfinite(value) && value > 0.0, key, number_text(value), "finite and > 0");
  };
  auto unit_interval = [&](double value, const char* key) {
    require(std::isfinite(value) && value >= 0.0 && value < 1.0, key, number_text(value),
            "in [0, 1)");
  };
  require(std::isfinite(train_fraction) && train_fraction > 0.0 && train_fraction < 1.0,
          "train_fraction", number_text(train_fraction), "strictly between 0 and 1");
  require(
      bpe_merges <= kMaxTrainBpeMerges, "bpe_merges", std::to_string(bpe_merges),
      "at most " + std::to_string(kMaxTrainBpeMerges) + " (0: the text's bytes are the tokens)");
  positive_count(layers, "layers");
  positive_count(heads, "heads");
  positive_count(model_width, "model_width");
  require(model_width % heads == 0, "model_width", std::to_string(model_width),
          "a multiple of heads");
  require((model_width / heads) % 2 == 0, "heads", std::to_string(heads),
          "such that model_width / heads is even (RoPE turns pairs)");
  positive_count(feed_forward_width, "feed_forward_width");
  positive_count(context, "context");
  positive_real(rope_base, "rope_base");
  require(std::isfinite(rms_epsilon) && rms_epsilon >= 0.0, "rms_epsilon", number_text(rms_epsilon),
          "finite and >= 0");
  positive_count(batch_size, "batch_size");
  positive_count(iterations, "iterations");
  positive_real(learning_rate, "learning_rate");
  require(std::isfinite(min_learning_rate) && min_learning_rate >= 0.0 &&
              min_learning_rate <= learning_rate,
          "min_learning_rate", number_text(min_learning_rate), "in [0, learning_rate]");
  require(warmup_iterations < decay_iterations, "warmup_iterations",
          std::to_string(warmup_iterations), "below decay_iterations");
  unit_interval(beta1, "beta1");
  unit_interval(beta2, "beta2");
  positive_real(adam_epsilon, "adam_epsilon");
  require(std::isfinite(weight_decay) && weight_decay >= 0.0 && learning_rate * weight_decay < 1.0,
          "weight_decay", number_text(weight_decay), ">= 0 with learning_rate * weight_decay < 1");
  require(std::isfinite(gradient_clip) && gradient_clip >= 0.0, "gradient_clip",
          number_text(gradient_clip), "finite and >= 0 (0 turns clipping off)");
  positive_count(eval_interval, "eval_interval");
  positive_count(eval_batches, "eval_batches");
  positive_count(log_interval, "log_interval");
}
// endregion: train-run-validate

std::string TrainRunConfig::to_json() const {
  Json object = Json::object();
  for (const Field& field : kFields) {
    if (field.count != nullptr) {
      object[field.key] = this->*field.count;
    } else if (field.real != nullptr) {
      object[field.key] = this->*field.real;
    } else {
      object[field.key] = this->*field.seed;
    }
  }
  return object.dump(2);
}

// region: learning-rate-at
double TrainRunConfig::learning_rate_at(std::size_t iteration) const noexcept {
  const auto i = static_cast<double>(iteration);
  if (iteration < warmup_iterations) {
    return learning_rate * (i + 1.0) / (static_cast<double>(warmup_iterations) + 1.0);
  }
  if (iteration > decay_iterations) return min_learning_rate;
  const double ratio = (i - static_cast<double>(warmup_iterations)) /
                       static_cast<double>(decay_iterations - warmup_iterations);
  const double coefficient = 0.5 * (1.0 + std::cos(std::numbers::pi * ratio));
  return min_learning_rate + coefficient * (learning_rate - min_learning_rate);
}
// endregion: learning-rate-at

}  // namespace llm
