// The neural n-gram (chapter 23): an embedding table, a SwiGLU block and a
// vocabulary projection of Part IV, joined by a reshape.
#include "llm/models/neural_ngram.hpp"

#include <limits>
#include <optional>
#include <utility>
#include <vector>

namespace llm {

std::string NeuralNgramErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "part") return evidence.part;
  if (field == "expected_shape") return shape_text(evidence.expected_shape);
  if (field == "actual_shape") return shape_text(evidence.actual_shape);
  if (field == "expected") return std::to_string(evidence.expected);
  if (field == "actual") return std::to_string(evidence.actual);
  if (field == "row") return std::to_string(evidence.row);
  if (field == "token") return std::to_string(evidence.token);
  if (field == "vocabulary_size") return std::to_string(evidence.vocabulary_size);
  error_detail::unknown_field(area, field);
}

namespace {

constexpr std::size_t kSizeMax = std::numeric_limits<std::size_t>::max();

// a * b, or SizeOverflow naming `what`.
std::size_t checked_product(std::size_t a, std::size_t b, const char* what) {
  if (b != 0 && a > kSizeMax / b)
    throw NeuralNgramError(NeuralNgramErrorKind::SizeOverflow, {.part = what});
  return a * b;
}

std::size_t checked_sum(std::size_t a, std::size_t b, const char* what) {
  if (a > kSizeMax - b) throw NeuralNgramError(NeuralNgramErrorKind::SizeOverflow, {.part = what});
  return a + b;
}

void require_weight_shape(const char* part, const TensorValue& weight, Shape expected) {
  Shape actual = weight.shape();
  if (actual != expected) {
    throw NeuralNgramError(
        NeuralNgramErrorKind::PartShapeMismatch,
        {.part = part, .expected_shape = std::move(expected), .actual_shape = std::move(actual)});
  }
}

}  // namespace

// region: neural-ngram-config-create
NeuralNgramConfig NeuralNgramConfig::create(std::size_t vocabulary_size, std::size_t context_length,
                                            std::size_t embedding_width, std::size_t hidden_width) {
  using Kind = NeuralNgramErrorKind;
  if (vocabulary_size == 0) throw NeuralNgramError(Kind::EmptyVocabulary, {});
  if (context_length == 0) throw NeuralNgramError(Kind::ZeroContextLength, {});
  if (embedding_width == 0) throw NeuralNgramError(Kind::ZeroEmbeddingWidth, {});
  if (hidden_width == 0) throw NeuralNgramError(Kind::ZeroHiddenWidth, {});
  const char* count = "parameter count";
  const std::size_t features =
      checked_product(context_length, embedding_width, "context feature width T * D");
  const std::size_t table = checked_product(vocabulary_size, embedding_width, count);
  const std::size_t gate_and_up =
      checked_product(2, checked_product(features, hidden_width, count), count);
  const std::size_t down = checked_product(hidden_width, hidden_width, count);
  const std::size_t head = checked_product(hidden_width, vocabulary_size, count);
  NeuralNgramConfig config;
  config.vocabulary_size_ = vocabulary_size;
  config.context_length_ = context_length;
  config.embedding_width_ = embedding_width;
  config.hidden_width_ = hidden_width;
  config.parameter_count_ =
      checked_sum(checked_sum(checked_sum(table, gate_and_up, count), down, count), head, count);
  return config;
}
// endregion: neural-ngram-config-create

// region: neural-ngram-construct
NeuralNgram NeuralNgram::initialized(const NeuralNgramConfig& config, SplitMix64& generator) {
  SplitMix64 trial = generator;  // copied back only when all five matrices exist
  Embedding embedding =
      Embedding::initialized(config.vocabulary_size(), config.embedding_width(), trial);
  SwiGlu feed_forward = SwiGlu::initialized(config.context_feature_width(), config.hidden_width(),
                                            config.hidden_width(), trial);
  Linear output =
      Linear::initialized(config.hidden_width(), config.vocabulary_size(), Bias::No, trial);
  NeuralNgram model(config, std::move(embedding), std::move(feed_forward), std::move(output));
  generator = trial;
  return model;
}

