// Every area's error names its area and kind through the llm::Error base, so
// a caller that only reports errors never needs to know the derived type.
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <regex>
#include <set>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "llm/attention/attention_error.hpp"
#include "llm/autograd/decoder_op_error.hpp"
#include "llm/autograd/gradcheck.hpp"
#include "llm/autograd/model_ops.hpp"
#include "llm/autograd/scalar.hpp"
#include "llm/autograd/tensor_value.hpp"
#include "llm/error.hpp"
#include "llm/evaluation/final_evaluation_error.hpp"
#include "llm/evaluation/language_model_metrics.hpp"
#include "llm/generation/kv_cache_error.hpp"
#include "llm/generation/sampling_error.hpp"
#include "llm/models/bigram.hpp"
#include "llm/models/decoder_error.hpp"
#include "llm/models/neural_ngram.hpp"
#include "llm/nn/layer_error.hpp"
#include "llm/nn/parameter_error.hpp"
#include "llm/nn/residual.hpp"
#include "llm/nn/swiglu.hpp"
#include "llm/tensor/append_buffer.hpp"
#include "llm/tensor/tensor_error.hpp"
#include "llm/text/bpe_tokenizer.hpp"
#include "llm/text/bpe_trainer.hpp"
#include "llm/text/causal_windows.hpp"
#include "llm/text/corpus.hpp"
#include "llm/text/text_dataset.hpp"
#include "llm/text/text_units.hpp"
#include "llm/training/adamw.hpp"
#include "llm/training/adamw_state_error.hpp"
#include "llm/training/checkpoint_error.hpp"
#include "llm/training/mini_batches.hpp"
#include "llm/training/train_run_config.hpp"
#include "llm/training/training_error.hpp"

