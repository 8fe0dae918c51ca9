// Every kind of the `attention` area builds from its table, with empty
// evidence too: each has its own kebab-case name and a message whose every
// hole names a field the area prints (a bad hole would throw std::logic_error).
#include "llm/attention/attention_error.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace llm {
namespace {

TEST(AttentionErrorArea, EveryKindBuildsWithItsOwnNameAndAMessage) {
  std::set<std::string> names;
  for (const auto& row : AttentionErrorTraits::kinds) {
    const AttentionError error(row.kind, {});
    EXPECT_EQ(error.area(), "attention");
    EXPECT_EQ(error.kind(), row.kind);
    EXPECT_EQ(error.kind_name(), row.name);
    EXPECT_FALSE(std::string(error.what()).empty());
    EXPECT_EQ(std::string(error.what()).find('{'), std::string::npos) << row.name;
    names.insert(std::string(row.name));
  }
  EXPECT_EQ(names.size(), AttentionErrorTraits::kinds.size());
}

}  // namespace
}  // namespace llm
