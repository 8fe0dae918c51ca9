// The book's own corpus, as the demos and tests read it.
//
// chapters/common/corpus/ holds two files written for this book: corpus.json
// (twelve short documents, six scenes in English and Russian) and
// splits.json (the frozen manifest: 8 train, 2 validation, 2 test, by whole
// translated pairs). The build compiles both files into the program byte for
// byte (cmake/LlmEmbed.cmake), so the checksum sees exactly the committed
// bytes and every program that reads them reruns when they change.
// corpus/README.md says what the corpus is and how it was made.
#pragma once

#include <string_view>

#include "llm/text/corpus.hpp"

namespace book_corpus {

/// The exact bytes of chapters/common/corpus/corpus.json.
std::string_view corpus_json();

/// The exact bytes of chapters/common/corpus/splits.json.
std::string_view split_manifest_json();

/// The validated corpus (llm::Corpus::from_json of corpus_json()).
/// @throws llm::CorpusError if the committed file is invalid.
llm::Corpus corpus();

/// The validated partitions: the manifest checked against the corpus.
/// @throws llm::CorpusError if the committed files are invalid or disagree.
llm::CorpusPartitions partitions();

}  // namespace book_corpus