namespace {

// Runs `action`, which must throw an llm::Error, and returns its area and kind.
std::pair<std::string, std::string> area_and_kind(const std::function<void()>& action) {
  try {
    action();
  } catch (const llm::Error& error) {
    return {std::string(error.area()), std::string(error.kind_name())};
  }
  ADD_FAILURE() << "no llm::Error was thrown";
  return {};
}

using Pair = std::pair<std::string, std::string>;

TEST(ErrorArea, TextAreasNameThemselvesAndTheirKind) {
  EXPECT_EQ(area_and_kind([] { llm::unicode_scalars("\xff"); }),
            (Pair{"text-units", "invalid-utf8"}));
  EXPECT_EQ(area_and_kind([] { llm::Corpus::from_json("[]"); }).first, "corpus");
  EXPECT_EQ(area_and_kind([] {
              llm::learn_merges(1, {"a", "b"}, {{97}});
            }),
            (Pair{"bpe-training", "document-count-mismatch"}));
  EXPECT_EQ(
      area_and_kind([] { llm::TokenizerLayout::create(std::numeric_limits<std::size_t>::max()); }),
      (Pair{"tokenizer", "layout-overflow"}));
  EXPECT_EQ(area_and_kind([] { llm::CausalWindowConfig::create(0, 1); }),
            (Pair{"causal-windows", "zero-context-length"}));
}

TEST(ErrorArea, ModelAndMetricAreasNameThemselvesAndTheirKind) {
  const std::vector<std::vector<llm::TokenId>> documents;
  EXPECT_EQ(area_and_kind([&] { llm::BigramModel::fit(0, 1.0, documents); }),
            (Pair{"bigram", "empty-vocabulary"}));
  EXPECT_EQ(area_and_kind([] { llm::score_assigned_probabilities({}); }),
            (Pair{"metrics", "empty-targets"}));
}

// Builds every kind of an area's error with empty evidence: every hole of
// every message names a field the area prints (an unknown one would throw
// std::logic_error), every name is kebab case and unique in its area, and the
// base class reports the area and the name.
template <typename AreaError, typename Traits>
void expect_every_kind_builds() {
  const std::regex kebab("[a-z0-9]+(-[a-z0-9]+)*");
  std::set<std::string_view> names;
  for (const auto& row : Traits::kinds) {
    SCOPED_TRACE(std::string(Traits::area) + " " + std::string(row.name));
    EXPECT_NO_THROW({
      const AreaError error(row.kind);
      EXPECT_EQ(error.kind(), row.kind);
      EXPECT_EQ(error.area(), Traits::area);
      EXPECT_EQ(error.kind_name(), row.name);
    });
    EXPECT_EQ(AreaError::kind_name_of(row.kind), row.name);
    EXPECT_TRUE(std::regex_match(std::string(row.name), kebab));
    EXPECT_TRUE(names.insert(row.name).second) << "repeated kind name";
  }
}

TEST(ErrorArea, EveryKindOfEveryAreaBuildsFromItsTable) {
  expect_every_kind_builds<llm::TextUnitError, llm::TextUnitErrorTraits>();
  expect_every_kind_builds<llm::CorpusError, llm::CorpusErrorTraits>();
  expect_every_kind_builds<llm::BpeTrainingError, llm::BpeTrainingErrorTraits>();
  expect_every_kind_builds<llm::TokenizerError, llm::TokenizerErrorTraits>();
  expect_every_kind_builds<llm::CausalWindowError, llm::CausalWindowErrorTraits>();
  expect_every_kind_builds<llm::BigramError, llm::BigramErrorTraits>();
  expect_every_kind_builds<llm::MetricError, llm::MetricErrorTraits>();
  expect_every_kind_builds<llm::TensorError, llm::TensorErrorTraits>();
  expect_every_kind_builds<llm::GradCheckError, llm::GradCheckErrorTraits>();
  expect_every_kind_builds<llm::ScalarError, llm::ScalarErrorTraits>();
  expect_every_kind_builds<llm::TensorAutodiffError, llm::TensorAutodiffErrorTraits>();
  expect_every_kind_builds<llm::ModelOpError, llm::ModelOpErrorTraits>();
  expect_every_kind_builds<llm::LayerError, llm::LayerErrorTraits>();
  expect_every_kind_builds<llm::SwiGluError, llm::SwiGluErrorTraits>();
  expect_every_kind_builds<llm::ParameterError, llm::ParameterErrorTraits>();
  expect_every_kind_builds<llm::BatchError, llm::BatchErrorTraits>();
  expect_every_kind_builds<llm::AdamWError, llm::AdamWErrorTraits>();
  expect_every_kind_builds<llm::NeuralNgramError, llm::NeuralNgramErrorTraits>();
  expect_every_kind_builds<llm::ResidualError, llm::ResidualErrorTraits>();
  expect_every_kind_builds<llm::DecoderOpError, llm::DecoderOpErrorTraits>();
  expect_every_kind_builds<llm::AttentionError, llm::AttentionErrorTraits>();
  expect_every_kind_builds<llm::DecoderError, llm::DecoderErrorTraits>();
  expect_every_kind_builds<llm::TrainingError, llm::TrainingErrorTraits>();
  expect_every_kind_builds<llm::FinalEvaluationError, llm::FinalEvaluationErrorTraits>();
  expect_every_kind_builds<llm::AdamWStateError, llm::AdamWStateErrorTraits>();
  expect_every_kind_builds<llm::CheckpointError, llm::CheckpointErrorTraits>();
  expect_every_kind_builds<llm::SamplingError, llm::SamplingErrorTraits>();
  expect_every_kind_builds<llm::AppendBufferError, llm::AppendBufferErrorTraits>();
  expect_every_kind_builds<llm::KvCacheError, llm::KvCacheErrorTraits>();
  expect_every_kind_builds<llm::DatasetError, llm::DatasetErrorTraits>();
  expect_every_kind_builds<llm::TrainRunError, llm::TrainRunErrorTraits>();
}

// A small area of its own, to pin the template: holes, braces, and the bugs a
// kind table can have.
enum class ProbeKind { Count, Braces, UnknownField, UnclosedHole };
struct ProbeEvidence {
  int count = 0;
};
struct ProbeTraits {
  using Kind = ProbeKind;
  using Evidence = ProbeEvidence;
  static constexpr std::string_view area = "probe";
  static constexpr std::array<llm::ErrorKindSpec<Kind>, 4> kinds{{
      {Kind::Count, "count", "counted {count} of {count}"},
      {Kind::Braces, "braces", "{{count}} is {count}"},
      {Kind::UnknownField, "unknown-field", "{size}"},
      {Kind::UnclosedHole, "unclosed-hole", "counted {count"},
  }};
  static std::string field_text(const Evidence& evidence, std::string_view field) {
    if (field == "count") return std::to_string(evidence.count);
    llm::error_detail::unknown_field(area, field);
  }
};
class ProbeError : public llm::KindedError<ProbeTraits> {
 public:
  using KindedError::KindedError;
};

// A table out of enum order does not compile where KindedError uses it.
constexpr std::array<llm::ErrorKindSpec<ProbeKind>, 2> kSwappedRows{{
    {ProbeKind::Braces, "braces", ""},
    {ProbeKind::Count, "count", ""},
}};
static_assert(!llm::kinds_in_enum_order(kSwappedRows));
static_assert(llm::kinds_in_enum_order(ProbeTraits::kinds));

TEST(ErrorTemplate, FillsEveryHoleFromTheEvidence) {
  const ProbeError error(ProbeKind::Count, {.count = 3});
  EXPECT_STREQ(error.what(), "counted 3 of 3");
  EXPECT_EQ(error.evidence().count, 3);
  EXPECT_EQ(error.kind_name(), "count");
  EXPECT_EQ(error.area(), "probe");
  EXPECT_STREQ(ProbeError(ProbeKind::Braces, {.count = 4}).what(), "{count} is 4");
  EXPECT_STREQ(ProbeError(ProbeKind::Count).what(), "counted 0 of 0");  // evidence omitted
}

TEST(ErrorTemplate, ATableBugThrowsLogicErrorNamingIt) {
  EXPECT_THROW(
      {
        try {
          ProbeError error(ProbeKind::UnknownField);
        } catch (const std::logic_error& bug) {
          EXPECT_STREQ(bug.what(), "the probe error table names an unknown field {size}");
          throw;
        }
      },
      std::logic_error);
  EXPECT_THROW(ProbeError error(ProbeKind::UnclosedHole), std::logic_error);
  EXPECT_THROW(ProbeError error(static_cast<ProbeKind>(4)), std::logic_error);
}

}  // namespace
