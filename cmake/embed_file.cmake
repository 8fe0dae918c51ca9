# cmake -DINPUT=file -DOUTPUT=source.cpp -DNAMESPACE=ns -DNAME=function -P embed_file.cmake
# Writes a C++ source whose ns::function() returns the bytes of INPUT as a
# std::string_view (see LlmEmbed.cmake). The file is written under a
# temporary name and renamed, so an interrupted run leaves no half source.
file(READ ${INPUT} hex HEX)
string(LENGTH "${hex}" hex_digits)
math(EXPR byte_count "${hex_digits} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n    " bytes "${bytes}")
file(WRITE ${OUTPUT}.tmp
"// Generated from ${INPUT} by cmake/embed_file.cmake; do not edit.
#include <string_view>

namespace ${NAMESPACE} {
namespace {
// The file's ${byte_count} bytes, then a 0 so the array is never empty.
constexpr unsigned char kBytes[] = {
    ${bytes}0x00};
}  // namespace

std::string_view ${NAME}() {
  return {reinterpret_cast<const char*>(kBytes), ${byte_count}};
}
}  // namespace ${NAMESPACE}
")
file(RENAME ${OUTPUT}.tmp ${OUTPUT})