NeuralNgram::NeuralNgram(const NeuralNgramConfig& config, Embedding embedding, SwiGlu feed_forward,
                         Linear output)
    : config_(config),
      embedding_(std::move(embedding)),
      feed_forward_(std::move(feed_forward)),
      output_(std::move(output)) {
  const std::size_t V = config.vocabulary_size();
  const std::size_t D = config.embedding_width();
  const std::size_t H = config.hidden_width();
  const std::size_t features = config.context_feature_width();
  require_weight_shape("embedding", embedding_.table(), Shape{V, D});
  require_weight_shape("ffn.gate", feed_forward_.gate().weight(), Shape{features, H});
  require_weight_shape("ffn.up", feed_forward_.up().weight(), Shape{features, H});
  require_weight_shape("ffn.down", feed_forward_.down().weight(), Shape{H, H});
  require_weight_shape("output", output_.weight(), Shape{H, V});
  if (output_.bias()) throw NeuralNgramError(NeuralNgramErrorKind::OutputBias, {});
}
// endregion: neural-ngram-construct

ParameterSet NeuralNgram::parameters() const {
  ParameterSet set;
  set.add_all("ngram.embedding", embedding_.parameters());
  set.add_all("ngram.ffn", feed_forward_.parameters());
  set.add_all("ngram.output", output_.parameters());
  return set;
}

// region: neural-ngram-forward
NeuralNgramPass NeuralNgram::forward(std::span<const TokenId> context_ids,
                                     std::size_t batch_size) const {
  const std::size_t T = config_.context_length();
  if (batch_size == 0) throw NeuralNgramError(NeuralNgramErrorKind::EmptyBatch, {});
  const std::size_t expected = checked_product(batch_size, T, "context ID count B * T");
  if (context_ids.size() != expected) {
    throw NeuralNgramError(NeuralNgramErrorKind::ContextCountMismatch,
                           {.expected = expected, .actual = context_ids.size()});
  }
  // Embedding::forward reads row numbers as size_t; the tokenizer's IDs are 32-bit.
  const std::vector<std::size_t> rows(context_ids.begin(), context_ids.end());
  const TensorValue embeddings = embedding_.forward(rows, Shape{batch_size, T});  // [B, T, D]
  // Row-major [B, T, D] is already [B, T*D]: the T rows of a context side by
  // side, oldest first. The reshape shares storage; no value moves.
  const TensorValue concatenated =
      embeddings.reshape(Shape{batch_size, config_.context_feature_width()});
  const TensorValue hidden = feed_forward_.forward(concatenated);  // [B, H]
  const TensorValue logits = output_.forward(hidden);              // [B, V]
  return {embeddings, concatenated, hidden, logits};
}
// endregion: neural-ngram-forward

// region: neural-ngram-greedy
TokenId NeuralNgram::greedy_next(std::span<const TokenId> context,
                                 std::span<const TokenId> masked) const {
  const std::size_t V = config_.vocabulary_size();
  std::vector<bool> skip(V, false);
  for (const TokenId id : masked) {
    if (id >= V) {
      throw NeuralNgramError(NeuralNgramErrorKind::MaskedTokenOutOfRange,
                             {.token = id, .vocabulary_size = V});
    }
    skip[id] = true;
  }
  const NoGradScope no_graph;
  const Tensor logits = forward(context, 1).logits.value().materialize();  // [1, V]
  std::optional<std::size_t> best;
  for (std::size_t id = 0; id < V; ++id) {
    // Strictly greater: of equal logits the first, lower ID stays.
    if (!skip[id] && (!best || logits.values()[id] > logits.values()[*best])) best = id;
  }
  if (!best) throw NeuralNgramError(NeuralNgramErrorKind::NoUnmaskedToken, {.vocabulary_size = V});
  return static_cast<TokenId>(*best);
}
// endregion: neural-ngram-greedy

}  // namespace llm
