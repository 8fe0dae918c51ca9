// Chapter 1 demo: the same short inputs as UTF-8 bytes, Unicode scalar
// values and vocabulary IDs; the historical word and scalar splits; and an
// unknown scalar. With --trace PATH it also writes, for the figures, each
// example's bytes grouped by scalar, a look-alike input ("cаt" with a
// Cyrillic а) that the printed examples cannot show, and a three-byte and a
// four-byte scalar ("€🦀"), so that every row of the UTF-8 table is traced.
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "demo_lists.hpp"
#include "demo_trace.hpp"
#include "historical.hpp"
#include "llm/text/text_units.hpp"

namespace {

using demo::Json;
using llm::ScalarVocabulary;

// region: chapter-inputs
constexpr std::string_view kTrainingText = "cat кот";
constexpr std::string_view kEnglishInput = "cat";
constexpr std::string_view kCyrillicInput = "кот";
constexpr std::string_view kUnknownInput = "?";
// Looks like "cat", but its middle letter is Cyrillic а (U+0430), not Latin a.
constexpr std::string_view kLookAlikeInput = "c\u0430t";
// The euro sign (U+20AC) takes three bytes and the crab (U+1F980) four: the
// printed inputs never leave the one- and two-byte rows of UTF-8.
constexpr std::string_view kWideInput = "\u20AC\U0001F980";
// endregion: chapter-inputs

// `'c'`: one scalar the way Rust's `{:?}` prints a char.
std::string quoted_scalar(char32_t scalar) {
  return demo::quoted(llm::scalar_utf8(scalar), '\'');
}

std::string quoted_scalars(const std::vector<std::string>& units) {
  std::string text = "[";
  for (std::size_t i = 0; i < units.size(); ++i) {
    text += (i == 0 ? "" : ", ") + demo::quoted(units[i], '\'');
  }
  return text + "]";
}

std::string scalar_labels(std::string_view text) {
  std::string labels;
  for (char32_t scalar : llm::unicode_scalars(text)) {
    labels += (labels.empty() ? "" : ", ") + llm::scalar_label(scalar);
  }
  return "[" + labels + "]";
}

// region: chapter-example
void print_example(const ScalarVocabulary& vocabulary, std::string_view input) {
  const std::vector<std::size_t> token_ids = vocabulary.encode(input);
  std::cout << "input: " << input << '\n';
  std::cout << "utf8 bytes: " << demo::list_text(llm::utf8_bytes(input)) << '\n';
  std::cout << "unicode scalars: " << scalar_labels(input) << '\n';
  std::cout << "token ids: " << demo::list_text(token_ids) << '\n';
  std::cout << "decoded: " << vocabulary.decode(token_ids) << '\n';
}
// endregion: chapter-example

// One input for the figures: per scalar, its text, bytes, label and ID.
Json example_json(const ScalarVocabulary& vocabulary, std::string_view input) {
  Json scalars = Json::array();
  for (char32_t scalar : llm::unicode_scalars(input)) {
    const std::string text = llm::scalar_utf8(scalar);
    scalars.push_back({{"text", text},
                       {"bytes", llm::utf8_bytes(text)},
                       {"label", llm::scalar_label(scalar)},
                       {"id", vocabulary.id_for(scalar)}});
  }
  const std::vector<std::size_t> token_ids = vocabulary.encode(input);
  return {{"input", input},
          {"byte_count", input.size()},
          {"scalar_count", scalars.size()},
          {"id_count", token_ids.size()},
          {"scalars", scalars},
          {"decoded", vocabulary.decode(token_ids)}};
}

Json trace_json(const ScalarVocabulary& vocabulary) {
  Json entries = Json::array();
  entries.push_back(
      {{"id", llm::kUnknownScalarId}, {"unit", llm::kUnknownScalarToken}, {"label", "unknown"}});
  for (std::size_t id = 1; id <= vocabulary.max_id(); ++id) {
    const char32_t scalar = *vocabulary.scalar_for(id);
    entries.push_back(
        {{"id", id}, {"unit", llm::scalar_utf8(scalar)}, {"label", llm::scalar_label(scalar)}});
  }
  Json examples = Json::array();
  for (std::string_view input :
       {kEnglishInput, kCyrillicInput, kLookAlikeInput, kUnknownInput, kWideInput}) {
    examples.push_back(example_json(vocabulary, input));
  }
  return {{"training_text", kTrainingText}, {"vocabulary", entries}, {"examples", examples}};
}

}  // namespace

// region: chapter-output
int main(int argc, char** argv) try {
  const auto trace_path = demo::trace_path(argc, argv);
  const ScalarVocabulary vocabulary = ScalarVocabulary::from_training_text(kTrainingText);

  std::cout << "vocabulary: " << llm::kUnknownScalarToken << '=' << llm::kUnknownScalarId;
  for (std::size_t id = 1; id <= vocabulary.max_id(); ++id) {
    std::cout << ' ' << quoted_scalar(*vocabulary.scalar_for(id)) << '=' << id;
  }
  std::cout << '\n';

  print_example(vocabulary, kEnglishInput);
  print_example(vocabulary, kCyrillicInput);

  std::cout << "historical words: " << demo::quoted_list(ch01::split_words("red fox")) << " | "
            << demo::quoted_list(ch01::split_words("рыжий кот")) << '\n';
  std::cout << "historical scalars: " << quoted_scalars(ch01::split_scalars(kEnglishInput)) << " | "
            << quoted_scalars(ch01::split_scalars(kCyrillicInput)) << '\n';

  const std::vector<std::size_t> unknown_ids = vocabulary.encode(kUnknownInput);
  std::cout << "unknown input: " << kUnknownInput << '\n';
  std::cout << "unknown token ids: " << demo::list_text(unknown_ids) << '\n';
  std::cout << "unknown decoded: " << vocabulary.decode(unknown_ids) << '\n';

  demo::write_trace(trace_path, trace_json(vocabulary));
  return 0;
} catch (const std::exception& error) {
  std::cerr << "chapter 1 demo failed: " << error.what() << '\n';
  return 1;
}
// endregion: chapter-output
