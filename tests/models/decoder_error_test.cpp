// Every kind of the `decoder` area builds from its table, with empty
// evidence too: each has its own kebab-case name and a message whose every
// hole names a field the area prints (a bad hole would throw std::logic_error).
#include "llm/models/decoder_error.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace llm {
namespace {

TEST(DecoderErrorArea, EveryKindBuildsWithItsOwnNameAndAMessage) {
  std::set<std::string> names;
  for (const auto& row : DecoderErrorTraits::kinds) {
    const DecoderError error(row.kind, {});
    EXPECT_EQ(error.area(), "decoder");
    EXPECT_EQ(error.kind(), row.kind);
    EXPECT_EQ(error.kind_name(), row.name);
    EXPECT_FALSE(std::string(error.what()).empty());
    EXPECT_EQ(std::string(error.what()).find('{'), std::string::npos) << row.name;
    names.insert(std::string(row.name));
  }
  EXPECT_EQ(names.size(), DecoderErrorTraits::kinds.size());
}

}  // namespace
}  // namespace llm
