// Every kind of the `decoder-operation` area builds from its table, with empty
// evidence too: each has its own kebab-case name and a message whose every
// hole names a field the area prints (a bad hole would throw std::logic_error).
#include "llm/autograd/decoder_op_error.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace llm {
namespace {

TEST(DecoderOpErrorArea, EveryKindBuildsWithItsOwnNameAndAMessage) {
  std::set<std::string> names;
  for (const auto& row : DecoderOpErrorTraits::kinds) {
    const DecoderOpError error(row.kind, {});
    EXPECT_EQ(error.area(), "decoder-operation");
    EXPECT_EQ(error.kind(), row.kind);
    EXPECT_EQ(error.kind_name(), row.name);
    EXPECT_FALSE(std::string(error.what()).empty());
    EXPECT_EQ(std::string(error.what()).find('{'), std::string::npos) << row.name;
    names.insert(std::string(row.name));
  }
  EXPECT_EQ(names.size(), DecoderOpErrorTraits::kinds.size());
}

}  // namespace
}  // namespace llm
